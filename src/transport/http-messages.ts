/**
 * What an answer or a failed fetch says, reduced to what an error message may quote: a cause's
 * code, a redirect's host (never its path or query), the server's own message, and how long
 * Retry-After asks to wait.
 */

/** Parses Retry-After (delta-seconds or an HTTP date) into seconds, or undefined. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed)
  const at = Date.parse(trimmed)
  if (Number.isNaN(at)) return undefined
  return Math.max(0, Math.ceil((at - now) / 1000))
}

/** The reason a fetch failed: the socket error code undici wraps, else the message. */
export function describeCause(e: unknown): string {
  // undici wraps the socket error: "fetch failed" with cause { code: 'ECONNRESET', ... }.
  const cause = (e as { cause?: { code?: unknown; message?: unknown } }).cause
  if (cause !== undefined && cause !== null) {
    if (typeof cause.code === 'string') return cause.code
    if (typeof cause.message === 'string') return cause.message
  }
  return e instanceof Error ? e.message : 'unknown error'
}

/** Where a Location header points: its host only (a path or query may carry a token). */
export function locationHost(location: string | null, requestUrl: string): string {
  if (location === null) return 'nowhere (no Location header)'
  try {
    return new URL(location, requestUrl).host || 'an address without a host'
  } catch {
    return 'an unreadable Location'
  }
}

/** The `message` (or `err_msg`) of a JSON error body, if it has one. */
export function serverMessage(text: string): string | undefined {
  if (text.length === 0) return undefined
  try {
    const parsed = JSON.parse(text) as { message?: unknown; err_msg?: unknown } | null
    const m = parsed?.message ?? parsed?.err_msg
    return typeof m === 'string' ? m : undefined
  } catch {
    return undefined
  }
}
