/**
 * `--metrics [host:]port` without `--http`: a small server of its own for `/metrics` and
 * `/healthz`, with the live map's access rule (auth.ts): loopback by default, and on any other
 * interface a token is required (given, or generated here and shown once by the caller).
 * Prometheus sends it as `Authorization: Bearer <token>`; `?token=` works as on the map.
 */
import { createServer } from 'node:http'
import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import { inspect } from 'node:util'
import { InvalidOptionError } from '../errors.js'
import type { MetricsEndpoint } from '../metrics/endpoint.js'
import { listen, urlHost } from '../util/listen.js'
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
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new InvalidOptionError('invalid_option', `the metrics port must be a TCP port between 0 and 65535, not ${String(port)}`, { option: 'metrics' })
  const loopback = isLoopbackHost(host)
  const generated = options.token === undefined && !loopback ? generateToken() : undefined
  const token = options.token !== undefined ? checkToken(options.token) : generated
  const sockets = new Set<Socket>()
  const server: Server = createServer((req, res) => {
    serveMetrics(req, res, endpoint, token).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('internal error\n')
      else res.end()
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  let actualPort: number
  try {
    actualPort = await listen(server, port, host)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE') throw new InvalidOptionError('invalid_option', `port ${port} on ${host} is in use; choose another port for the metrics (0 picks a free one)`, { option: 'metrics', cause: error })
    throw new InvalidOptionError('invalid_option', `the metrics server cannot listen on ${host}:${port} (${code ?? 'error'}); check the host and port`, { option: 'metrics', cause: error })
  }
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
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const s of sockets) s.destroy()
      })
    },
    // Never the token: where it listens and whether it asks for one.
    [inspect.custom]: () => `MetricsServer { url: '${url}', tokenRequired: ${token !== undefined} }`,
    toJSON: () => ({ url, tokenRequired: token !== undefined }),
  }
  Object.defineProperty(running, 'generatedToken', { enumerable: false })
  return running
}
