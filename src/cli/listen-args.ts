/**
 * `--http` and `--metrics`: an address to listen on (`[host:]port`) and its access token, read
 * into the model; the mapping (gateway/settings/listen.ts) decides the host and checks them. The
 * token is a secret and is never echoed.
 */

import type { BeaconkitConfig } from '../config/load-config.js'
import { listenSettings } from '../gateway/settings/listen.js'
import { str } from './arg-values.js'
import type { Values } from './arg-values.js'
import type { HttpFlags, MetricsFlags } from './command-line.js'
import { decided } from './decided.js'

/** `--<section> [host:]port` and `--<section>-token` as the model's `http` or `metrics` (undefined: neither given). */
export function listenModel(values: Values, section: 'http' | 'metrics'): BeaconkitConfig['http'] {
  const listen = str(values, section)
  const token = str(values, `${section}-token`)
  if (listen === undefined && token === undefined) return undefined
  return { ...(listen === undefined ? {} : { listen }), ...(token === undefined ? {} : { token }) }
}

/** `--http [host:]port` (host default 127.0.0.1; `[::1]:8080` for IPv6) and `--http-token`. */
export function parseHttp(values: Values, command: string): HttpFlags | undefined {
  return listenFlags(values, command, 'http')
}

/**
 * `--metrics [host:]port` and `--metrics-token`: Prometheus `/metrics` and `/healthz` on a server
 * of their own, with the same syntax and token rule as `--http`.
 */
export function parseMetrics(values: Values, command: string): MetricsFlags | undefined {
  return listenFlags(values, command, 'metrics')
}

function listenFlags(values: Values, command: string, section: 'http' | 'metrics'): HttpFlags | undefined {
  const model = listenModel(values, section)
  if (model === undefined) return undefined
  return decided(command, (problems) => listenSettings({ [section]: model }, section, problems))
}
