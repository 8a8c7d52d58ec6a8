/**
 * The HTTP transport shared by the platform's clients: one exchange, mapped onto
 * `AccountError`. A timeout and an optional caller signal on every call; redirects are never
 * followed (a redirect could carry credentials to another host, downgrade https, or make a
 * login page's 200 look like an accepted upload); answers are read with a size cap; and every
 * message is scrubbed of the secrets, whatever the server or the network stack put in it.
 */
import { AccountError } from '../errors.js'
import type { AccountErrorCode } from '../errors.js'
import { discardBody, readCapped } from './http-body.js'
import { describeCause, locationHost, parseRetryAfter, serverMessage } from './http-messages.js'
import { Scrubber } from './scrub.js'

/**
 * The subset of `fetch` the client uses; inject your own (a proxy agent, a test double). It
 * must honour `init.redirect` (`'manual'`): an answer that was redirected anyway is refused.
 */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>

/** Default cap on an answer's body: the platform's answers are small. */
export const DEFAULT_MAX_RESPONSE_BYTES = 4 * 1024 * 1024

/** An error answer is read only for the server's message; the rest is not needed. */
const ERROR_BODY_BYTES = 64 * 1024

/** Longest server message quoted in an error. */
const SERVER_MESSAGE_CHARS = 200

/** One call to perform. */
export interface Exchange {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  /** Path and query, e.g. `/users/me/beacons?x=1`. */
  path: string
  body?: unknown
  /**
   * The body already serialised as JSON (a signed body must be sent byte for byte as signed);
   * wins over `body`.
   */
  bodyText?: string
  authorization?: string
  /** More request headers (e.g. a signature); their values never reach an error message. */
  headers?: Readonly<Record<string, string>>
  signal?: AbortSignal
  timeoutMs: number
  /** `false` ignores the body; `'optional'` parses it when it is JSON and ignores it otherwise. */
  wantBody: boolean | 'optional'
  /**
   * Looks at every answer whose body is JSON (any status) and returns the error to throw
   * instead of the usual outcome, or undefined to go on: an interface that reports failures
   * in its body (`{err_code, err_msg}`) turns them into its own error here.
   */
  check?: (
    status: number,
    body: unknown,
    retryAfterSeconds: number | undefined,
    scrub: (text: string, maxLength?: number) => string,
  ) => Error | undefined
}

/** How a transport talks to one server. */
export interface TransportOptions {
  /** Base URL without a trailing slash. */
  baseUrl: string
  fetch?: FetchLike
  /** Strings that must never appear in an error (password, credential header). */
  secrets: readonly string[]
  /** Largest answer body read; a longer one fails with code `response_too_large`. */
  maxResponseBytes?: number
  /** Names the server in messages; default the account interface. */
  service?: ServiceWording
}

/** How messages name the server and what they advise on a refusal. */
export interface ServiceWording {
  /** e.g. `the account interface`. */
  name: string
  /** Advice on 401/403, e.g. `check the account e-mail and password`. */
  unauthorizedHint: string
}

const ACCOUNT_WORDING: ServiceWording = {
  name: 'the account interface',
  unauthorizedHint: 'check the account e-mail and password',
}

/** Sends requests to one server; shared by the platform's clients. */
export class HttpTransport {
  /** Base URL without a trailing slash. */
  readonly baseUrl: string
  /** Largest answer body read. */
  readonly maxResponseBytes: number
  readonly #fetch: FetchLike
  readonly #scrubber: Scrubber
  readonly #secrets: readonly string[]
  readonly #wording: ServiceWording

  constructor(options: TransportOptions) {
    this.#wording = options.service ?? ACCOUNT_WORDING
    this.baseUrl = options.baseUrl
    this.maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
    this.#fetch = options.fetch ?? ((input, init) => fetch(input, init))
    this.#scrubber = new Scrubber(options.secrets)
    this.#secrets = [...options.secrets]
  }

  /** `text` without any secret, cut to `maxLength` after scrubbing. */
  scrub(text: string, maxLength?: number): string {
    return this.#scrubber.scrub(text, maxLength)
  }

