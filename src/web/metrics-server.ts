/**
 * `--metrics [host:]port` without `--http`: a small server of its own for `/metrics` and
 * `/healthz`, with the live map's access rule (auth.ts): loopback by default, and on any other
 * interface a token is required (given, or generated here and shown once by the caller).
 * Prometheus sends it as `Authorization: Bearer <token>`; `?token=` works as on the map.
 */
import { inspect } from 'node:util'
import { InvalidOptionError } from '../errors.js'
import type { MetricsEndpoint } from '../metrics/endpoint.js'
import { urlHost } from '../util/listen.js'
import { startHttpListener } from './http-listener.js'
import { checkToken, generateToken, isLoopbackHost } from './auth.js'
import { serveMetrics } from './metrics-route.js'

/** Options of {@link startMetricsServer}. */
export interface MetricsServerOptions {
  endpoint: MetricsEndpoint
  /** Interface to listen on; default 127.0.0.1. Anything but loopback requires a token. */
  host?: string
  /** TCP port; 0 picks a free one. */
  port: number
  /** Access token; default none on loopback, a generated one elsewhere. */
  token?: string
}

/** A running metrics server. */
export interface MetricsServer {
  /** `http://host:port/metrics` (no token). */
  readonly url: string
  readonly host: string
  readonly port: number
  /** Whether requests must show the token. */
  readonly tokenRequired: boolean
  /** The token when this server generated it (tell the user once), else undefined. Not enumerable. */
  readonly generatedToken: string | undefined
  close(): Promise<void>
}

/** Serves `endpoint` on `host:port` (see the file comment). */
export async function startMetricsServer(options: MetricsServerOptions): Promise<MetricsServer> {
  const host = options.host ?? '127.0.0.1'
  const { port, endpoint } = options
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new InvalidOptionError(
      'invalid_option',
      `the metrics port must be a TCP port between 0 and 65535, not ${String(port)}`,
      { option: 'metrics' },
    )
  const loopback = isLoopbackHost(host)
  const generated = options.token === undefined && !loopback ? generateToken() : undefined
  const token = options.token !== undefined ? checkToken(options.token) : generated
  const listener = await startHttpListener((req, res) => serveMetrics(req, res, endpoint, token), {
    host,
    port,
    what: 'the metrics',
    option: 'metrics',
  })
  const actualPort = listener.port
  const url = `http://${urlHost(host)}:${actualPort}/metrics`
  let closed = false
  const running: MetricsServer & { [inspect.custom](): string; toJSON(): object } = {
    url,
    host,
    port: actualPort,
    tokenRequired: token !== undefined,
    generatedToken: generated,
    async close() {
      if (closed) return
      closed = true
      await listener.close()
    },
    // Never the token: where it listens and whether it asks for one.
    [inspect.custom]: () => `MetricsServer { url: '${url}', tokenRequired: ${token !== undefined} }`,
    toJSON: () => ({ url, tokenRequired: token !== undefined }),
  }
  Object.defineProperty(running, 'generatedToken', { enumerable: false })
  return running
}
