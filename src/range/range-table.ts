/**
 * The beacons in range: identity, merging, found/gone/changed/updated, all in clock time.
 *
 * Time design: beacons wait in an ExpiryHeap under the due time they were queued with, and
 * one timer is armed for the earliest. A sighting only moves `lastSeen` on; when a due time
 * comes, the beacon is gone if `lastSeen + goneTimeoutMs` has passed, else queued again for
 * then. Gone is therefore emitted exactly at `lastSeen + goneTimeoutMs` (to the millisecond
 * in virtual time) while an advertisement costs no timer or queue work at all. A second,
 * periodic timer emits `updated`.
 */
import type { CancelTimer } from '../clock.js'
import type { Beacon, BeaconReading } from '../reading.js'
import { proximity } from '../decode/distance.js'
import { DelayQueue } from './delay-queue.js'
import { matchesFilter } from './filter.js'
import { changeValues, diffValues, mergeReading } from './merge.js'
import { snapshotOf } from './snapshot.js'
import type { IBeaconHint } from './merge.js'
import type { RangeTableOptions, RangeTableSink, RangeTableStats } from './range-table-types.js'
import { IdentityIndex } from './identity.js'
import { DEAD, Entry, nextVersion } from './entry.js'
import { EntryNumbers } from './entry-numbers.js'
import { ExpiryHeap } from './expiry-heap.js'
import { AccuracyMemo, sortByAccuracy } from './ranking.js'
import { referencePower } from '../decode/decode.js'
import { SecureGate } from './secure-gate.js'
import { addTrackSample, bestTrackRssi, trackList } from './adapter-tracks.js'

/** Tracks beacons in clock time and reports found/gone/changed/updated to its sink. */
export class RangeTable {
  private readonly index: IdentityIndex
  private readonly gate: SecureGate
  private readonly queue = new ExpiryHeap<Entry>()
  private readonly numbers = new EntryNumbers()
  private expiryDue: number | undefined
  private cancelExpiry: CancelTimer | undefined
  private cancelTick: CancelTimer | undefined
  /** When the tick started: ticks fall on `tickOrigin + k × updateIntervalMs`, paused or not. */
  private tickOrigin = 0
  private tickPaused = false
  /** Entries in their identity settle window. */
  private readonly settling: DelayQueue<Entry> | undefined
  private readonly accuracy = new AccuracyMemo()
  private counters = { belowMinRssi: 0, heldSecure: 0, droppedSecure: 0 }

  constructor(
    private readonly opts: RangeTableOptions,
    private readonly sink: RangeTableSink,
  ) {
    this.gate = new SecureGate(opts.hideUnverifiedSecure)
    this.index = new IdentityIndex(
      (id, r) => new Entry(id, r, opts.clock.now(), this.numbers),
      (e) => {
        e.version = DEAD
        this.queue.remove(e)
        e.release()
      },
      (address) => this.releaseAddress(address),
    )
    const settle = opts.identitySettleMs ?? 0
    if (settle > 0) this.settling = new DelayQueue(opts.clock, settle, (e, now) => this.settled(e, now))
  }

  /** Starts the periodic `updated` tick. */
  start(): void {
    if (this.cancelTick !== undefined || this.tickPaused) return
    this.tickOrigin = this.opts.clock.now()
    this.cancelTick = this.opts.clock.setInterval(() => this.tick(), this.opts.updateIntervalMs)
  }

  /** Stops the timers and forgets every beacon, without `gone` events. */
  stop(): void {
    for (let i = 0; i < this.queue.size; i++) this.queue.at(i).version = DEAD
    this.cancelTick?.()
    this.cancelTick = undefined
    this.tickPaused = false
    this.cancelExpiry?.()
    this.cancelExpiry = undefined
    this.expiryDue = undefined
    this.settling?.clear()
    this.index.clear()
    this.gate.clear()
    this.queue.clear()
    this.numbers.clear()
  }

  /** Counters, as of now. */
  get stats(): RangeTableStats {
    return { tracked: this.index.size, ...this.counters }
  }

  /** Number of beacons tracked (reported or not) plus addresses awaiting secure confirmation. */
  get size(): number {
    return this.index.size + this.gate.size
  }

