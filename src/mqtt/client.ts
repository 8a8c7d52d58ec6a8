/**
 * The mqtt.js 5 client as beaconkit uses it: the part of it the publisher and the fleet call, the
 * members it reads defensively, loading mqtt.js on first use, and ending a client within a bound.
 */

import { MqttError } from '../errors.js'

/** The part of an mqtt.js 5 `MqttClient` the publisher uses; a connected client can be passed in. */
export interface MqttClientLike {
  readonly connected: boolean
  publish(
    topic: string,
    message: string | Buffer,
    opts: { qos: 0 | 1; retain: boolean },
    callback?: (error?: Error) => void,
  ): unknown
  end(force?: boolean, opts?: object, callback?: () => void): unknown
  on(event: 'connect' | 'close' | 'reconnect' | 'offline', listener: () => void): unknown
  on(event: 'error', listener: (error: Error) => void): unknown
  removeListener(event: string, listener: (...args: never[]) => void): unknown
}

/**
 * What mqtt.js 5 keeps of a QoS 1 publish until its PUBACK, read defensively: these are
 * mqtt.js's own members (public `removeOutgoingMessage`, the `outgoing` table it keys by packet
 * id with the caller's callback as `cb`, the socket as `stream`); a client passed in that lacks
 * them is simply not cleaned.
 */
export interface OutgoingStore {
  outgoing?: Record<string, { cb?: unknown } | undefined>
  /** mqtt.js 5's public id of the last publish it numbered. */
  getLastMessageId?(): number | undefined
  options?: { clientId?: unknown }
  removeOutgoingMessage?(messageId: number): unknown
  stream?: { destroy(): void; destroyed?: boolean }
}

/** How long `MqttLink.close` waits for a clean DISCONNECT before it drops the socket. */
export const DEFAULT_LINK_CLOSE_MS = 2000

/**
 * Ends an mqtt.js client within `graceMs`: a clean DISCONNECT when connected, and the socket
 * dropped if that does not finish in time (mqtt.js's clean end waits for every unacknowledged
 * publish and then for the broker to close its side: a silent or frozen broker would hold it for
 * ever). Withdraw unacknowledged publishes first ({@link withdrawPublish}) so the DISCONNECT
 * goes out at once.
 */
export function endClient(client: MqttClientLike, graceMs = DEFAULT_LINK_CLOSE_MS): Promise<void> {
  return new Promise((resolve) => {
    let done = false
    const finish = (): void => {
      if (done) return
      done = true
      clearTimeout(timer)
      resolve()
    }
    // Not unref'd: this timer keeps the process alive until the close is over, so it never runs
    // out of work with the close still pending (Node's exit 13).
    const timer = setTimeout(() => {
      // A second end() is a no-op once mqtt.js is disconnecting: drop the socket itself.
      const stream = (client as MqttClientLike & OutgoingStore).stream
      if (stream !== undefined && stream.destroyed !== true) stream.destroy()
      else client.end(true)
      finish()
    }, graceMs)
    // Still connecting: mqtt.js's graceful end waits for a connection it no longer wants and
    // leaves its socket open.
    client.end(!client.connected, {}, finish)
  })
}

/** The mqtt.js module: what `loadMqtt` resolves with. */
export interface MqttModule {
  connect(url: string, options: object): MqttClientLike & { options: { reconnectPeriod?: number } }
}

/** Kept in a variable so bundlers leave the import alone (a real `import()` in the CJS build too). */
const MQTT_MODULE = 'mqtt'

/**
 * mqtt.js, imported on first use only: importing beaconkit must not load it. Shared with the site
 * simulator's gateways, which own their clients to be killable.
 */
export async function loadMqtt(): Promise<MqttModule> {
  try {
    const mod = (await import(MQTT_MODULE)) as MqttModule & { default?: MqttModule }
    return typeof mod.connect === 'function' ? mod : (mod.default as MqttModule)
  } catch (error) {
    throw new MqttError(
      'not_installed',
      'the mqtt package (mqtt.js 5) is not installed: run `npm install mqtt@5` next to beaconkit',
      { cause: error },
    )
  }
}
