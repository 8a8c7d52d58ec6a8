/** A scanner event as one object (for `events()` and JSON lines) from the emitter's arguments. */
import type { Beacon } from '../reading.js'
import type { BeaconChanges } from '../range/merge.js'
import type { AdapterState } from '../sources/source.js'
import type { ScannerEvent, ScannerWarning } from './event-stream.js'
import type { ScannerEvents } from './scanner-types.js'

/** The object form of `event` emitted with `args` at clock time `time`. */
export function eventObject(event: keyof ScannerEvents, args: unknown[], time: number): ScannerEvent {
  switch (event) {
    case 'found':
    case 'gone':
      return { event, time, beacon: args[0] as Beacon }
    case 'changed':
      return { event, time, beacon: args[0] as Beacon, changes: args[1] as BeaconChanges }
    case 'updated':
      return { event, time, beacons: args[0] as Beacon[] }
    case 'state':
      return { event, time, state: args[0] as AdapterState }
    case 'warning':
      return { event, time, warning: args[0] as ScannerWarning }
    case 'error': {
      const err = args[0] as Error & { code?: unknown }
      return {
        event,
        time,
        error: { name: err.name, message: err.message, ...(typeof err.code === 'string' ? { code: err.code } : {}) },
      }
    }
  }
}
