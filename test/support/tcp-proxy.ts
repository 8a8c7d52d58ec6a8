/**
 * A loopback TCP relay in front of a broker, so a test can take a client off the network the
 * way a crash or a pulled cable does: `cut()` destroys the sockets without an MQTT DISCONNECT
 * (the broker then sends the client's last will) and refuses the reconnects.
 */

import { connect, createServer } from 'node:net'
import type { Socket } from 'node:net'

/** A running relay. */
export interface TcpProxy {
  /** `mqtt://127.0.0.1:<port>` of the relay. */
  readonly url: string
  /** Drops every connection at once and stops listening. */
  cut(): Promise<void>
}

/** Relays 127.0.0.1:<free port> to 127.0.0.1:`targetPort`. */
export async function startProxy(targetPort: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>()
  const server = createServer((inbound) => {
    const outbound = connect({ port: targetPort, host: '127.0.0.1' })
    for (const s of [inbound, outbound]) {
      sockets.add(s)
      s.on('close', () => sockets.delete(s))
      // A reset on one side is the point of a cut: close the other side too, quietly.
      s.on('error', () => undefined)
    }
    inbound.pipe(outbound)
    outbound.pipe(inbound)
    inbound.on('close', () => outbound.destroy())
    outbound.on('close', () => inbound.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  return {
    url: `mqtt://127.0.0.1:${port}`,
    cut: async () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()))
      for (const s of sockets) s.destroy()
      await closed
    },
  }
}
