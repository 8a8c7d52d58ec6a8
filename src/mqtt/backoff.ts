/**
 * How long an MQTT client waits before its next connection attempt. Short enough that a broker
 * that comes back is used within seconds (a 30 s cap made a gateway wait 12 s after a restart),
 * jittered so that the gateways of a site dropped by one broker restart do not all reconnect in
 * the same millisecond.
 */

/** Reconnect delays of the publisher, the fleet tracker and the input bridge (ms). */
export interface ReconnectDelays {
  /** The first wait after a lost connection (or a failed first attempt). */
  initialDelayMs: number
  /** No wait is longer than this. */
  maxDelayMs: number
}

/** Defaults: 1 s doubling up to 5 s, each wait jittered (see {@link reconnectDelay}). */
export const DEFAULT_RECONNECT: Readonly<ReconnectDelays> = Object.freeze({ initialDelayMs: 1000, maxDelayMs: 5000 })

/**
 * The wait before connection attempt `attempt` (0 for the first attempt after a loss): the step
 * doubles from `initialDelayMs` up to `maxDelayMs`, and the wait is drawn between half and all
 * of the step ("equal jitter", as the HTTP transport's retries). Never above `maxDelayMs`, never
 * below half of the smaller of the two; `random` returns numbers in [0, 1).
 */
export function reconnectDelay(attempt: number, delays: ReconnectDelays, random: () => number = Math.random): number {
  const n = Math.max(0, Math.min(30, Math.floor(attempt)))
  const step = Math.min(delays.maxDelayMs, delays.initialDelayMs * 2 ** n)
  const r = Math.min(1, Math.max(0, random()))
  return Math.round(step / 2 + (step / 2) * r)
}
