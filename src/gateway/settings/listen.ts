/**
 * The model's `http` and `metrics` sections as an address to listen on and its token: the host
 * defaults to 127.0.0.1 (a token is then optional), checked; each problem named by its path.
 */

import type { BeaconkitConfig } from '../../config/load-config.js'
import { quoted } from './problems.js'
import type { SettingProblems } from './problems.js'

/** A server of the run (the live map, the metrics): where it listens and its access token. */
export interface ListenSettings {
  host: string
  port: number
  /** A secret: required off loopback (generated and printed once when not given); never logged. */
  token?: string
}

/** The listen settings of `http` or `metrics`, or undefined when the section has no `listen`. */
export function listenSettings(
  model: BeaconkitConfig,
  section: 'http' | 'metrics',
  problems: SettingProblems,
): ListenSettings | undefined {
  const { listen, token } = model[section] ?? {}
  if (listen === undefined) {
    if (token !== undefined)
      problems.add(`${section}.token`, `--${section}-token only takes effect with --${section} [host:]port`)
    return undefined
  }
  const text = String(listen).trim()
  const m = /^(?:\[([^\]]+)\]:|([^:[\]]+):)?(\d{1,5})$/.exec(text)
  const port = m === null ? NaN : Number(m[3])
  if (m === null || port > 65535) {
    problems.add(
      `${section}.listen`,
      `--${section} takes [host:]port such as 8080, 127.0.0.1:8080 or 0.0.0.0:8080, not ${quoted(String(listen))}`,
    )
    return undefined
  }
  if (token !== undefined && !/^[A-Za-z0-9._~-]{16,256}$/.test(token))
    problems.add(
      `${section}.token`,
      `--${section}-token takes 16 to 256 characters of A-Z a-z 0-9 . _ ~ - (leave it out to have one generated)`,
    )
  return { host: m[1] ?? m[2] ?? '127.0.0.1', port, ...(token === undefined ? {} : { token }) }
}

/** `[host:]port` text of a host and port (brackets around an IPv6 host), as `listen` takes it. */
export function listenText(host: string, port: number): string {
  return host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`
}