  /**
   * Takes one decoded reading at the clock's current time. `hint` is the advertisement's
   * manufacturer data (see IBeaconHint). `rssi` and `timestamp` are the packet's, for readings
   * shared by repeats of the same bytes (Decoder.decodeShared). Returns the entry the reading
   * was merged into when a repeat of it may take {@link RangeTable.repeat} while the entry's
   * version stays as it is now (it passed the secure gate as a plain or confirmed reading).
   * `adapter` names the adapter that heard the packet, when there are several (AdapterTrack).
   */
  ingest(
    r: Readonly<BeaconReading>,
    hint?: IBeaconHint,
    rssi = r.rssi,
    timestamp = r.timestamp,
    adapter?: string,
  ): Entry | undefined {
    if (this.tickPaused) this.resumeTick()
    const minRssi = this.opts.filter.minRssi
    if (minRssi !== undefined && rssi < minRssi) {
      this.counters.belowMinRssi++
      return undefined
    }
    const now = this.opts.clock.now()
    const linked = this.index.linked(r.address)
    const verdict = this.gate.check(r, hint, linked?.confirmedSerial, now)
    if (verdict === 'hold') {
      this.counters.heldSecure++
      return undefined
    }
    if (verdict === 'drop') {
      this.counters.droppedSecure++
      return undefined
    }
    const entry = this.index.resolve(r, linked, verdict === 'address')
    if (verdict === 'confirmed') {
      for (const h of this.gate.takeHeld())
        this.apply(entry, h.reading, h.hint, now, false, h.reading.rssi, h.reading.timestamp, undefined)
      entry.confirmedSerial = r.serialNumber
      entry.version = nextVersion()
    }
    this.apply(entry, r, hint, now, true, rssi, timestamp, adapter)
    this.evaluate(entry, now)
    // An unverified encrypted reading ('address') changes the gate's state on every packet.
    return verdict === 'address' ? undefined : entry
  }

  /**
   * A repeat of a payload last merged into `e` at its current version (see ScanDecoder): the
   * merge would change nothing, so only the packet's RSSI and time are taken. Returns false,
   * having done nothing, when the secure gate must see the reading (then it goes to `ingest`).
   */
  repeat(e: Entry, rssi: number, timestamp: number, adapter?: string): boolean {
    // What the gate says of a repeat is only certain when no address awaits confirmation or
    // this beacon is confirmed (ingest marks only readings that passed).
    if (this.gate.size !== 0 && e.confirmedSerial === undefined) return false
    const minRssi = this.opts.filter.minRssi
    if (minRssi !== undefined && rssi < minRssi) {
      this.counters.belowMinRssi++
      return true
    }
    const now = this.opts.clock.now()
    this.apply(e, undefined, undefined, now, true, rssi, timestamp, adapter)
    this.evaluate(e, now)
    return true
  }

  /** Snapshots of the reported beacons, nearest first (unknown distance last). */
  beacons(): Beacon[] {
    const list: Beacon[] = []
    const q = this.queue
    for (let i = 0; i < q.size; i++) {
      const e = q.at(i)
      if (e.reported) list.push(this.snapshot(e))
    }
    return sortByAccuracy(list)
  }

  /** Whether any beacon is reported as in range. */
  anyInRange(): boolean {
    for (let i = 0; i < this.queue.size; i++) if (this.queue.at(i).reported) return true
    return false
  }

  private tick(): void {
    if (this.opts.pauseTickWhenEmpty === true && this.size === 0) {
      this.cancelTick?.()
      this.cancelTick = undefined
      this.tickPaused = true
      return
    }
    this.gate.sweep(this.opts.clock.now() - this.opts.goneTimeoutMs)
    if (this.sink.wantsUpdated()) this.sink.updated(this.beacons())
  }

  /** Restarts a paused tick at its next due time after now, on the phase it had. */
  private resumeTick(): void {
    this.tickPaused = false
    const { clock, updateIntervalMs: every } = this.opts
    const now = clock.now()
    // Strictly after now: a tick due at this very ms ran, paused, before this reading arrived.
    const next = this.tickOrigin + (Math.floor((now - this.tickOrigin) / every) + 1) * every
    this.cancelTick = clock.setTimeout(() => {
      this.cancelTick = clock.setInterval(() => this.tick(), every)
      this.tick()
    }, next - now)
  }

  /** Merges `r` (none for a repeat that would change nothing) and takes the packet's RSSI and time. */
  private apply(
    e: Entry,
    r: Readonly<BeaconReading> | undefined,
    hint: IBeaconHint,
    now: number,
    announce: boolean,
    rssi: number,
    timestamp: number,
    adapter: string | undefined,
  ): void {
    const wantChanges = announce && e.reported && this.sink.wantsChanged()
    const before = wantChanges ? changeValues(e, Math.round(this.smoothed(e, e.lastSeen))) : undefined
    if (r !== undefined && mergeReading(e, r, e, hint)) e.version = nextVersion()
    e.rssi = rssi
    e.timestamp = timestamp
    // Held readings replayed at confirmation are cached templates: their RSSI is not theirs.
    if (announce) {
      // The filter reads the previous sample's time from lastSeen before it moves on.
      if (typeof adapter !== 'string') this.opts.smoothing.add(e, rssi, now)
      else addTrackSample((e.tracks ??= []), adapter, rssi, now, this.opts.smoothing, this.opts.goneTimeoutMs)
      e.lastSeen = now
      e.packets++
    }
    this.touch(e)
    if (before !== undefined) {
      const changes = diffValues(before, changeValues(e, Math.round(this.smoothed(e, now))))
      if (changes !== undefined) this.sink.changed(this.snapshot(e), changes)
    }
  }

