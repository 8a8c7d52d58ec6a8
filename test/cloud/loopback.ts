/** A real HTTP server on 127.0.0.1 that records what it received, for transport tests. */
import { createServer } from 'node:http'
import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import { Server as HttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'

/** One request as the server saw it. */
export interface SeenRequest {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: string
}

/** A running loopback server. */
export interface Loopback {
  url: string
  /** host:port, as a Location would name it. */
  host: string
  requests: SeenRequest[]
  server: Server | HttpsServer
  close(): Promise<void>
}

/** Starts a server whose `handle` answers each request once its body has arrived. */
export async function loopback(handle: (req: SeenRequest, res: ServerResponse) => void, server: Server | HttpsServer = createServer()): Promise<Loopback> {
  const requests: SeenRequest[] = []
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const seen = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') }
      requests.push(seen)
      handle(seen, res)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  const scheme = server instanceof HttpsServer ? 'https' : 'http'
  return {
    url: `${scheme}://127.0.0.1:${port}`,
    host: `127.0.0.1:${port}`,
    requests,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}
