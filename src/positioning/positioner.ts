/**
 * The positioner: observations in, one position per beacon out. Holds each beacon's recent
 * packets in a bounded ring and, for the default method, its grid filter; everything runs on the
 * caller's time, so it is causal (an estimate at `time` uses no packet later than `time`) and
 * works the same live and on a recording.
 */
import { InvalidOptionError } from '../errors.js'
import type { Site } from './site.js'
import {
  multilaterate,
  nearestAnchor,
  nearestFingerprints,
  weightedCentroid,
  type Fix,
  type WindowMeans,
} from './baselines.js'
import { GridFilter } from './grid-filter.js'
import { FilterScratch } from './filter-scratch.js'
import {
  filterParams,
  positiveOption,
  usableObservation,
  type PositionerOptions,
  type PositionerStats,
} from './positioner-options.js'
import type { GridFilterParams } from './grid-filter-params.js'
import { RadioMap } from './radio-map.js'
import { TrackBuffer } from './track-buffer.js'
import { POSITIONING_METHODS, type Observation, type PositionEstimate, type PositioningMethod } from './types.js'

interface Track {
  buffer: TrackBuffer
  filter?: GridFilter
  /** ms: packets at or before this are in the filter. */
  foldedUntil: number
  /**
   * The last look-ahead: the filter with the packets in (from, until] folded in, `count` of
   * them. When the filter is next folded over exactly that range and those packets (the usual
   * case: ticks a second apart, nothing arrived late), the look-ahead is the answer and the
   * update is not done twice.
   */
  ahead?: { filter: GridFilter; from: number; until: number; count: number }
  /** A filter's storage to reuse for the next look-ahead. */
  spare?: GridFilter
  /** Estimates already given, for questions about an earlier time than the filter has reached. */
  history: { time: number; fix: Fix }[]
}

const HISTORY = 16

/**
 * Positions beacons from the RSSI the site's anchors hear (or, with a site of fixed beacons, a
 * scanner from the beacons it hears). Implements the fleet tracker's `PositionEstimator`.
 *
 * ```ts
 * const positioner = new Positioner({ site, radioMap: RadioMap.fromSurvey(site, samples) })
 * positioner.observe({ time: 1000, anchor: 'gw-1', beacon: 'tag-7', rssi: -71 })
 * positioner.estimate('tag-7', 1000) // { x, y, accuracy, room? }
 * ```
 */
export class Positioner {
  readonly stats: PositionerStats = { observations: 0, unknownAnchor: 0, invalid: 0, late: 0, evicted: 0 }
  readonly method: PositioningMethod
  readonly radioMap: RadioMap
  private readonly site: Site
  private readonly tracks = new Map<string, Track>()
  private readonly windowMs: number
  /**
   * ms of packets the filter folds into one update: an estimate at a whole multiple of it is the
   * cheapest (see `FleetState.positionTime`).
   */
  readonly stepMs: number
  private readonly k: number
  private readonly bufferSize: number
  /** Beacons tracked at once (`maxBeacons`). */
  readonly maxBeacons: number
  private readonly params: GridFilterParams
  private scratch?: FilterScratch
  private readonly lagMs: number
  private readonly means: WindowMeans
  private readonly sums: Float64Array

  constructor(options: PositionerOptions) {
    this.site = options.site
    this.method = options.method ?? 'filter'
    if (!POSITIONING_METHODS.includes(this.method))
      throw new InvalidOptionError(
        'invalid_option',
        `positioner: unknown method ${JSON.stringify(this.method)}; use one of ${POSITIONING_METHODS.join(', ')}`,
        { option: 'method' },
      )
    this.radioMap = options.radioMap ?? RadioMap.defaultPhysics(options.site)
    this.windowMs = positiveOption(options.windowMs, 'windowMs', 2000)
    this.stepMs = positiveOption(options.stepMs, 'stepMs', 1000)
    this.lagMs = options.lagMs === 0 ? 0 : positiveOption(options.lagMs, 'lagMs', 1000)
    this.k = Math.round(positiveOption(options.k, 'k', 3))
    this.bufferSize = Math.round(positiveOption(options.bufferSize, 'bufferSize', 256))
    this.maxBeacons = Math.round(positiveOption(options.maxBeacons, 'maxBeacons', 10_000))
    this.params = filterParams(options.filter)
    const A = this.radioMap.anchors.length
    this.means = { mean: new Float64Array(A), count: new Uint16Array(A) }
    this.sums = new Float64Array(A)
  }

