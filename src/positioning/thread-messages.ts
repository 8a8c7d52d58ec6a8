/**
 * What the positioner's worker thread and its owner say to each other (positioner-thread.ts,
 * positioner-worker.ts). Columns of typed arrays, not objects: tens of thousands of readings a
 * second cross the thread boundary, and a typed array's buffer moves without being copied.
 */
import type { PositionerOptions } from './positioner-options.js'
import type { RadioMapParts } from './radio-map.js'

/** The worker's start: the radio map and the positioner's settings (everything but the site and the map). */
export interface WorkerStart {
  map: RadioMapParts
  options: Omit<PositionerOptions, 'site' | 'radioMap'>
}

/**
 * Readings (row i: `slot[i]`, `anchor[i]` as the radio map's index, `time[i]`, `rssi[i]`) for
 * the first `n` rows, then beacon slots to forget. A slot is the owner's number for a beacon; a
 * forgotten slot is not used again before the owner has seen the worker's `Forgotten` for it, so
 * its old readings and its new ones never meet.
 */
export interface ObserveMessage {
  type: 'observe'
  n: number
  slot: Int32Array
  anchor: Int32Array
  time: Float64Array
  rssi: Float64Array
  forget: Int32Array
}

/** Estimate these slots at `time`, in this order, for at most `budgetMs` of the worker's time. */
export interface EstimateMessage {
  type: 'estimate'
  id: number
  time: number
  slots: Int32Array
  budgetMs: number
}

/**
 * How much memory the worker holds: its heap and its typed arrays, after a collection if the
 * process allows one (`--expose-gc`).
 */
export interface MemoryMessage {
  type: 'memory'
  id: number
}

/**
 * The answer to `EstimateMessage` `id`: the first `done` slots were estimated; `fix` holds x,
 * y and accuracy per slot (NaN: nothing to say yet). `applied` counts every reading taken so far.
 */
export interface FixesMessage {
  type: 'fixes'
  id: number
  done: number
  fix: Float64Array
  applied: number
  /** Bytes of the worker's heap and typed arrays when it answered. */
  heapBytes: number
}

/**
 * The answer to an `ObserveMessage` that forgot slots: the worker has let go of them (and
 * answered every request sent before), so the owner may give them to new beacons.
 */
export interface ForgottenMessage {
  type: 'forgotten'
  slots: Int32Array
  applied: number
}

/** The answer to `MemoryMessage` `id`. */
export interface MemoryAnswer {
  type: 'memory'
  id: number
  heapBytes: number
}

export type ToWorker = ObserveMessage | EstimateMessage | MemoryMessage
export type FromWorker = FixesMessage | ForgottenMessage | MemoryAnswer
