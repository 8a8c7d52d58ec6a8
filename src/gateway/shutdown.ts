/**
 * Ctrl-C and `systemctl stop`: the first SIGINT/SIGTERM asks the running command to stop
 * cleanly (scanner stopped, uploads flushed, terminal restored, exit 0); a second one, for
 * when that cleanup hangs, restores the terminal and leaves at once. Every stop is bounded
 * (docs/mqtt.md "Stopping"): the broker gets {@link FLUSH_DEADLINE_MS} to acknowledge what is
 * queued (less when it acknowledges nothing for the publisher's `ackTimeoutMs`), and a stop
 * still running after {@link STOP_DEADLINE_MS} is forced with exit 1.
 */

import type { MqttCloseResult } from '../mqtt/inflight.js'

/** The longest a stopping command waits for the broker to acknowledge what is queued. */
export const FLUSH_DEADLINE_MS = 30_000

/**
 * A stop still going this long after it began is forced (exit 1): the last resort, never the
 * plan. Above the sum of the bounded steps: an upload flush (`closeTimeoutMs`, twice 10 s at
 * most), the broker's {@link FLUSH_DEADLINE_MS} and 2 s for its DISCONNECT.
 */
export const STOP_DEADLINE_MS = 60_000

/**
 * Starts the last-resort clock of a stop: after `ms` it writes one line to stderr, runs
 * `onForce` (restore the terminal) and exits 1. Returns a function that disarms it.
 */
export function forceAfter(onForce: () => void = () => {}, ms = STOP_DEADLINE_MS): () => void {
  const timer = setTimeout(() => {
    onForce()
    process.stderr.write(`beaconkit: stopping took longer than ${Math.round(ms / 1000)} s; stopped by force\n`)
    process.exit(1)
  }, ms)
  return () => clearTimeout(timer)
}

/**
 * The stderr line for a close that could not deliver everything, e.g. `stopped; 12 messages not
 * acknowledged by the broker (3 events kept in the queue directory for the next run)`;
 * undefined when everything was delivered.
 */
export function undeliveredLine(result: MqttCloseResult, broker: string): string | undefined {
  if (result.delivered) return undefined
  const kept = result.kept > 0 ? ` (${result.kept} events kept in the queue directory for the next run)` : ''
  const n = result.lost + result.kept
  return (
    `beaconkit: stopped; ${n} ${n === 1 ? 'message' : 'messages'} not acknowledged by the ` +
    `broker ${broker}${kept}\n`
  )
}

/** Signals that stop a command. */
const SIGNALS = ['SIGINT', 'SIGTERM'] as const

/**
 * Calls `onStop` on the first SIGINT or SIGTERM; on the second, runs `onForce` and exits
 * with 128 + the signal number (the shell's convention). Returns a function that removes
 * the handlers.
 */
export function handleSignals(onStop: (signal: NodeJS.Signals) => void, onForce: () => void = () => {}): () => void {
  let stopping = false
  const handler = (signal: NodeJS.Signals): void => {
    if (!stopping) {
      stopping = true
      onStop(signal)
      return
    }
    onForce()
    process.exit(signal === 'SIGINT' ? 130 : 143)
  }
  const stopper = (): void => {
    if (stopping) return
    stopping = true
    onStop('SIGTERM')
  }
  for (const s of SIGNALS) process.on(s, handler)
  stoppers.add(stopper)
  return () => {
    for (const s of SIGNALS) process.off(s, handler)
    stoppers.delete(stopper)
  }
}

const stoppers = new Set<() => void>()

/**
 * Asks the running command to stop as if it got SIGTERM (e.g. its reader went away), so it
 * still flushes its uploads. Returns false when no command is listening.
 */
export function requestStop(): boolean {
  if (stoppers.size === 0) return false
  for (const stop of [...stoppers]) stop()
  return true
}
