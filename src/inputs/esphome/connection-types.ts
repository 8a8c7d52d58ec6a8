/**
 * What one ESPHome connection takes and tells (connection.ts): its options and bounds, its
 * handlers, its counters.
 */
import type { Advertisement } from '../../advertisement.js'
import type { Clock } from '../../clock.js'
import type { EspHomeError } from './errors.js'
import type { DeviceInfo } from './messages.js'

/** What one connection needs. */
export interface ConnectionOptions {
  host: string
  port: number
  /** The 32-byte `api: encryption: key:`; absent for a plaintext device. */
  key?: Uint8Array
  clock: Clock
  /** HelloRequest `client_info`. */
  clientInfo?: string
  /** From TCP connect to the subscription; the device gets this long (aioesphomeapi allows 30 s for hello). */
  setupTimeoutMs?: number
  /** A ping when nothing arrived for this long. */
  pingIntervalMs?: number
  /** Closed as `silent` when nothing arrived for this long (the fleet must see a loss within 60 s). */
  silenceMs?: number
  /** Messages handled per second; beyond, messages are dropped and counted. */
  maxMessagesPerSecond?: number
  maxFrame?: number
}

/** What a connection reports. */
export interface ConnectionHandlers {
  ready(info: DeviceInfo): void
  advertisement(adv: Advertisement): void
  /** Called once, with the reason the connection ended. */
  close(error: EspHomeError): void
}

/** Counters of one connection. */
export interface ConnectionStats {
  messages: number
  advertisements: number
  /** Messages and advertisements dropped: over the rate, past a batch's bound, or not usable. */
  dropped: number
}
