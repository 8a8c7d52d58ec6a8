/**
 * Ctrl-C and `systemctl stop`: the first SIGINT/SIGTERM asks the running command to stop
 * cleanly (scanner stopped, uploads flushed, terminal restored, exit 0); a second one, for
 * when that cleanup hangs, restores the terminal and leaves at once.
 */

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
