/**
 * The positioning thread's beacon slots, on the owner's side (positioner-thread.ts). A slot is
 * the number the worker knows a beacon by. Both sides stay bounded by `maxBeacons`: at most that
 * many beacons are held, the one heard least recently let go first (as the positioner lets go of
 * its tracks), and at most that many slots exist. A forgotten beacon's slot is used again only
 * once the worker has confirmed it let go of it, so the old beacon's readings and the new one's
 * never meet, and a fix already on its way never lands on the new beacon. A beacon heard while
 * every slot is held waits for such a confirmation, its readings kept here in order meanwhile.
 */

/** A beacon held: its slot, or -1 while it waits for one (its readings then in `held`), or -2 once let go. */
interface Entry {
  slot: number
  /** Anchor index, time and RSSI of each reading held, one after the other. */
  held: number[]
}

/** A waiting beacon that got a slot, with its readings held until then (anchor, time, RSSI each). */
export interface ReleasedBeacon {
  slot: number
  rows: readonly number[]
}

const WAITING = -1
const GONE = -2

/** Beacons, their slots and their latest fixes, bounded by `maxBeacons` (see the module's comment). */
export class SlotTable {
  readonly #max: number
  readonly #retire: (slot: number) => void
  /** In order of last reading: the first is the one let go to make room. */
  readonly #entries = new Map<string, Entry>()
  /** Beacons waiting for a slot, first come first served; some may have been let go since. */
  #queue: Entry[] = []
  #waiting = 0
  #held = 0
  /** Slots the worker confirmed it let go of. */
  readonly #free: number[] = []
  #next = 0
  /** x, y, accuracy per slot; NaN x: no fix. */
  #fixes: Float64Array

  /** `retire` hears each slot let go of: the worker must be told, and confirm (`confirm`). */
  constructor(maxBeacons: number, retire: (slot: number) => void) {
    this.#max = maxBeacons
    this.#retire = retire
    this.#fixes = new Float64Array(3 * Math.min(maxBeacons, 1024)).fill(Number.NaN)
  }

  /** Beacons held (at most `maxBeacons`). */
  get size(): number {
    return this.#entries.size
  }

  /** Slots in use or waiting for the worker's confirmation (at most `maxBeacons`). */
  get slots(): number {
    return this.#next - this.#free.length
  }

  /** Beacons waiting for a slot. */
  get waiting(): number {
    return this.#waiting
  }

  /** Readings held for waiting beacons (they count against the hand-over bound). */
  get heldRows(): number {
    return this.#held
  }

  /**
   * A reading of `beacon`, which becomes the most recently heard: its slot, or -1 when the
   * beacon waits for one (the reading is then kept here until `confirm` gives it one).
   */
  reading(beacon: string, anchor: number, time: number, rssi: number): number {
    let e = this.#entries.get(beacon)
    if (e !== undefined) this.#entries.delete(beacon)
    else {
      if (this.#entries.size >= this.#max) this.forget(this.#entries.keys().next().value as string)
      e = { slot: this.#free.pop() ?? (this.#next < this.#max ? this.#next++ : WAITING), held: [] }
      if (e.slot === WAITING) {
        this.#queue.push(e)
        this.#waiting++
      } else this.#room(e.slot)
    }
    // Re-inserted, so the map stays in order of last reading (as the positioner's tracks).
    this.#entries.set(beacon, e)
    if (e.slot === WAITING) {
      e.held.push(anchor, time, rssi)
      this.#held++
    }
    return e.slot
  }

  /** Lets go of a beacon: its slot is retired (see `retire`), or its held readings dropped. */
  forget(beacon: string): void {
    const e = this.#entries.get(beacon)
    if (e === undefined) return
    this.#entries.delete(beacon)
    const slot = e.slot
    e.slot = GONE
    if (slot === WAITING) {
      this.#waiting--
      this.#held -= e.held.length / 3
      // Let-go entries leave the queue when they reach its head; a burst of them must not pile up.
      if (this.#queue.length > 2 * this.#waiting + 16) this.#queue = this.#queue.filter((q) => q.slot === WAITING)
    } else {
      this.#fixes[3 * slot] = Number.NaN
      this.#retire(slot)
    }
    e.held = []
  }

  /**
   * The worker let go of these slots (and answered every request sent before): they are free,
   * and go to the beacons waiting longest, which are returned with their held readings.
   */
  confirm(slots: Int32Array): ReleasedBeacon[] {
    for (const slot of slots) {
      // Without the fix a request may have written to it since it was forgotten.
      this.#fixes[3 * slot] = Number.NaN
      this.#free.push(slot)
    }
    const released: ReleasedBeacon[] = []
    let i = 0
    for (; i < this.#queue.length && this.#free.length > 0; i++) {
      const e = this.#queue[i]
      if (e.slot !== WAITING) continue
      e.slot = this.#free.pop() as number
      this.#room(e.slot)
      released.push({ slot: e.slot, rows: e.held })
      this.#waiting--
      this.#held -= e.held.length / 3
      e.held = []
    }
    this.#queue = this.#queue.slice(i)
    return released
  }

  /** The slot of a beacon that has one, else -1. */
  slotOf(beacon: string): number {
    const slot = this.#entries.get(beacon)?.slot
    return slot === undefined || slot < 0 ? -1 : slot
  }

  /** The latest fix of a slot, undefined when it has none. */
  fix(slot: number): { x: number; y: number; accuracy: number } | undefined {
    const f = this.#fixes
    return Number.isNaN(f[3 * slot]) ? undefined : { x: f[3 * slot], y: f[3 * slot + 1], accuracy: f[3 * slot + 2] }
  }

  /** Records a slot's new fix (NaN x: none). */
  setFix(slot: number, x: number, y: number, accuracy: number): void {
    this.#fixes[3 * slot] = x
    this.#fixes[3 * slot + 1] = y
    this.#fixes[3 * slot + 2] = accuracy
  }

  /** Grows the fixes to hold `slot` (never past `maxBeacons` slots). */
  #room(slot: number): void {
    if (3 * slot < this.#fixes.length) return
    const grown = new Float64Array(3 * Math.min(2 * (this.#fixes.length / 3), this.#max)).fill(Number.NaN)
    grown.set(this.#fixes)
    this.#fixes = grown
  }
}
