/**
 * The listening part both HTTP servers of a gateway share (the live map and the metrics server):
 * a handler whose failure is answered 500 instead of left hanging, the open sockets tracked so
 * `close()` ends keep-alive connections (a browser's event stream would hold the port for
 * minutes), and a listen failure as an InvalidOptionError that names the option to change.
 */
import { createServer } from 'node:http'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { InvalidOptionError, TemporaryFailureError } from '../errors.js'
import { listen } from '../util/listen.js'

/** A server listening for a handler. */
export interface HttpListener {
  readonly server: Server
  /** The port it got (the one asked for, or a free one for 0). */
  readonly port: number
  /** Stops listening and drops every open connection. */
  close(): Promise<void>
}

/**
 * Listens on `host:port` for `handle`.
 * @param what how messages name the server, e.g. `the map`
 * @param option the option a listen failure is reported on, e.g. `http`
 * @throws InvalidOptionError `invalid_option` when the port is taken or the host cannot be used
 */
export async function startHttpListener(
  handle: (req: IncomingMessage, res: ServerResponse) => Promise<void>,
  at: { host: string; port: number; what: string; option: string },
): Promise<HttpListener> {
  const sockets = new Set<Socket>()
  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'text/plain; charset=utf-8' }).end('internal error\n')
      else res.end()
    })
  })
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  const { host, port, what, option } = at
  let actual: number
  try {
    actual = await listen(server, port, host)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE') {
      const advice = `choose another port for ${what} (0 picks a free one)`
      throw new TemporaryFailureError('port_in_use', `port ${port} on ${host} is in use; ${advice}`, { cause: error })
    }
    throw new InvalidOptionError(
      'invalid_option',
      `${what} cannot listen on ${host}:${port} (${code ?? 'error'}); check the host and port`,
      { option, cause: error },
    )
  }
  return {
    server,
    port: actual,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const s of sockets) s.destroy()
      }),
  }
}
