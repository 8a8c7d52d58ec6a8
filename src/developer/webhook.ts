/**
 * The webhook receiver (platform docs 6.1–6.4; docs/developer-interface.md): a `node:http` request
 * listener that mounts in any server or framework. It answers 2xx only once the handler's
 * promise resolved, so a message the application could not take is pushed again by the
 * platform; re-pushes of a message already taken are answered 2xx without calling the handler
 * twice; nothing a sender does (bad JSON, a huge body, a flood of duplicates) crashes it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { InvalidOptionError, WebhookError } from '../errors.js'
import type { WebhookErrorCode } from '../errors.js'
import { msgIdOf, parseWebhookMessage } from './webhook-message.js'
import { DedupKeys, dedupDigest } from './dedup-keys.js'
import type { WebhookMessage } from './webhook-message.js'
import { TIMED_OUT, readBody, reply, settleWithin } from './webhook-http.js'
import { DEFAULT_HANDLER_TIMEOUT_MS, emptyWebhookStats, positiveInt } from './webhook-options.js'
import type { WebhookHandler, WebhookHandlerOptions, WebhookStats } from './webhook-options.js'

const STATUS: Record<WebhookErrorCode, number> = {
  malformed: 400,
  too_large: 413,
  unverified: 401,
  encrypted: 501,
  decrypt_failed: 400,
  handler_failed: 500,
  method_not_allowed: 405,
  handler_timeout: 503,
  unavailable: 503,
}

/** Creates the receiver. Give at least one of `onData` / `onTaskEvent`. */
export function createWebhookHandler(options: WebhookHandlerOptions): WebhookHandler {
  if (
    typeof options !== 'object' ||
    options === null ||
    (options.onData === undefined && options.onTaskEvent === undefined)
  ) {
    throw new InvalidOptionError('invalid_option', 'createWebhookHandler needs onData and/or onTaskEvent', {
      option: 'onData',
    })
  }
  for (const hook of ['onData', 'onTaskEvent', 'verify', 'decrypt', 'onError'] as const) {
    if (options[hook] !== undefined && typeof options[hook] !== 'function')
      throw new InvalidOptionError('invalid_option', `${hook} must be a function`, { option: hook })
  }
  const maxBodyBytes = positiveInt(options.maxBodyBytes, 1024 * 1024, 'maxBodyBytes')
  const window = positiveInt(options.dedupWindow, 10_000, 'dedupWindow')
  const handlerTimeoutMs = positiveInt(options.handlerTimeoutMs, DEFAULT_HANDLER_TIMEOUT_MS, 'handlerTimeoutMs')
  const stats: WebhookStats = emptyWebhookStats()
  // Digests of taken messages (bounded), and of those being taken now.
  const taken = new DedupKeys(window)
  const inFlight = new Map<string, Promise<void>>()

  const refuse = (code: WebhookErrorCode, message: string, msgId?: string, cause?: unknown): WebhookError => {
    stats.refused[code]++
    const error = new WebhookError(code, message, {
      status: STATUS[code],
      ...(msgId === undefined ? {} : { msgId }),
      ...(cause === undefined ? {} : { cause }),
    })
    try {
      options.onError?.(error)
    } catch {
      // A throwing onError must not turn a refusal into a crash.
    }
    return error
  }

  const deliver = async (message: WebhookMessage): Promise<void> => {
    if (message.type === 'text') {
      if (options.onData === undefined) {
        stats.unhandled++
        return
      }
      await options.onData(message)
      stats.data++
    } else {
      if (options.onTaskEvent === undefined) {
        stats.unhandled++
        return
      }
      await options.onTaskEvent(message)
      stats.events++
    }
  }

  const open = async (envelope: Record<string, unknown>): Promise<unknown> => {
    const msgId = msgIdOf(envelope.msgId)
    if (envelope.encryptData === undefined) return envelope
    if (typeof envelope.encryptData !== 'string') throw refuse('malformed', 'encryptData must be a string', msgId)
    if (options.decrypt === undefined) {
      throw refuse(
        'encrypted',
        'an encrypted (safe mode) push arrived but no decrypt hook is configured: ' +
          'pass decrypt to createWebhookHandler, or switch the webhook to plain text mode',
        msgId,
      )
    }
    let plain: string | Record<string, unknown>
    try {
      plain = await options.decrypt(envelope.encryptData, envelope)
    } catch (e) {
      throw refuse('decrypt_failed', 'the decrypt hook threw; check the AppKey it uses', msgId, e)
    }
    let inner: unknown = plain
    if (typeof plain === 'string') {
      try {
        inner = JSON.parse(plain) as unknown
      } catch {
        throw refuse('decrypt_failed', 'the decrypt hook returned text that is not JSON', msgId)
      }
    }
    if (typeof inner !== 'object' || inner === null || Array.isArray(inner))
      throw refuse('decrypt_failed', 'the decrypt hook must return the message (a JSON object or its text)', msgId)
    const { encryptData: _drop, ...outer } = envelope
    void _drop
    return { ...outer, ...(inner as Record<string, unknown>) }
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    stats.requests++
    if (req.method !== 'POST') {
      req.resume()
      const e = refuse('method_not_allowed', `the webhook takes POST, not ${String(req.method).slice(0, 16)}`)
      reply(res, e.status, e.message, { allow: 'POST' })
      return
    }
    const text = await readBody(req, maxBodyBytes)
    if (text === undefined) {
      const e = refuse('too_large', `the push is larger than ${maxBodyBytes} bytes (maxBodyBytes)`)
      reply(res, e.status, e.message, { connection: 'close' })
      return
    }
    try {
      if (options.verify !== undefined) {
        let ok = false
        let cause: unknown
        try {
          ok =
            (await options.verify({ method: 'POST', url: req.url ?? '/', headers: req.headers, body: text })) === true
        } catch (e) {
          cause = e
        }
        if (!ok)
          throw refuse(
            'unverified',
            'the push failed signature verification (the verify hook said no)',
            undefined,
            cause,
          )
      }
      let json: unknown
      try {
        json = JSON.parse(text) as unknown
      } catch {
        throw refuse('malformed', 'the push is not JSON')
      }
      if (typeof json !== 'object' || json === null || Array.isArray(json))
        throw refuse('malformed', 'the push must be a JSON object')
      const parsed = parseWebhookMessage(await open(json as Record<string, unknown>))
      if ('problem' in parsed)
        throw refuse(
          'malformed',
          `the push is not a valid message: ${parsed.problem}`,
          msgIdOf((json as { msgId?: unknown }).msgId),
        )
      const message = parsed.message
      // The sender picks these fields: only their fixed-size digest is kept in memory.
      const key = dedupDigest(`${message.type}\u0000${message.appId}\u0000${String(message.msgId)}`)
      if (taken.has(key)) {
        stats.duplicates++
        reply(res, 200, 'success')
        return
      }
      // A re-push arriving while the first is still being handled waits for that outcome.
      let work = inFlight.get(key)
      if (work === undefined) {
        work = deliver(message)
        inFlight.set(key, work)
        void work
          .then(
            () => taken.add(key),
            () => undefined,
          )
          .finally(() => inFlight.delete(key))
      } else {
        stats.duplicates++
      }
      try {
        await settleWithin(work, handlerTimeoutMs)
      } catch (e) {
        const msgId = String(message.msgId)
        if (e === TIMED_OUT)
          throw refuse(
            'handler_timeout',
            `the handler did not finish within ${handlerTimeoutMs} ms (handlerTimeoutMs); ` +
              'the platform will push it again',
            msgId,
          )
        if (e instanceof WebhookError && e.code === 'unavailable') throw refuse('unavailable', e.message, msgId, e)
        throw refuse('handler_failed', 'the handler rejected the message; the platform will push it again', msgId, e)
      }
      reply(res, 200, 'success')
    } catch (e) {
      if (e instanceof WebhookError) reply(res, e.status, e.message)
      else throw e
    }
  }

  const listener = ((req: IncomingMessage, res: ServerResponse): void => {
    handle(req, res).catch(() => {
      // The sender went away mid-body, or something unforeseen: never an unhandled rejection.
      reply(res, 500, 'the receiver failed')
    })
  }) as WebhookHandler
  Object.defineProperty(listener, 'stats', {
    get: (): WebhookStats => ({ ...stats, refused: { ...stats.refused } }),
    enumerable: true,
  })
  return listener
}
