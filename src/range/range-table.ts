/**
 * The beacons in range: identity, merging, found/gone/changed/updated, all in clock time.
 *
 * Time design: beacons sit in a list ordered by lastSeen (a sighting moves a beacon to the
 * tail in O(1)), and one timer is armed for the head's expiry. Gone is therefore emitted
 * exactly at `lastSeen + goneTimeoutMs` — to the millisecond in virtual time — while an
 * advertisement costs no timer work at all. A second, periodic timer emits `updated`.
 */
import type { CancelTimer, Clock } from '../clock.js'
import type { Beacon, BeaconReading } from '../reading.js'
import { accuracy, proximity } from './distance.js'
import type { ProximityThresholds } from './distance.js'
import type { CompiledFilter } from './filter.js'
import { matchesFilter } from './filter.js'
import { changeValues, diffValues, emptyBeacon, mergeReading, snapshotOf } from './merge.js'
import type { BeaconChanges, IBeaconHint, MergeState } from './merge.js'
import type { RssiFilter } from './rssi-filter.js'
import { SecureGate } from './secure-gate.js'

/** Where the table's events go (the scanner). */
export interface RangeTableSink {
  found(beacon: Beacon): void
  gone(beacon: Beacon): void
  changed(beacon: Beacon, changes: BeaconChanges): void
  updated(beacons: Beacon[]): void
  /** Whether anyone listens to `changed`: the diff is skipped otherwise. */
  wantsChanged(): boolean
  /** Whether anyone listens to `updated`: the sorted snapshot is skipped otherwise. */
  wantsUpdated(): boolean
}

/** Validated range-table settings. */
export interface RangeTableOptions {
  clock: Clock
  goneTimeoutMs: number
  updateIntervalMs: number
  filter: CompiledFilter
  newRssiFilter: () => RssiFilter
  proximityThresholds?: ProximityThresholds
  /** Hysteresis: found only once the smoothed RSSI reaches `enterRssi`; gone below `leaveRssi`. */
  enterRssi?: number
  leaveRssi?: number
  hideUnverifiedSecure: boolean
  /**
   * A beacon first heard without a serial number is announced this long after its first
   * packet, unless a packet carrying its serial (the scan response) arrives first. Default 0.
   */
  identitySettleMs?: number
}

/** Counters of the range table. */
export interface RangeTableStats {
  /** Beacons tracked now (reported or not). */
  tracked: number
  /** Readings ignored for being weaker than `filter.minRssi`. */
  belowMinRssi: number
  /** Readings held or dropped by the secure-broadcast confirmation. */
  heldSecure: number
  droppedSecure: number
}

interface Entry extends MergeState {
  id: string
  b: Beacon
  filter: RssiFilter
  address: string
  /** Further addresses linked to this beacon (rare: address rotation, shared beaconIDs). */
  more: string[] | undefined
  reported: boolean
  matched: boolean
  confirmedSerial: string | undefined
  /** Left by hysteresis: the next 'found' starts a new visit. */
  left: boolean
  /** Waiting out identitySettleMs: in the settle queue. */
  settling: boolean
  /** The settle window has passed: no more waiting for a serial number. */
  settled: boolean
  /** Bumped whenever a merge changes a field. */
  version: number
  /** The last two readings whose merge changed nothing, at `noopVersion`. */
  noopA: Readonly<BeaconReading> | undefined
  noopB: Readonly<BeaconReading> | undefined
  noopVersion: number
  prev: Entry | undefined
  next: Entry | undefined
}

/** Accuracy is rounded to 0.1 mm, so ×1e4 is an integer; clamped so key × 2^20 + index stays exact. */
const MAX_KEY = 2 ** 32

/**
 * Sorts by accuracy, unknown (-1) last, ties in list order. Each beacon becomes one double,
 * `accuracy × 1e4 × 2^20 + index`, sorted natively: at 10,000 beacons several times faster
 * than a comparator over objects.
 */
function sortByAccuracy(list: Beacon[]): Beacon[] {
  const n = list.length
  if (n < 2 || n >= 2 ** 20) return n < 2 ? list : list.sort((a, b) => key(a) - key(b))
  const keys = new Float64Array(n)
  for (let i = 0; i < n; i++) keys[i] = key(list[i]) * 1048576 + i
  keys.sort()
  const out = new Array<Beacon>(n)
  for (let i = 0; i < n; i++) out[i] = list[keys[i] % 1048576]
  return out
}

function key(b: Beacon): number {
  const acc = b.accuracy ?? -1
  return acc < 0 ? MAX_KEY : Math.min(MAX_KEY - 1, Math.round(acc * 10_000))
}

