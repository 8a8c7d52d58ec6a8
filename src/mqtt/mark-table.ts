/**
 * What the MQTT feed remembers of each beacon it announced, column by column. The feed visits
 * every beacon once a second in the scanner's order (nearest first, a new order every tick);
 * with one object per beacon, plus an encoded id per beacon, 10,000 of them scattered in memory
 * made each visit a few cache misses, which profiled as the larger half of the tick. Here the
 * numbers a visit reads sit in typed arrays and each beacon's `{"id":…,"rssi":` in one shared
 * byte array, indexed by the beacon's mark number.
 */

import type { Beacon } from '../reading.js'
import type { BatchWriter } from './batch-writer.js'

/** The values whose change makes a state "changed" (RSSI-derived fields travel in the batch). */
export const CHANGE_FIELDS = ['temperature', 'light', 'accelerometerCount', 'movingState', 'batteryLevel'] as const
export type ChangeField = (typeof CHANGE_FIELDS)[number]
/** A beacon's values of {@link CHANGE_FIELDS} at the feed's previous look. */
export type Values = { [K in ChangeField]: Beacon[K] }

/** Bytes of a mark's batch prefix kept in the shared array; a longer one (a long id) is kept apart. */
const PREFIX_STRIDE = 32
const FIRST_CAPACITY = 64

/** A copy of `a` in a new array of `size` elements. */
function resized<T extends Float64Array | Uint8Array | Uint32Array>(a: T, size: number, make: (n: number) => T): T {
  const b = make(size)
  b.set(a.length > size ? a.subarray(0, size) : a)
  return b
}

/** The feed's marks: numbered from 0, numbers reused after {@link MarkTable.remove}. */
export class MarkTable {
  /** The beacon id of each mark; undefined for a free number. */
  readonly ids: (string | undefined)[] = []
  /** Clock time of the latest state published. */
  at = new Float64Array(FIRST_CAPACITY)
  /** 1 when a non-RSSI value changed since that state. */
  dirty = new Uint8Array(FIRST_CAPACITY)
  /** The scanner's version of the beacon at the previous look (versionOf()); NaN when unknown. */
  version = new Float64Array(FIRST_CAPACITY)
  /** Packets counted by the feed since the previous batch (sources whose snapshots do not count). */
  count = new Float64Array(FIRST_CAPACITY)
  /** The scanner's packet total at the previous batch (packetsHeard()); 0 before the first. */
  total = new Float64Array(FIRST_CAPACITY)
  /** RSSI batch partition (0 unless the batch is partitioned). */
  partition = new Uint32Array(FIRST_CAPACITY)
  /** The address the beacon's packets are counted under (its latest). */
  readonly addresses: string[] = []
  /** Values at the previous look: read only when the scanner's version changed. */
  readonly values: Values[] = []
  /** `{"id":<id as JSON>,"rssi":` in UTF-8, PREFIX_STRIDE bytes a mark. */
  private prefixes = new Uint8Array(FIRST_CAPACITY * PREFIX_STRIDE)
  /** Its length; 0 when it did not fit and is in {@link MarkTable.long}. */
  private prefixLength = new Uint8Array(FIRST_CAPACITY)
  private readonly long = new Map<number, Buffer>()
  private readonly byId = new Map<string, number>()
  private readonly free: number[] = []

  /** Marks in use. */
  get size(): number {
    return this.byId.size
  }

  /** The mark of beacon `id`, or -1. */
  find(id: string): number {
    return this.byId.get(id) ?? -1
  }

  /** A new mark for `beacon`, published at `now`. */
  add(beacon: Beacon, values: Values, version: number | undefined, partition: number, now: number): number {
    const m = this.free.pop() ?? this.ids.length
    if (m === this.ids.length) {
      this.ids.push(undefined)
      this.addresses.push('')
      this.values.push(values)
      if (m >= this.at.length) this.grow(this.at.length * 2)
    }
    this.ids[m] = beacon.id
    this.byId.set(beacon.id, m)
    this.at[m] = now
    this.dirty[m] = 0
    this.version[m] = version ?? Number.NaN
    this.count[m] = 0
    this.total[m] = 0
    this.partition[m] = partition
    this.addresses[m] = ''
    this.values[m] = values
    const prefix = Buffer.from(`{"id":${JSON.stringify(beacon.id)},"rssi":`)
    if (prefix.length <= PREFIX_STRIDE) {
      this.prefixes.set(prefix, m * PREFIX_STRIDE)
      this.prefixLength[m] = prefix.length
    } else {
      this.prefixLength[m] = 0
      this.long.set(m, prefix)
    }
    return m
  }

  /** Frees mark `m` (its beacon is gone); its number may be handed out again. */
  remove(m: number): void {
    const id = this.ids[m]
    if (id === undefined) return
    this.byId.delete(id)
    this.long.delete(m)
    this.ids[m] = undefined
    this.addresses[m] = ''
    this.free.push(m)
    // A crowd that came and went leaves nothing behind.
    if (this.byId.size === 0) this.clear()
  }

  private clear(): void {
    this.ids.length = 0
    this.addresses.length = 0
    this.values.length = 0
    this.free.length = 0
    if (this.at.length > FIRST_CAPACITY) this.grow(FIRST_CAPACITY)
  }

  /** Writes mark `m`'s batch prefix. */
  writePrefix(m: number, out: BatchWriter): void {
    const n = this.prefixLength[m]
    if (n > 0) out.range(this.prefixes, m * PREFIX_STRIDE, n)
    else out.bytes(this.long.get(m) as Buffer)
  }

  /** Resizes every column to `capacity` marks (never below those in use). */
  private grow(capacity: number): void {
    this.at = resized(this.at, capacity, (n) => new Float64Array(n))
    this.dirty = resized(this.dirty, capacity, (n) => new Uint8Array(n))
    this.version = resized(this.version, capacity, (n) => new Float64Array(n))
    this.count = resized(this.count, capacity, (n) => new Float64Array(n))
    this.total = resized(this.total, capacity, (n) => new Float64Array(n))
    this.partition = resized(this.partition, capacity, (n) => new Uint32Array(n))
    this.prefixLength = resized(this.prefixLength, capacity, (n) => new Uint8Array(n))
    this.prefixes = resized(this.prefixes, capacity * PREFIX_STRIDE, (n) => new Uint8Array(n))
  }
}
