/**
 * The developer interface's answer envelope `{err_code, data}` (platform docs 4.1, 7): unwrapped on
 * success, turned into a `DeveloperApiError` otherwise, whatever the HTTP status (the spec does
 * not say which statuses accompany failures, so both a 200 and a 4xx carrying `err_code` count).
 */
import { AccountError, DeveloperApiError } from '../errors.js'
import type { DeveloperApiErrorCode } from '../errors.js'

interface Known {
  code: DeveloperApiErrorCode
  meaning: string
}

/** Part 7, by `err_code`. */
export const ERROR_CODES: ReadonlyMap<number, Known> = new Map<number, Known>([
  [-1, { code: 'system_busy', meaning: 'system busy, retry later' }],
  [500, { code: 'server_error', meaning: 'server error' }],
  [704, { code: 'parser_rejected', meaning: 'Invalid Params (the downlink parser refused the data; see errInfo)' }],
  [5010101, { code: 'sns_required', meaning: 'sns is a required parameter' }],
  [5010107, { code: 'device_not_found', meaning: 'device not found' }],
  [5010108, { code: 'invalid_count', meaning: 'count should be a positive integer and le 1000' }],
  [5020601, { code: 'invalid_params', meaning: 'invalid params (parameter error)' }],
  [5020610, { code: 'invalid_sns', meaning: 'sns is required array of strings' }],
  [5020612, { code: 'invalid_interval', meaning: 'interval is a required integer greater than 60' }],
  [5020613, { code: 'invalid_hex', meaning: 'data is required hex string' }],
  [5020614, { code: 'invalid_threshold', meaning: 'coAlarmHigh should be a positive integer' }],
  [5020615, { code: 'invalid_threshold', meaning: 'co2AlarmHigh should be a positive integer' }],
  [5020616, { code: 'invalid_threshold', meaning: 'so2AlarmHigh should be a positive integer' }],
  [5020617, { code: 'invalid_threshold', meaning: 'no2AlarmHigh should be a positive integer' }],
  [5020618, { code: 'invalid_threshold', meaning: 'ch4AlarmHigh should be a positive integer' }],
  [5020619, { code: 'invalid_threshold', meaning: 'pm2_5AlarmHigh should be a positive integer' }],
  [5020620, { code: 'invalid_threshold', meaning: 'pm10AlarmHigh should be a positive integer' }],
])

/** What to do about each kind of failure, for the message. */
const ADVICE: Partial<Record<DeveloperApiErrorCode, string>> = {
  system_busy: 'retry later',
  server_error: 'retry later; if it persists, ask the platform operator',
  device_not_found: 'check the serial number, and that the device is linked to this application (linkDevices)',
  parser_rejected: 'check the data against the parser type (errInfo has its detail)',
}

function text(value: unknown): string | undefined {
  if (typeof value === 'string') return value
  if (value !== undefined && value !== null && typeof value === 'object') return JSON.stringify(value)
  return undefined
}

/**
 * The error for an envelope with a non-zero `err_code`, or undefined when `body` is a success
 * envelope or not an envelope at all. `scrub` masks secrets in text the server sent.
 */
export function envelopeError(
  what: string,
  status: number,
  body: unknown,
  retryAfterSeconds: number | undefined,
  scrub: (text: string, max: number) => string,
): DeveloperApiError | undefined {
  if (typeof body !== 'object' || body === null) return undefined
  const env = body as { err_code?: unknown; err_msg?: unknown; errmsg?: unknown; err_info?: unknown }
  if (typeof env.err_code !== 'number' || env.err_code === 0) return undefined
  const errCode = env.err_code
  const known = ERROR_CODES.get(errCode)
  // The spec's example of 5020613 names the message `errmsg`; read both.
  const said = text(env.err_msg) ?? text(env.errmsg)
  const serverMessage = said === undefined ? undefined : scrub(said, 200)
  const info = text(env.err_info)
  const errInfo = info === undefined ? undefined : scrub(info, 500)
  const code = known?.code ?? 'api_error'
  const advice = ADVICE[code]
  const parts = [`${what} failed with err_code ${errCode}`, `(${known?.meaning ?? 'not listed in the spec'})`]
  if (serverMessage !== undefined && serverMessage !== known?.meaning) parts.push(`: ${serverMessage}`)
  if (errInfo !== undefined) parts.push(`[${errInfo}]`)
  const message = `${parts.join(' ').replace(' :', ':')}${advice === undefined ? '' : `; ${advice}`}`
  return new DeveloperApiError(code, message, {
    status,
    errCode,
    ...(known === undefined ? {} : { meaning: known.meaning }),
    ...(serverMessage === undefined ? {} : { serverMessage }),
    ...(errInfo === undefined ? {} : { errInfo }),
    ...(retryAfterSeconds === undefined ? {} : { retryAfterSeconds }),
  })
}

/** The `data` of a success envelope; an answer that is not one is `invalid_response`. */
export function unwrap(what: string, body: unknown): unknown {
  const env = body as { err_code?: unknown; data?: unknown } | null | undefined
  if (typeof env !== 'object' || env === null || env.err_code !== 0) {
    throw new DeveloperApiError(
      'invalid_response',
      `${what} answered without the {err_code, data} envelope; check that baseUrl points at the developer interface`,
      { status: 200 },
    )
  }
  return env.data
}

/**
 * The transport's own failures (no answer, redirect, size, HTTP status without an envelope) under the developer
 * client's class.
 */
export function fromTransport(e: unknown): unknown {
  if (!(e instanceof AccountError)) return e
  // insecure_url is refused when the client is made, before any exchange.
  const code = e.code === 'insecure_url' ? 'invalid_response' : e.code
  return new DeveloperApiError(code, e.message, {
    status: e.status,
    ...(e.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: e.retryAfterSeconds }),
    cause: e,
  })
}

/** Failures worth another attempt of an idempotent read. */
const TRANSIENT: ReadonlySet<DeveloperApiErrorCode> = new Set([
  'system_busy',
  'network',
  'timeout',
  'server',
  'rate_limited',
])

/** Whether a read may be tried again after `e`. */
export function isTransient(e: unknown): boolean {
  if (e instanceof DeveloperApiError) return TRANSIENT.has(e.code)
  return (
    e instanceof AccountError &&
    (e.code === 'network' || e.code === 'timeout' || e.code === 'server' || e.code === 'rate_limited')
  )
}