  /** Beacons with state. */
  get size(): number {
    return this.tracks.size
  }

  /** Takes one packet; bad ones are skipped and counted in `stats`, never thrown. */
  observe(o: Observation): void {
    if (!usableObservation(o)) {
      this.stats.invalid++
      return
    }
    const a = this.radioMap.index(o.anchor)
    if (a < 0) {
      this.stats.unknownAnchor++
      return
    }
    let t = this.tracks.get(o.beacon)
    if (t === undefined) {
      if (this.tracks.size >= this.maxBeacons) {
        const oldest = this.tracks.keys().next().value as string
        this.tracks.delete(oldest)
        this.stats.evicted++
      }
      t = { buffer: new TrackBuffer(this.bufferSize), foldedUntil: -Infinity, history: [] }
    } else this.tracks.delete(o.beacon)
    // Re-inserting keeps the map in order of last packet, so eviction takes the stalest beacon.
    this.tracks.set(o.beacon, t)
    if (o.time <= t.foldedUntil) {
      this.stats.late++
      return
    }
    // The ring is about to drop a packet the filter has not seen yet: fold it in first, with
    // the rest of its step and the whole steps lagMs older than this packet. Folding the oldest
    // packet alone made every packet of a beacon not asked about for a while an update of its
    // own (and cut steps in two).
    if (this.method === 'filter' && t.buffer.full && t.buffer.time(0) > t.foldedUntil) {
      const step = this.stepMs
      this.fold(
        t,
        Math.max((Math.floor(t.buffer.time(0) / step) + 1) * step, Math.floor((o.time - this.lagMs) / step) * step),
      )
    }
    t.buffer.push(o.time, a, o.rssi)
    this.stats.observations++
  }

  /**
   * Where `beacon` was at `time` (ms), from packets up to `time` only; undefined before its
   * first packet or when nothing recent enough is known.
   */
  estimate(beacon: string, time: number): PositionEstimate | undefined {
    const t = this.tracks.get(beacon)
    if (t === undefined || !Number.isFinite(time)) return undefined
    const fix = this.method === 'filter' ? this.filtered(t, time) : this.single(t, time)
    if (fix === undefined) return undefined
    const out: PositionEstimate = { x: fix.x, y: fix.y, accuracy: fix.accuracy }
    const room = this.site.roomAt(fix.x, fix.y)
    if (room !== undefined) out.room = room
    return out
  }

  /** Lets go of a beacon's state. */
  forget(beacon: string): void {
    this.tracks.delete(beacon)
  }

  private filtered(t: Track, time: number): Fix | undefined {
    if (time < t.foldedUntil) {
      // Asked about the past: answer from what was said then, never from later packets.
      let found: Fix | undefined
      for (const h of t.history) if (h.time <= time) found = h.fix
      return found
    }
    // Packets older than the lag are folded in for good; the newest ones only into a copy, so a
    // gateway's batch that arrives a little after this estimate still counts for the next.
    this.fold(t, time - this.lagMs)
    let filter = t.filter
    const b = t.buffer
    const next = b.firstAfter(t.foldedUntil)
    if (next < b.length && b.time(next) <= time) {
      const ahead = t.ahead?.filter ?? t.spare ?? this.newFilter()
      t.spare = undefined
      if (t.filter !== undefined) ahead.copyFrom(t.filter)
      else {
        ahead.reset()
        ahead.time = Number.NaN
      }
      this.foldInto(ahead, b, t.foldedUntil, time)
      t.ahead = { filter: ahead, from: t.foldedUntil, until: time, count: b.firstAfter(time) - next }
      filter = ahead
    }
    if (filter === undefined || Number.isNaN(filter.time)) return undefined
    const fix = filter.estimate(time)
    t.history.push({ time, fix })
    if (t.history.length > HISTORY) t.history.shift()
    return fix
  }