  private evaluate(e: Entry, now: number): void {
    const { enterRssi, leaveRssi, filter } = this.opts
    if (!e.reported) {
      if (!e.matched) e.matched = !filter.identity || matchesFilter(e, filter)
      if (!e.matched) return
      if (enterRssi !== undefined && !(this.smoothed(e, now) >= enterRssi)) return
      // A resolved identity is final: no frame to come can change it.
      if (e.serialNumber === undefined && e.irk === undefined && !e.settled) {
        // Its scan response, or the frames that confirm a private broadcast, may be a moment away.
        if (!e.settling) this.startSettling(e, now)
        return
      }
      if (this.gate.awaiting(e.home)) return
      if (e.left) {
        e.firstSeen = now
        e.left = false
      }
      e.reported = true
      this.sink.found(this.snapshot(e))
    } else if (leaveRssi !== undefined && this.smoothed(e, now) < leaveRssi) {
      e.reported = false
      e.left = true
      this.sink.gone(this.copy(e, false))
    }
  }

  private startSettling(e: Entry, now: number): void {
    if (this.settling === undefined) {
      e.settled = true
      this.evaluate(e, now)
      return
    }
    e.settling = true
    this.settling.push(e)
  }

  private settled(e: Entry, now: number): void {
    e.settling = false
    e.settled = true
    // Gone (or merged into another entry) meanwhile: nothing to announce.
    if (this.index.has(e) && !e.reported) this.evaluate(e, now)
  }

  /**
   * A fresh copy. Not cached: a beacon is heard several times between ticks, so a
   * cached copy would almost never be reused, yet would double the memory per beacon.
   */
  private snapshot(e: Entry): Beacon {
    return this.copy(e, true)
  }

  private copy(e: Entry, inRange: boolean): Beacon {
    const tracks = e.tracks
    // In range: the adapters that heard it within the gone timeout before now; gone: before its last packet.
    const ref = tracks === undefined ? e.lastSeen : inRange ? this.opts.clock.now() : e.lastSeen
    const tenths = Math.round(this.smoothed(e, ref) * 10)
    const smoothed = tenths / 10
    // An Eddystone-only beacon has no measured power: its 0 m power minus 41 dB stands in.
    const acc = this.accuracy.of(tenths, referencePower(e))
    const b = snapshotOf(
      e,
      smoothed,
      acc,
      proximity(acc, this.opts.proximityThresholds),
      inRange,
      e.packets,
      e.version,
      e.slot,
    )
    if (tracks !== undefined) b.adapters = trackList(tracks, ref, this.opts.smoothing, this.opts.goneTimeoutMs)
    return b
  }

  /**
   * The smoothed RSSI at `t`: the entry's own, or with several adapters the best among those
   * that heard it within the gone timeout before `t` (AdapterTrack).
   */
  private smoothed(e: Entry, t: number): number {
    const tracks = e.tracks
    if (tracks === undefined) return this.opts.smoothing.value(e, t)
    return bestTrackRssi(tracks, t, this.opts.smoothing, this.opts.goneTimeoutMs)
  }

  /** Queues `e` for its gone check if it is not queued yet, and makes sure the timer is armed. */
  private touch(e: Entry): void {
    if (e.heapIndex < 0) this.queue.push(e, e.lastSeen + this.opts.goneTimeoutMs)
    if (this.expiryDue === undefined) this.armExpiry()
  }

  private armExpiry(): void {
    const due = this.queue.nextDue()
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
    const q = this.queue
    const gone: Entry[] = []
    for (let due = q.nextDue(); due !== undefined && due <= now; due = q.nextDue()) {
      const e = q.first() as Entry
      const goneAt = e.lastSeen + timeout
      if (goneAt > now) {
        // Heard since it was queued: not due yet.
        q.delayFirst(goneAt)
        continue
      }
      this.remove(e)
      gone.push(e)
    }
    // The heap's order among equal due times is arbitrary: announce the least recently seen first, ties by id.
    if (gone.length > 1) gone.sort((a, b) => a.lastSeen - b.lastSeen || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    for (const e of gone) if (e.reported) this.sink.gone(this.copy(e, false))
    // Only now: a slot given back may be taken by a beacon a gone listener's code brings in.
    for (const e of gone) e.release()
    if (q.size > 0) this.armExpiry()
  }

  private remove(e: Entry): void {
    this.queue.remove(e)
    e.version = DEAD
    for (const address of this.index.remove(e)) this.releaseAddress(address)
  }

  private releaseAddress(address: string): void {
    this.gate.forget(address)
    this.sink.released(address)
  }
}