/** Tracks beacons in clock time and reports found/gone/changed/updated to its sink. */
export class RangeTable {
  private readonly byId = new Map<string, Entry>()
  private readonly byAddress = new Map<string, Entry>()
  private readonly gate: SecureGate
  private head: Entry | undefined
  private tail: Entry | undefined
  private expiryDue: number | undefined
  private cancelExpiry: CancelTimer | undefined
  private cancelTick: CancelTimer | undefined
  /** Entries in their settle window, oldest first (all windows are equally long, so FIFO is due order). */
  private settleQueue: { e: Entry; due: number }[] = []
  private settleHead = 0
  private cancelSettle: CancelTimer | undefined
  private readonly accuracyRows: (Float64Array | undefined)[] = []
  private counters = { belowMinRssi: 0, heldSecure: 0, droppedSecure: 0 }

  constructor(
    private readonly opts: RangeTableOptions,
    private readonly sink: RangeTableSink,
  ) {
    this.gate = new SecureGate(opts.hideUnverifiedSecure)
  }

  /** Starts the periodic `updated` tick. */
  start(): void {
    this.cancelTick ??= this.opts.clock.setInterval(() => this.tick(), this.opts.updateIntervalMs)
  }

  /** Stops the timers and forgets every beacon, without `gone` events. */
  stop(): void {
    this.cancelTick?.()
    this.cancelTick = undefined
    this.cancelExpiry?.()
    this.cancelExpiry = undefined
    this.expiryDue = undefined
    this.cancelSettle?.()
    this.cancelSettle = undefined
    this.settleQueue = []
    this.settleHead = 0
    this.byId.clear()
    this.byAddress.clear()
    this.gate.clear()
    this.head = this.tail = undefined
  }

  /** Counters, as of now. */
  get stats(): RangeTableStats {
    return { tracked: this.byId.size, ...this.counters }
  }

  /** Number of beacons tracked (reported or not) plus addresses awaiting secure confirmation. */
  get size(): number {
    return this.byId.size + this.gate.size
  }

  /**
   * Takes one decoded reading at the clock's current time. `hint` is the advertisement's
   * manufacturer data (see IBeaconHint). `rssi` and `timestamp`
   * are the packet's, for readings shared by repeats of the same bytes (Decoder.decodeShared).
   */
  ingest(r: Readonly<BeaconReading>, hint?: IBeaconHint, rssi = r.rssi, timestamp = r.timestamp): void {
    const minRssi = this.opts.filter.minRssi
    if (minRssi !== undefined && rssi < minRssi) {
      this.counters.belowMinRssi++
      return
    }
    const now = this.opts.clock.now()
    const linked = this.byAddress.get(r.address)
    const verdict = this.gate.check(r, hint, linked?.confirmedSerial, now)
    if (verdict === 'hold') {
      this.counters.heldSecure++
      return
    }
    if (verdict === 'drop') {
      this.counters.droppedSecure++
      return
    }
    const entry = this.resolve(r, linked, verdict === 'address', now)
    if (verdict === 'confirmed') {
      for (const h of this.gate.takeHeld()) this.apply(entry, h.reading, h.hint, now, false)
      entry.confirmedSerial = r.serialNumber
    }
    this.apply(entry, r, hint, now, true, rssi, timestamp)
    this.evaluate(entry, now)
  }

  /** Snapshots of the reported beacons, nearest first (unknown distance last). */
  beacons(): Beacon[] {
    const list: Beacon[] = []
    for (let e = this.head; e !== undefined; e = e.next) if (e.reported) list.push(this.snapshot(e))
    return sortByAccuracy(list)
  }

  /** Whether any beacon is reported as in range. */
  anyInRange(): boolean {
    for (let e = this.head; e !== undefined; e = e.next) if (e.reported) return true
    return false
  }

  /** Clock time of the next scheduled gone check, if any beacon is tracked. */
  nextExpiry(): number | undefined {
    return this.head === undefined ? undefined : this.head.b.lastSeen + this.opts.goneTimeoutMs
  }

  private tick(): void {
    this.gate.sweep(this.opts.clock.now() - this.opts.goneTimeoutMs)
    if (this.sink.wantsUpdated()) this.sink.updated(this.beacons())
  }

