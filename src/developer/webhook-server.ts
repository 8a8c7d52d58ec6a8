/** A standalone webhook receiver: {@link createWebhookHandler} in its own `node:http` server. */
import { createServer } from 'node:http'
import { InvalidOptionError } from '../errors.js'
import { createWebhookHandler } from './webhook.js'
import type { WebhookHandlerOptions, WebhookStats } from './webhook-options.js'
import { listen, urlHost } from '../util/listen.js'

/** Options of {@link startWebhookServer}: where to listen, and the handler's options. */
export interface WebhookServerOptions extends WebhookHandlerOptions {
  /** 0 picks a free port. */
  port: number
  /** Default 127.0.0.1; `0.0.0.0` to take pushes from the platform (behind an https proxy: see the docs). */
  host?: string
}

/** A running receiver. */
export interface WebhookServer {
  /** e.g. `http://127.0.0.1:8080/`: the URL to configure (any path is accepted). */
  url: string
  port: number
  /** A snapshot of the counters. */
  readonly stats: WebhookStats
  /** Stops listening and drops open connections. */
  close(): Promise<void>
}

/** Starts the receiver; resolves once it listens. */
export async function startWebhookServer(options: WebhookServerOptions): Promise<WebhookServer> {
  const port = options?.port
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new InvalidOptionError('invalid_option', 'port must be an integer from 0 to 65535 (0 picks a free one)', {
      option: 'port',
    })
  const host = options.host ?? '127.0.0.1'
  const handler = createWebhookHandler(options)
  const server = createServer(handler)
  // Headers and a body must arrive in reasonable time: a stalled sender must not hold a socket for ever.
  server.requestTimeout = 30_000
  server.headersTimeout = 10_000
  const actual = await listen(server, port, host)
  return {
    url: `http://${urlHost(host)}:${actual}/`,
    port: actual,
    get stats() {
      return handler.stats
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