  /** Folds the packets in (foldedUntil, until] into the beacon's filter for good. */
  private fold(t: Track, until: number): void {
    if (until <= t.foldedUntil) return
    const from = t.foldedUntil
    t.foldedUntil = until
    const b = t.buffer
    const i = b.firstAfter(from)
    const ahead = t.ahead
    t.ahead = undefined
    // Packets only ever join the ring (the oldest leave only once folded), and an update depends
    // on its packets alone: when (from, until] and the look-ahead's range hold the same packets
    // it folded (none arrived since, none lies between the two ends), it already holds this
    // fold's result. The ends differ by a tick's jitter when a live tracker asks. (A look-ahead
    // folded at least one packet, so an empty range never matches.)
    if (
      ahead !== undefined &&
      ahead.from === from &&
      b.firstAfter(until) - i === ahead.count &&
      b.firstAfter(ahead.until) - i === ahead.count
    ) {
      if (t.filter !== undefined) t.spare = t.filter
      t.filter = ahead.filter
      return
    }
    if (ahead !== undefined) t.spare = ahead.filter
    if (i >= b.length || b.time(i) > until) return
    t.filter ??= this.newFilter()
    this.foldInto(t.filter, b, from, until)
  }

  private newFilter(): GridFilter {
    return new GridFilter((this.scratch ??= new FilterScratch(this.radioMap, this.params)), this.params)
  }

  /** Updates `filter` with the packets in (from, until], one update per step of packets. */
  private foldInto(filter: GridFilter, b: TrackBuffer, from: number, until: number): void {
    const { mean, count } = this.means
    let i = b.firstAfter(from)
    while (i < b.length && b.time(i) <= until) {
      // Steps are fixed slots of the clock (not counted from the first packet), so folding for
      // good and folding into the look-ahead copy cut the packets alike.
      const chunkEnd = (Math.floor(b.time(i) / this.stepMs) + 1) * this.stepMs
      this.sums.fill(0)
      count.fill(0)
      let last = b.time(i)
      // The step's first packet is always taken: where the arithmetic rounds chunkEnd back to
      // this packet's own time (a step below the time's resolution), the loop still advances, so
      // it runs at most once per packet.
      const first = i
      for (; i < b.length && b.time(i) <= until && (i === first || b.time(i) < chunkEnd); i++) {
        const a = b.anchor(i)
        this.sums[a] += b.value(i)
        if (count[a] < 65535) count[a]++
        last = b.time(i)
      }
      for (let a = 0; a < mean.length; a++) mean[a] = count[a] === 0 ? Number.NaN : this.sums[a] / count[a]
      filter.update(this.means, last)
    }
  }

  private single(t: Track, time: number): Fix | undefined {
    const b = t.buffer
    const { mean, count } = this.means
    this.sums.fill(0)
    count.fill(0)
    const end = b.firstAfter(time)
    let any = false
    for (let i = b.firstAfter(time - this.windowMs); i < end; i++) {
      const a = b.anchor(i)
      this.sums[a] += b.value(i)
      if (count[a] < 65535) count[a]++
      any = true
    }
    if (!any) return undefined
    for (let a = 0; a < mean.length; a++) mean[a] = count[a] === 0 ? Number.NaN : this.sums[a] / count[a]
    switch (this.method) {
      case 'nearest':
        return nearestAnchor(this.radioMap, this.means)
      case 'centroid':
        return weightedCentroid(this.radioMap, this.means)
      case 'multilateration':
        return multilaterate(this.radioMap, this.means)
      default:
        return nearestFingerprints(this.radioMap, this.means, this.k)
    }
  }
}