  private resolve(r: Readonly<BeaconReading>, linked: Entry | undefined, byAddressOnly: boolean, now: number): Entry {
    const serial = r.serialNumber
    let e = linked
    if (e !== undefined) {
      if (serial === undefined || e.id === serial) return e
      if (e.b.serialNumber !== undefined && e.b.serialNumber !== serial) {
        // Another device now uses this address.
        this.unlinkAddress(r.address, e)
      } else {
        return this.promote(e, serial)
      }
    }
    const id = serial ?? (byAddressOnly ? r.address : (r.beaconID ?? r.address))
    e = this.byId.get(id)
    if (e === undefined) {
      e = this.create(id, r, now)
    } else if (e.address !== r.address) {
      ;(e.more ??= []).push(r.address)
    }
    this.byAddress.set(r.address, e)
    return e
  }

  /**
   * The address's frames revealed a serial number: the beacon takes the serial as identity
   * without a gone/found pair. If another entry already has that serial, the two merge.
   */
  private promote(e: Entry, serial: string): Entry {
    const other = this.byId.get(serial)
    if (other === undefined) {
      if (this.byId.get(e.id) === e) this.byId.delete(e.id)
      e.id = serial
      e.b.id = serial
      this.byId.set(serial, e)
      return e
    }
    for (const a of [e.address, ...(e.more ?? [])]) {
      if (this.byAddress.get(a) === e) {
        this.byAddress.set(a, other)
        if (a !== other.address && !(other.more?.includes(a) ?? false)) (other.more ??= []).push(a)
      }
    }
    if (this.byId.get(e.id) === e) this.byId.delete(e.id)
    this.unlinkList(e)
    // The alias was already announced: carry that over instead of announcing again.
    if (e.reported && !other.reported) {
      other.reported = true
      other.matched = true
    }
    return other
  }

  private create(id: string, r: Readonly<BeaconReading>, now: number): Entry {
    const e: Entry = {
      id,
      b: emptyBeacon(id, r, now),
      filter: this.opts.newRssiFilter(),
      address: r.address,
      more: undefined,
      reported: false,
      matched: false,
      confirmedSerial: undefined,
      left: false,
      settling: false,
      settled: false,
      version: 0,
      noopA: undefined,
      noopB: undefined,
      noopVersion: -1,
      prev: undefined,
      next: undefined,
      vendorMajorMinor: false,
      vendorPower: false,
      vendorSensors: false,
    }
    this.byId.set(id, e)
    return e
  }

  private apply(e: Entry, r: Readonly<BeaconReading>, hint: IBeaconHint, now: number, announce: boolean, rssi = r.rssi, timestamp = r.timestamp): void {
    const wantChanges = announce && e.reported && this.sink.wantsChanged()
    const before = wantChanges ? changeValues(e.b, Math.round(e.filter.value(e.b.lastSeen))) : undefined
    // A beacon repeats the same bytes, so the decoder hands out the same reading object again;
    // once merging one changed nothing, it cannot change anything until another one does.
    if (!(r === e.noopA || r === e.noopB) || e.noopVersion !== e.version) {
      if (mergeReading(e.b, r, e, hint)) {
        e.version++
        e.noopA = e.noopB = undefined
      } else if (e.noopA !== r) {
        e.noopB = e.noopA
        e.noopA = r
        e.noopVersion = e.version
      }
    }
    e.b.rssi = rssi
    e.b.timestamp = timestamp
    e.filter.add(rssi, now)
    e.b.lastSeen = now
    this.touch(e)
    if (before !== undefined) {
      const changes = diffValues(before, changeValues(e.b, Math.round(e.filter.value(now))))
      if (changes !== undefined) this.sink.changed(this.snapshot(e), changes)
    }
  }

  private evaluate(e: Entry, now: number): void {
    const { enterRssi, leaveRssi, filter } = this.opts
    if (!e.reported) {
      if (!e.matched) e.matched = !filter.identity || matchesFilter(e.b, filter)
      if (!e.matched) return
      if (enterRssi !== undefined && !(e.filter.value(now) >= enterRssi)) return
      if (e.b.serialNumber === undefined && !e.settled) {
        // Its scan response, or the frames that confirm a private broadcast, may be a moment away.
        if (!e.settling) this.startSettling(e, now)
        return
      }
      if (this.gate.awaiting(e.address)) return
      if (e.left) {
        e.b.firstSeen = now
        e.left = false
      }
      e.reported = true
      this.sink.found(this.snapshot(e))
    } else if (leaveRssi !== undefined && e.filter.value(now) < leaveRssi) {
      e.reported = false
      e.left = true
      this.sink.gone(this.copy(e, false))
    }
  }

  private startSettling(e: Entry, now: number): void {
    const settle = this.opts.identitySettleMs ?? 0
    if (settle <= 0) {
      e.settled = true
      this.evaluate(e, now)
      return
    }
    e.settling = true
    this.settleQueue.push({ e, due: now + settle })
    if (this.cancelSettle === undefined) this.armSettle()
  }

