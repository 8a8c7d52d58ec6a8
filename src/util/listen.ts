/**
 * Starting a server on a port, shared by every server the package runs (emulator, webhook
 * receiver, map, embedded broker): `listen()` reports a taken port through an 'error' event,
 * not its callback, so both must be wired and the one that did not fire removed.
 */
import type { AddressInfo, Server } from 'node:net'

/** Listens on `host:port` (0: a free port); resolves with the port it got, rejects with the listen error. */
export function listen(server: Server, port: number, host: string): Promise<number> {
  return new Promise<number>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, host, () => {
      server.off('error', reject)
      resolve((server.address() as AddressInfo).port)
    })
  })
}

/** A host as it goes into a URL: an IPv6 address in brackets. */
export function urlHost(host: string): string {
  return host.includes(':') ? `[${host}]` : host
}