  /** Performs `ex`; resolves to the parsed JSON body (or undefined). */
  async exchange(ex: Exchange): Promise<unknown> {
    const what = `${ex.method} ${ex.path.split('?')[0]}`
    // Extra headers (a signature) are secrets of this exchange: a server may echo them.
    const scrubber =
      ex.headers === undefined ? this.#scrubber : new Scrubber([...this.#secrets, ...Object.values(ex.headers)])
    const scrub = (text: string, maxLength?: number): string => scrubber.scrub(text, maxLength)
    const fail = (
      code: AccountErrorCode,
      message: string,
      details: { status?: number; retryAfterSeconds?: number } = {},
    ): AccountError => new AccountError(code, scrub(message), details)
    if (ex.signal?.aborted) throw fail('aborted', `${what} was aborted before it started`)
    const timeout = AbortSignal.timeout(ex.timeoutMs)
    // Ours: stops an answer that grew past the cap, which closes its connection.
    const stop = new AbortController()
    const signal = AbortSignal.any(ex.signal === undefined ? [timeout, stop.signal] : [ex.signal, timeout, stop.signal])
    const headers: Record<string, string> = { accept: 'application/json' }
    if (ex.authorization !== undefined) headers.authorization = ex.authorization
    if (ex.headers !== undefined) Object.assign(headers, ex.headers)
    let body: string | undefined
    if (ex.bodyText !== undefined || ex.body !== undefined) {
      headers['content-type'] = 'application/json'
      body = ex.bodyText ?? JSON.stringify(ex.body)
    }
    const failed = (e: unknown): AccountError => {
      if (ex.signal?.aborted === true) return fail('aborted', `${what} was aborted`)
      if (timeout.aborted) {
        return fail(
          'timeout',
          `${what} got no complete answer within ${ex.timeoutMs} ms; check the network or raise timeoutMs`,
        )
      }
      return fail('network', `${what} failed (${describeCause(e)}); check that ${this.baseUrl} is reachable`)
    }
    const url = `${this.baseUrl}${ex.path}`
    let res: Response
    try {
      res = await this.#fetch(url, { method: ex.method, headers, body, signal, redirect: 'manual' })
    } catch (e) {
      throw failed(e)
    }
    const status = res.status
    // undici answers a manual redirect with the 3xx itself; a browser-style fetch with an
    // opaque one (status 0); an injected fetch that followed anyway says `redirected`.
    if (res.type === 'opaqueredirect' || (status >= 300 && status < 400) || res.redirected) {
      await discardBody(res)
      stop.abort()
      const followed = res.redirected && !(status >= 300 && status < 400)
      // An opaque redirect hides its Location.
      const to = followed
        ? locationHost(res.url, url)
        : status === 0
          ? 'an address the fetch does not disclose'
          : locationHost(res.headers.get('location'), url)
      const how = followed
        ? `was redirected to ${to} by the injected fetch, which must not follow redirects ` +
          '(pass init.redirect on); its answer is not trusted'
        : `was redirected${status === 0 ? '' : ` (HTTP ${status})`} to ${to}, and redirects are not followed`
      throw fail(
        'redirected',
        `${what} ${how}. Set the base URL to ${this.#wording.name}'s own address; ` +
          'a proxy or captive portal in the way also causes this',
        { status },
      )
    }
    const ok = status >= 200 && status < 300
    if (ok && !ex.wantBody) {
      await discardBody(res)
      return undefined
    }
    let text: string
    try {
      const read = await readCapped(res, ok ? this.maxResponseBytes : Math.min(ERROR_BODY_BYTES, this.maxResponseBytes))
      if (read.truncated) stop.abort()
      if (read.truncated && ok) {
        throw fail(
          'response_too_large',
          `${what} answered with more than ${this.maxResponseBytes} bytes, so the answer was abandoned; ` +
            `check that the base URL points at ${this.#wording.name}, ` +
            'or raise maxResponseBytes (for large log pages, ask for a smaller count)',
          { status },
        )
      }
      text = read.text
    } catch (e) {
      if (e instanceof AccountError) throw e
      throw failed(e)
    }
    const retryAfterSeconds = parseRetryAfter(res.headers.get('retry-after'))
    if (ex.check !== undefined && text.length > 0) {
      let parsed: unknown
      let isJson = true
      try {
        parsed = JSON.parse(text) as unknown
      } catch {
        isJson = false
      }
      const error = isJson ? ex.check(status, parsed, retryAfterSeconds, scrub) : undefined
      if (error !== undefined) throw error
    }
    if (ok) {
      if (text.length === 0) return undefined
      try {
        return JSON.parse(text) as unknown
      } catch {
        if (ex.wantBody === 'optional') return undefined
        throw fail('invalid_response', `${what} answered ${status} with a body that is not JSON`, { status })
      }
    }
    const details = retryAfterSeconds === undefined ? { status } : { status, retryAfterSeconds }
    const said = serverMessage(text)
    // Scrubbed before it is cut: a secret straddling the cut must not leave its start behind.
    const serverSays = said === undefined ? '' : `: ${scrub(said, SERVER_MESSAGE_CHARS)}`
    if (status === 401 || status === 403) {
      throw fail('unauthorized', `${what} was refused (HTTP ${status}); ${this.#wording.unauthorizedHint}`, details)
    }
    if (status === 404) throw fail('not_found', `${what}: not found (HTTP 404)${serverSays}`, details)
    if (status === 429) {
      const wait = retryAfterSeconds === undefined ? '' : ` for ${retryAfterSeconds} s`
      throw fail('rate_limited', `${what} was rate limited (HTTP 429); wait${wait} before retrying`, details)
    }
    if (status >= 400 && status < 500)
      throw fail('bad_request', `${what} was rejected (HTTP ${status})${serverSays}`, details)
    if (status >= 500) throw fail('server', `${what} failed on the server (HTTP ${status}); retry later`, details)
    throw fail('invalid_response', `${what} answered with unexpected HTTP ${status}`, details)
  }
}
