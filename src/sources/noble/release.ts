/**
 * Letting go of an adapter when its last source stops, so the process can end.
 *
 * Order matters: the scan is disabled first and its Command Complete awaited (bounded), then the
 * socket is parked. Parking first would leave the completion unread in the kernel's socket
 * buffer, and noble would take it, on the next start, for the completion of that start's
 * commands.
 */

import { nobleControl } from './control.js'
import type { NobleLike } from './types.js'

/** Longest wait for the controller to confirm the scan disable before parking anyway. */
const RELEASE_WAIT_MS = 1000

/**
 * Stops scanning on `noble` and parks its HCI layer once the controller confirmed (or after
 * {@link RELEASE_WAIT_MS}), unless `stillUnused()` has turned false meanwhile (a source started again).
 */
export async function releaseNoble(noble: NobleLike, stillUnused: () => boolean): Promise<void> {
  const poweredOn = noble.state === 'poweredOn'
  const stopped = poweredOn ? scanStopped(noble) : Promise.resolve()
  try {
    noble.stopScanning()
  } catch {
    // An adapter that is down is not scanning either.
  }
  await stopped
  if (stillUnused()) nobleControl(noble)?.park()
}

function scanStopped(noble: NobleLike): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      clearTimeout(timer)
      noble.removeListener('scanStop', done)
      resolve()
    }
    // A real-time bound on an I/O wait, not scanning logic: it must not depend on the source's
    // (possibly virtual) clock, and must not itself keep the process alive.
    const timer = setTimeout(done, RELEASE_WAIT_MS)
    timer.unref()
    noble.on('scanStop', done)
  })
}
