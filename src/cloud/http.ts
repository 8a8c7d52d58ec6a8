/**
 * One HTTP exchange with the account interface, mapped onto `AccountError`: a timeout and an
 * optional caller signal on every call, status codes turned into stable codes, and nothing
 * secret in any message (the server's own message is scrubbed of the password).
 */
import { AccountError } from '../errors.js'

/** The subset of `fetch` the client uses; inject your own (a proxy agent, a test double). */
export type FetchLike = (input: string, init: RequestInit) => Promise<Response>

/** One call to perform. */
export interface Exchange {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  /** Path and query, e.g. `/users/me/beacons?x=1`. */
  path: string
  body?: unknown
  authorization?: string
  signal?: AbortSignal
  timeoutMs: number
  /** `false` ignores the body; `'optional'` parses it when it is JSON and ignores it otherwise. */
  wantBody: boolean | 'optional'
}

/** Parses Retry-After (delta-seconds or an HTTP date) into seconds, or undefined. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed)
  const at = Date.parse(trimmed)
  if (Number.isNaN(at)) return undefined
  return Math.max(0, Math.ceil((at - now) / 1000))
}

function describeCause(e: unknown): string {
  // undici wraps the socket error: "fetch failed" with cause { code: 'ECONNRESET', ... }.
  const cause = (e as { cause?: { code?: unknown; message?: unknown } }).cause
  if (cause !== undefined && cause !== null) {
    if (typeof cause.code === 'string') return cause.code
    if (typeof cause.message === 'string') return cause.message
  }
  return e instanceof Error ? e.message : 'unknown error'
}

function scrub(text: string, secrets: readonly string[]): string {
  let out = text.slice(0, 200)
  for (const s of secrets) if (s.length > 0) out = out.split(s).join('***')
  return out
}

/** Performs `ex` against `baseUrl`; resolves to the parsed JSON body (or undefined). */
export async function exchange(
  fetchImpl: FetchLike,
  baseUrl: string,
  ex: Exchange,
  secrets: readonly string[],
): Promise<unknown> {
  const what = `${ex.method} ${ex.path.split('?')[0]}`
  if (ex.signal?.aborted) throw new AccountError('aborted', `${what} was aborted before it started`)
  const timeout = AbortSignal.timeout(ex.timeoutMs)
  const signal = ex.signal === undefined ? timeout : AbortSignal.any([ex.signal, timeout])
  const headers: Record<string, string> = { accept: 'application/json' }
  if (ex.authorization !== undefined) headers.authorization = ex.authorization
  let body: string | undefined
  if (ex.body !== undefined) {
    headers['content-type'] = 'application/json'
    body = JSON.stringify(ex.body)
  }
  const failed = (e: unknown): AccountError => {
    if (ex.signal?.aborted === true) return new AccountError('aborted', `${what} was aborted`)
    if (timeout.aborted) {
      return new AccountError('timeout', `${what} got no complete answer within ${ex.timeoutMs} ms; check the network or raise timeoutMs`)
    }
    return new AccountError('network', `${what} failed (${scrub(describeCause(e), secrets)}); check that ${baseUrl} is reachable`)
  }
  let res: Response
  let text: string
  try {
    res = await fetchImpl(`${baseUrl}${ex.path}`, { method: ex.method, headers, body, signal })
    text = await res.text()
  } catch (e) {
    throw failed(e)
  }
  const status = res.status
  if (status >= 200 && status < 300) {
    if (!ex.wantBody) return undefined
    if (text.length === 0) return undefined
    try {
      return JSON.parse(text) as unknown
    } catch {
      if (ex.wantBody === 'optional') return undefined
      throw new AccountError('invalid_response', `${what} answered ${status} with a body that is not JSON`, { status })
    }
  }
  const retryAfterSeconds = parseRetryAfter(res.headers.get('retry-after'))
  const details = retryAfterSeconds === undefined ? { status } : { status, retryAfterSeconds }
  const serverSays = serverMessage(text, secrets)
  if (status === 401 || status === 403) {
    throw new AccountError('unauthorized', `${what} was refused (HTTP ${status}); check the account e-mail and password`, details)
  }
  if (status === 404) throw new AccountError('not_found', `${what}: not found (HTTP 404)${serverSays}`, details)
  if (status === 429) {
    const wait = retryAfterSeconds === undefined ? '' : ` for ${retryAfterSeconds} s`
    throw new AccountError('rate_limited', `${what} was rate limited (HTTP 429); wait${wait} before retrying`, details)
  }
  if (status >= 400 && status < 500) {
    throw new AccountError('bad_request', `${what} was rejected (HTTP ${status})${serverSays}`, details)
  }
  if (status >= 500) throw new AccountError('server', `${what} failed on the server (HTTP ${status}); retry later`, details)
  throw new AccountError('invalid_response', `${what} answered with unexpected HTTP ${status}`, details)
}

function serverMessage(text: string, secrets: readonly string[]): string {
  if (text.length === 0) return ''
  try {
    const parsed = JSON.parse(text) as { message?: unknown; err_msg?: unknown }
    const m = typeof parsed.message === 'string' ? parsed.message : typeof parsed.err_msg === 'string' ? parsed.err_msg : undefined
    return m === undefined ? '' : `: ${scrub(m, secrets)}`
  } catch {
    return ''
  }
}