  private armSettle(): void {
    const head = this.settleQueue[this.settleHead]
    if (head === undefined) return
    this.cancelSettle = this.opts.clock.setTimeout(() => this.settleDue(), Math.max(0, head.due - this.opts.clock.now()))
  }

  private settleDue(): void {
    this.cancelSettle = undefined
    const now = this.opts.clock.now()
    const q = this.settleQueue
    while (this.settleHead < q.length && q[this.settleHead].due <= now) {
      const { e } = q[this.settleHead++]
      e.settling = false
      e.settled = true
      // Gone (or renamed into another entry) meanwhile: nothing to announce.
      if (this.byId.get(e.id) === e && !e.reported) this.evaluate(e, now)
    }
    if (this.settleHead === q.length) {
      this.settleQueue = []
      this.settleHead = 0
    } else if (this.settleHead > 1024) {
      this.settleQueue = q.slice(this.settleHead)
      this.settleHead = 0
    }
    this.armSettle()
  }

  /**
   * A fresh frozen copy. Not cached: a beacon is heard several times between ticks, so a
   * cached copy would almost never be reused, yet would double the memory per beacon.
   */
  private snapshot(e: Entry): Beacon {
    return this.copy(e, true)
  }

  private copy(e: Entry, inRange: boolean): Beacon {
    const tenths = Math.round(e.filter.value(e.b.lastSeen) * 10)
    const smoothed = tenths / 10
    const acc = this.accuracyOf(tenths, e.b.measuredPower)
    return snapshotOf(e.b, smoothed, acc, proximity(acc, this.opts.proximityThresholds), inRange)
  }

  /**
   * accuracy() of a smoothed RSSI in tenths of a dB, memoised per measured power: the tick
   * needs one per beacon, and a power function per beacon was a fifth of its cost.
   */
  private accuracyOf(tenths: number, measuredPower: number | undefined): number {
    if (measuredPower === undefined || !Number.isInteger(measuredPower) || measuredPower < -128 || measuredPower > 127 || !(tenths >= -1280 && tenths <= 0)) {
      return accuracy(tenths / 10, measuredPower)
    }
    let row = this.accuracyRows[measuredPower + 128]
    if (row === undefined) {
      row = new Float64Array(1281).fill(Number.NaN)
      this.accuracyRows[measuredPower + 128] = row
    }
    const cached = row[tenths + 1280]
    if (cached === cached) return cached
    return (row[tenths + 1280] = accuracy(tenths / 10, measuredPower))
  }

  /** Moves `e` to the tail (most recently seen) and makes sure the expiry timer is armed. */
  private touch(e: Entry): void {
    if (this.tail !== e) {
      this.unlinkList(e)
      e.prev = this.tail
      if (this.tail !== undefined) this.tail.next = e
      this.tail = e
      this.head ??= e
    }
    if (this.expiryDue === undefined) this.armExpiry()
  }

  private unlinkList(e: Entry): void {
    if (e.prev !== undefined) e.prev.next = e.next
    else if (this.head === e) this.head = e.next
    if (e.next !== undefined) e.next.prev = e.prev
    else if (this.tail === e) this.tail = e.prev
    e.prev = e.next = undefined
  }

  private armExpiry(): void {
    const due = this.nextExpiry()
    if (due === undefined) return
    this.expiryDue = due
    // A real timer may fire a little early; expire() then finds nothing due and re-arms.
    this.cancelExpiry = this.opts.clock.setTimeout(() => this.expire(), Math.max(0, due - this.opts.clock.now()))
  }

  /** Removes every beacon whose gone time has come; re-arms for the next one. */
  private expire(): void {
    this.expiryDue = undefined
    this.cancelExpiry = undefined
    const now = this.opts.clock.now()
    const timeout = this.opts.goneTimeoutMs
    while (this.head !== undefined && this.head.b.lastSeen + timeout <= now) {
      const e = this.head
      this.remove(e)
      if (e.reported) this.sink.gone(this.copy(e, false))
    }
    if (this.head !== undefined) this.armExpiry()
  }

  private remove(e: Entry): void {
    this.unlinkList(e)
    if (this.byId.get(e.id) === e) this.byId.delete(e.id)
    this.unlinkAddress(e.address, e)
    this.gate.forget(e.address)
    if (e.more !== undefined) {
      for (const a of e.more) {
        this.unlinkAddress(a, e)
        this.gate.forget(a)
      }
    }
  }

  private unlinkAddress(address: string, e: Entry): void {
    if (this.byAddress.get(address) === e) this.byAddress.delete(address)
  }
}
