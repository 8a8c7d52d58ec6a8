/**
 * A misbehaving MQTT broker for tests: a node:net server that speaks just enough of the MQTT
 * wire protocol (3.1.1 and 5) to let a client connect, and then can stay silent where a real
 * broker answers: no PUBACK, no SUBACK, no PINGRESP, or not even a CONNACK. It can also drop
 * every connection on demand, after an MQTT 5 DISCONNECT with a reason code if asked (0x8E:
 * session taken over). Counts what it received so a test can see the client went on.
 */

import { createServer } from 'node:net'
import type { AddressInfo, Server, Socket } from 'node:net'

/** What the broker answers; everything not answered is read and ignored. */
export interface SilentBrokerOptions {
  /** Answer CONNECT with CONNACK (default true). */
  connack?: boolean
  /** Answer QoS 1 PUBLISH with PUBACK (default false: the broker that never acknowledges). */
  puback?: boolean
  /** Answer SUBSCRIBE with SUBACK and UNSUBSCRIBE with UNSUBACK (default false). */
  suback?: boolean
  /** Answer PINGREQ with PINGRESP (default true, so the client's keepalive does not end the link). */
  pingresp?: boolean
}

/** A running misbehaving broker. */
export interface SilentBroker {
  url: string
  port: number
  /** What it received so far. */
  readonly stats: { connects: number; publishes: number; publishBytes: number; subscribes: number; pings: number; disconnects: number }
  /** Changes what it answers from now on (e.g. start acknowledging). */
  set(options: SilentBrokerOptions): void
  /**
   * Destroys every open connection (the clients see the broker vanish); with `reasonCode`, MQTT 5
   * clients are sent a DISCONNECT with it first, as a broker ending a session does.
   */
  dropAll(reasonCode?: number): void
  close(): Promise<void>
}

/** Reads an MQTT variable byte integer at `offset`: [value, bytes used], or undefined when incomplete. */
function varint(buf: Buffer, offset: number): [number, number] | undefined {
  let value = 0
  for (let i = 0; i < 4; i++) {
    if (offset + i >= buf.length) return undefined
    const b = buf[offset + i]
    value += (b & 0x7f) * 128 ** i
    if ((b & 0x80) === 0) return [value, i + 1]
  }
  throw new Error('malformed remaining length')
}

/** Starts the broker on a free loopback port. */
export async function startSilentBroker(initial: SilentBrokerOptions = {}): Promise<SilentBroker> {
  let options: Required<SilentBrokerOptions> = { connack: true, puback: false, suback: false, pingresp: true, ...initial }
  const stats = { connects: 0, publishes: 0, publishBytes: 0, subscribes: 0, pings: 0, disconnects: 0 }
  const sockets = new Set<Socket>()
  /** The protocol level each connection's CONNECT named. */
  const versions = new WeakMap<Socket, number>()

  const serve = (socket: Socket): void => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    socket.on('error', () => undefined)
    let version = 4
    let pending: Buffer = Buffer.alloc(0)
    const packet = (type: number, flags: number, body: Buffer): void => {
      switch (type) {
        case 1: {
          stats.connects++
          // Protocol name (2-byte length + text), then the level: 4 for 3.1.1, 5 for MQTT 5.
          const nameLength = body.readUInt16BE(0)
          version = body[2 + nameLength]
          versions.set(socket, version)
          if (options.connack) socket.write(version === 5 ? Buffer.from([0x20, 3, 0, 0, 0]) : Buffer.from([0x20, 2, 0, 0]))
          return
        }
        case 3: {
          stats.publishes++
          stats.publishBytes += body.length
          const qos = (flags >> 1) & 3
          if (qos > 0 && options.puback) {
            const topicLength = body.readUInt16BE(0)
            const id = body.readUInt16BE(2 + topicLength)
            // Remaining length 2: success, valid in 3.1.1 and 5.
            socket.write(Buffer.from([qos === 1 ? 0x40 : 0x50, 2, id >> 8, id & 0xff]))
          }
          return
        }
        case 8:
        case 10: {
          stats.subscribes++
          if (!options.suback) return
          const id = body.readUInt16BE(0)
          let at = 2
          if (version === 5) {
            const props = varint(body, at) as [number, number]
            at += props[1] + props[0]
          }
          let filters = 0
          while (at < body.length) {
            at += 2 + body.readUInt16BE(at) + (type === 8 ? 1 : 0)
            filters++
          }
          // Granted QoS 1 per filter (SUBACK), success per filter (MQTT 5 UNSUBACK).
          const codes = type === 8 ? Array<number>(filters).fill(1) : version === 5 ? Array<number>(filters).fill(0) : []
          const head = version === 5 ? [id >> 8, id & 0xff, 0] : [id >> 8, id & 0xff]
          socket.write(Buffer.from([type === 8 ? 0x90 : 0xb0, head.length + codes.length, ...head, ...codes]))
          return
        }
        case 12:
          stats.pings++
          if (options.pingresp) socket.write(Buffer.from([0xd0, 0]))
          return
        case 14:
          stats.disconnects++
          socket.end()
          return
        default:
        // PUBREL, PUBREC, AUTH and the rest: read and ignored.
      }
    }
    socket.on('data', (chunk: Buffer) => {
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk])
      for (;;) {
        if (pending.length < 2) return
        const length = varint(pending, 1)
        if (length === undefined) return
        const start = 1 + length[1]
        if (pending.length < start + length[0]) return
        const type = pending[0] >> 4
        const flags = pending[0] & 0x0f
        const body = pending.subarray(start, start + length[0])
        pending = pending.subarray(start + length[0])
        packet(type, flags, body)
      }
    })
  }

  const server: Server = createServer(serve)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  return {
    url: `mqtt://127.0.0.1:${port}`,
    port,
    stats,
    set(next) {
      options = { ...options, ...next }
    },
    dropAll(reasonCode) {
      for (const s of sockets) {
        // DISCONNECT, remaining length 1: the reason code alone (no properties).
        if (reasonCode !== undefined && versions.get(s) === 5) s.end(Buffer.from([0xe0, 1, reasonCode]))
        else s.destroy()
      }
    },
    close() {
      for (const s of sockets) s.destroy()
      return new Promise((resolve) => server.close(() => resolve()))
    },
  }
}
