/**
 * One ESPHome Bluetooth proxy as a fleet input: a connection kept up for as long as the proxy
 * runs, retried with the MQTT clients' backoff and jitter (src/mqtt/backoff.ts) after any
 * failure, so one bad device (wrong key, garbage, silence) is closed and retried later while the
 * others carry on. Liveness is the connection: `connected` when the subscription is made,
 * `disconnected` when it is lost, once each per change.
 */
import { EventEmitter } from 'eventemitter3'
import type { Advertisement } from '../../advertisement.js'
import { RealClock } from '../../clock.js'
import type { CancelTimer, Clock } from '../../clock.js'
import { DEFAULT_RECONNECT, reconnectDelay } from '../../mqtt/backoff.js'
import type { ReconnectDelays } from '../../mqtt/backoff.js'
import { EspHomeConnection } from './connection.js'
import type { ConnectionOptions, ConnectionStats } from './connection-types.js'
import type { EspHomeError } from './errors.js'
import type { DeviceInfo } from './messages.js'

/** The default port of the native API (`api: port:`). */
export const ESPHOME_PORT = 6053

/** Longest wait between attempts: a proxy back from a reboot is used within half a minute. */
const PROXY_RECONNECT: ReconnectDelays = { initialDelayMs: DEFAULT_RECONNECT.initialDelayMs, maxDelayMs: 30_000 }

/** Options of one proxy (see {@link ConnectionOptions} for the connection's own bounds). */
export interface EspHomeProxyOptions extends Omit<ConnectionOptions, 'clock'> {
  clock?: Clock
  reconnect?: ReconnectDelays
  random?: () => number
  /** Connected this long without an advertisement: the `quiet` event (default 60 s). */
  quietMs?: number
}

/** What a proxy tells. */
export interface EspHomeProxyEvents {
  /** Subscribed: the proxy is online as gateway `info.name`. */
  connected: (info: DeviceInfo) => void
  /** An advertisement the proxy heard; `gateway` is its DeviceInfo name. */
  advertisement: (adv: Advertisement, gateway: string) => void
  /** The connection went down (after `connected`): the gateway is offline. */
  disconnected: (error: EspHomeError) => void
  /**
   * Connected for `quietMs` without one advertisement: most likely another client (Home
   * Assistant) holds the proxy's only advertisement subscription (bluetooth_proxy.cpp). Once per
   * connection; the subscription is asked again every `quietMs` while nothing arrives.
   */
  quiet: (info: DeviceInfo) => void
  /** An attempt failed or a connection ended; said once per change of error code, not per retry. */
  error: (error: EspHomeError) => void
}

/** Counters of a proxy over all its connections. */
export interface EspHomeProxyStats extends ConnectionStats {
  connects: number
  failures: number
}

/** One proxy; see the file comment. */
export class EspHomeProxy extends EventEmitter<EspHomeProxyEvents> {
  /** Totals of the connections that ended. */
  private readonly totals: EspHomeProxyStats = { messages: 0, advertisements: 0, dropped: 0, connects: 0, failures: 0 }
  private connection: EspHomeConnection | undefined
  private info: DeviceInfo | undefined
  private attempt = 0
  private timer: CancelTimer | undefined
  private quietTimer: CancelTimer | undefined
  private stopped = true
  private lastErrorCode: string | undefined
  private readonly clock: Clock

  /** The key lives in a #private field: util.inspect and JSON never show it. */
  readonly #key: Uint8Array | undefined
  private readonly options: Omit<EspHomeProxyOptions, 'key'>

  constructor(options: EspHomeProxyOptions) {
    super()
    const { key, ...rest } = options
    this.#key = key
    this.options = rest
    this.clock = options.clock ?? new RealClock()
  }

  /** Counters over every connection, the current one included. */
  get stats(): EspHomeProxyStats {
    const now = this.connection?.stats
    const t = this.totals
    if (now === undefined) return { ...t }
    return {
      ...t,
      messages: t.messages + now.messages,
      advertisements: t.advertisements + now.advertisements,
      dropped: t.dropped + now.dropped,
    }
  }

  /** `host:port`. */
  get target(): string {
    return `${this.options.host}:${this.options.port}`
  }

  /** The proxy's DeviceInfo while connected. */
  get device(): DeviceInfo | undefined {
    return this.info
  }

  /** Starts connecting (and reconnecting until {@link stop}). */
  start(): void {
    if (!this.stopped) return
    this.stopped = false
    this.connect()
  }

  /** Closes the connection and stops retrying. */
  stop(): void {
    this.stopped = true
    this.timer?.()
    this.timer = undefined
    this.quietTimer?.()
    this.quietTimer = undefined
    const conn = this.connection
    this.connection = undefined
    if (conn !== undefined) {
      conn.close()
      this.add(conn)
    }
    this.info = undefined
  }

  private add(conn: EspHomeConnection): void {
    for (const k of ['messages', 'advertisements', 'dropped'] as const) this.totals[k] += conn.stats[k]
  }

  private connect(): void {
    const conn = new EspHomeConnection(
      { ...this.options, key: this.#key, clock: this.clock },
      {
        ready: (info) => {
          this.info = info
          this.attempt = 0
          this.lastErrorCode = undefined
          this.totals.connects++
          this.emit('connected', info)
          this.watchQuiet(conn, info)
        },
        advertisement: (adv) => this.emit('advertisement', adv, (this.info as DeviceInfo).name),
        close: (error) => {
          this.add(conn)
          this.closed(error)
        },
      },
    )
    this.connection = conn
    conn.start()
  }

  /**
   * Every `quietMs` without an advertisement: `quiet` (once per connection) and the subscription
   * asked again, so the proxy is taken over as soon as the client holding it lets go.
   */
  private watchQuiet(conn: EspHomeConnection, info: DeviceInfo): void {
    let seen = conn.stats.advertisements
    let told = false
    const check = (): void => {
      if (this.connection !== conn) return
      if (conn.stats.advertisements === seen) {
        if (!told) this.emit('quiet', info)
        told = true
        conn.subscribe()
      }
      seen = conn.stats.advertisements
      this.quietTimer = this.clock.setTimeout(check, this.options.quietMs ?? 60_000)
    }
    this.quietTimer?.()
    this.quietTimer = this.clock.setTimeout(check, this.options.quietMs ?? 60_000)
  }

  private closed(error: EspHomeError): void {
    this.quietTimer?.()
    this.quietTimer = undefined
    this.connection = undefined
    this.totals.failures++
    const wasUp = this.info !== undefined
    this.info = undefined
    if (wasUp) this.emit('disconnected', error)
    if (error.code !== this.lastErrorCode) {
      this.lastErrorCode = error.code
      this.emit('error', error)
    }
    if (this.stopped) return
    const wait = reconnectDelay(this.attempt++, this.options.reconnect ?? PROXY_RECONNECT, this.options.random)
    this.timer = this.clock.setTimeout(() => {
      this.timer = undefined
      if (!this.stopped) this.connect()
    }, wait)
  }
}
