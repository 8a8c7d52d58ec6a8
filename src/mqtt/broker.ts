/**
 * The embedded broker behind `beaconkit broker`: aedes on loopback, for a one-machine setup or
 * a demo without installing Mosquitto. aedes speaks MQTT 3.1.1 only (the publisher falls back),
 * keeps retained messages in memory, and is loaded only when a broker is started.
 */

import { createServer } from 'node:net'
import type { Server, Socket } from 'node:net'
import { InvalidOptionError, MqttError, TemporaryFailureError } from '../errors.js'
import { listen, urlHost } from '../util/listen.js'

/** Options of {@link startBroker}. */
export interface BrokerOptions {
  /** TCP port; default 1883, 0 picks a free one. */
  port?: number
  /** Interface to listen on; default 127.0.0.1 (nothing outside this machine can reach it). */
  host?: string
}

/** A running embedded broker. */
export interface RunningBroker {
  /** `mqtt://host:port` for publishers and subscribers. */
  readonly url: string
  readonly host: string
  readonly port: number
  /** Connected clients right now. */
  readonly clients: number
  /** Disconnects every client and stops listening. */
  close(): Promise<void>
}

interface AedesLike {
  handle(socket: Socket): unknown
  close(callback?: () => void): void
  connectedClients: number
}

interface AedesModule {
  Aedes: { createBroker(): Promise<AedesLike> }
}

/** Kept in a variable so bundlers leave the import alone. */
const AEDES_MODULE = 'aedes'

async function loadAedes(): Promise<AedesModule> {
  try {
    return (await import(AEDES_MODULE)) as AedesModule
  } catch (error) {
    throw new MqttError(
      'not_installed',
      'the aedes package is not installed: run `npm install aedes` next to beaconkit, or use Mosquitto',
      { cause: error },
    )
  }
}

/** Starts an MQTT 3.1.1 broker (aedes) on `host:port`. */
export async function startBroker(options: BrokerOptions = {}): Promise<RunningBroker> {
  const port = options.port ?? 1883
  const host = options.host ?? '127.0.0.1'
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new InvalidOptionError('invalid_option', `port must be a TCP port between 0 and 65535, not ${String(port)}`, {
      option: 'port',
    })
  const { Aedes } = await loadAedes()
  const aedes = await Aedes.createBroker()
  const sockets = new Set<Socket>()
  const server: Server = createServer((socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
    aedes.handle(socket)
  })
  let actualPort: number
  try {
    actualPort = await listen(server, port, host)
  } catch (error) {
    aedes.close()
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE') {
      const advice = 'choose another port (0 picks a free one)'
      throw new TemporaryFailureError('port_in_use', `port ${port} on ${host} is in use (another broker?); ${advice}`, {
        cause: error,
      })
    }
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES') {
      throw new InvalidOptionError(
        'invalid_option',
        `cannot listen on ${host}:${port} (${code}); check the host and port`,
        { option: 'host', cause: error },
      )
    }
    throw new MqttError(
      'broker_failed',
      `the embedded broker could not listen on ${host}:${port} (${code ?? 'error'})`,
      { cause: error },
    )
  }
  const shownHost = urlHost(host)
  return {
    url: `mqtt://${shownHost}:${actualPort}`,
    host,
    port: actualPort,
    get clients() {
      return aedes.connectedClients
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        aedes.close(() => server.close(() => resolve()))
      }),
  }
}
