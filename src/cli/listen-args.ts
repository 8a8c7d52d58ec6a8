/**
 * `--http` and `--metrics`: an address to listen on (`[host:]port`) and its access token, read
 * and checked; the token is a secret and is never echoed.
 */

import { fail, quote, str } from './arg-values.js'
import type { Values } from './arg-values.js'
import type { HttpFlags, MetricsFlags } from './command-line.js'

/**
 * `--http [host:]port` (host default 127.0.0.1; `[::1]:8080` for IPv6) and `--http-token`.
 * The token is a secret typed on the command line: it is checked for shape, never echoed.
 */
export function parseHttp(values: Values, command: string): HttpFlags | undefined {
  return listenFlags(values, command, 'http', 'http-token')
}

/**
 * `--metrics [host:]port` and `--metrics-token`: Prometheus `/metrics` and `/healthz` on a server
 * of their own, with the same syntax and token rule as `--http`; the token is never echoed.
 */
export function parseMetrics(values: Values, command: string): MetricsFlags | undefined {
  return listenFlags(values, command, 'metrics', 'metrics-token')
}

/** `--<name> [host:]port` and `--<name>-token <token>` (checked for shape). */
function listenFlags(values: Values, command: string, name: string, tokenName: string): HttpFlags | undefined {
  const text = str(values, name)
  const token = str(values, tokenName)
  if (text === undefined) {
    if (token !== undefined) fail(tokenName, `--${tokenName} only takes effect with --${name} [host:]port`, command)
    return undefined
  }
  const m = /^(?:\[([^\]]+)\]:|([^:[\]]+):)?(\d{1,5})$/.exec(text.trim())
  const port = m === null ? NaN : Number(m[3])
  if (m === null || port > 65535)
    fail(name, `--${name} takes [host:]port such as 8080, 127.0.0.1:8080 or 0.0.0.0:8080, not ${quote(text)}`, command)
  const flags: HttpFlags = { host: m[1] ?? m[2] ?? '127.0.0.1', port }
  if (token !== undefined) {
    if (!/^[A-Za-z0-9._~-]{16,256}$/.test(token))
      fail(
        tokenName,
        `--${tokenName} takes 16 to 256 characters of A-Z a-z 0-9 . _ ~ - (leave it out to have one generated)`,
        command,
      )
    flags.token = token
  }
  return flags
}
