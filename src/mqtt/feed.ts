/**
 * What one gateway publishes, decided from scanner events: traffic is the feature. A beacon's
 * retained state goes out when something other than RSSI changed (at most every `minIntervalMs`)
 * and on a heartbeat; RSSI goes only in one batch per tick; events exclude RSSI-only changes.
 *
 * Changes are found on the update tick by comparing each beacon's sensor values with the last
 * ones seen, not by listening to the scanner's `changed` event: that event fires on every whole
 * dBm of RSSI, and merely listening to it doubles the scanner's cost per packet at 10,000
 * beacons. A `changed` event therefore carries the tick's time and, when a value changed
 * twice within one tick, the change from the previous tick's value to the latest.
 */

import { serializeBeacon, serializeJsonEvent } from '../json-events.js'
import { packetsHeard, versionOf } from '../range/merge.js'
import type { BeaconChanges } from '../range/merge.js'
import type { Beacon } from '../reading.js'
import type { HaAnnouncer } from './home-assistant.js'
import { rssiPartition } from './partition.js'
import type { GatewayTopics } from './topics.js'

/** Where the feed's messages go (the outbox). */
export interface FeedSink {
  putRetained(topic: string, payload: string): void
  putEvent(topic: string, payload: string): void
  putVolatile(topic: string, payload: string, kind: 'rssi'): void
}

/** Timing of the retained beacon states. */
export interface FeedTiming {
  minIntervalMs: number
  heartbeatMs: number
}

/** The values whose change makes a state "changed" (RSSI-derived fields travel in the batch). */
const CHANGE_FIELDS = ['temperature', 'light', 'accelerometerCount', 'movingState', 'batteryLevel'] as const
type ChangeField = (typeof CHANGE_FIELDS)[number]
type Values = { [K in ChangeField]: Beacon[K] }

interface StateMark {
  /** The beacon's id (the key it is found under). */
  readonly id: string
  /** Still the beacon's mark (false once it is gone and forgotten). */
  live: boolean
  /** Clock time of the latest state published. */
  at: number
  /** A non-RSSI value changed since. */
  dirty: boolean
  /** The values at the previous look (found or tick). */
  values: Values
  /** The scanner's version of the beacon when `values` were taken (versionOf()); undefined for other sources. */
  version: number | undefined
  /** The address its packets are counted under (the beacon's latest). */
  address: string
  /** Packets since the previous batch (counted by packet(), for sources that do not count). */
  count: number
  /** The scanner's packet total at the previous batch (packetsHeard()); 0 before the first. */
  total: number
  /** `{"id":<id as JSON>,"rssi":`: the start of its batch reading, encoded once per visit. */
  prefix: string
  /** Its RSSI batch partition (0 unless the batch is partitioned), hashed once. */
  partition: number
}

/** A number as JSON.stringify writes it (null for NaN and ±Infinity). */
function num(x: number): string {
  return Number.isFinite(x) ? String(x) : 'null'
}

function valuesOf(b: Beacon): Values {
  return { temperature: b.temperature, light: b.light, accelerometerCount: b.accelerometerCount, movingState: b.movingState, batteryLevel: b.batteryLevel }
}

/** What changed since `values` (and updates them), or undefined. */
function diff(values: Values, b: Beacon): BeaconChanges | undefined {
  // The common case, spelled out: named property reads stay monomorphic, a keyed loop does not.
  if (
    b.temperature === values.temperature &&
    b.light === values.light &&
    b.accelerometerCount === values.accelerometerCount &&
    b.movingState === values.movingState &&
    b.batteryLevel === values.batteryLevel
  ) {
    return undefined
  }
  let changes: Record<string, { old: unknown; new: unknown }> | undefined
  for (const field of CHANGE_FIELDS) {
    const now = b[field]
    if (now !== values[field]) {
      changes ??= {}
      changes[field] = { old: values[field], new: now }
      ;(values as Record<ChangeField, unknown>)[field] = now
    }
  }
  return changes as BeaconChanges | undefined
}

/** Turns scanner events into messages for one gateway's topics. */
export class GatewayFeed {
  private readonly marks = new Map<string, StateMark>()
  /** The same marks by address: a packet is counted on its beacon's mark, found with one get. */
  private readonly byAddress = new Map<string, StateMark>()
  /** Packets of addresses without a mark (a beacon not announced yet, other devices), per batch. */
  private readonly strays = new Map<string, { n: number }>()
  private previousBatch = -Infinity
  /**
   * The previous tick's marks in its order. A scanner lists its beacons in nearly the same order
   * every tick, so most beacons find their mark here by position, without hashing into `marks`
   * (which, with 10,000 marks scattered in memory, was a fifth of the tick).
   */
  private order: StateMark[] = []
  /**
   * Beacons whose values the ticks compared with their mark's, in all: a scanner's beacon whose
   * version is the one its mark saw is not compared (its values cannot have changed).
   */
  compared = 0
  /** `{"gateway":<gw>,"time":` */
  private readonly batchHead: string

  constructor(
    private readonly topics: GatewayTopics,
    private readonly timing: FeedTiming,
    private readonly sink: FeedSink,
    private readonly ha: HaAnnouncer | undefined,
    /** RSSI batch partitions (scale-out); 1 publishes the unpartitioned batch of the contract. */
    private readonly partitions = 1,
  ) {
    this.batchHead = `{"gateway":${JSON.stringify(topics.gateway)},"time":`
  }

  /** One advertisement from the source: counted for the next batch. */
  packet(address: string): void {
    const mark = this.byAddress.get(address)
    if (mark !== undefined) {
      mark.count++
      return
    }
    const counter = this.strays.get(address)
    if (counter === undefined) this.strays.set(address, { n: 1 })
    else counter.n++
  }

  found(beacon: Beacon, now: number): void {
    this.sink.putEvent(this.topics.events, serializeJsonEvent({ event: 'found', time: now, beacon }))
    this.publishState(beacon, now)
  }

  gone(beacon: Beacon, now: number): void {
    this.sink.putEvent(this.topics.events, serializeJsonEvent({ event: 'gone', time: now, beacon }))
    const mark = this.marks.get(beacon.id)
    if (mark !== undefined) {
      mark.live = false
      this.marks.delete(beacon.id)
      if (this.byAddress.get(mark.address) === mark) this.byAddress.delete(mark.address)
    }
    this.sink.putRetained(this.topics.beacon(beacon.id), '')
  }

  /**
   * The update tick: changed events, due states (throttled changes, heartbeats) and the RSSI
   * batch. The batch is written as text from each mark's cached prefix, in the contract's key
   * order, byte for byte what JSON.stringify of an `RssiBatch` (payloads.ts) gives: no reading objects,
   * no second walk over them, and no id encoded twice per visit.
   */
  updated(beacons: readonly Beacon[], now: number): void {
    const { minIntervalMs, heartbeatMs } = this.timing
    const readings: string[] = []
    /** With partitions: each reading's partition, beside it. */
    const partitionOf: number[] = []
    const since = this.previousBatch
    const order = this.order
    for (let i = 0; i < beacons.length; i++) {
      const b = beacons[i]
      let mark: StateMark | undefined = order[i]
      if (mark === undefined || mark.id !== b.id || !mark.live) mark = this.marks.get(b.id)
      // Most beacons at most ticks changed nothing but RSSI: their scanner version says so.
      const version = versionOf(b)
      if (mark !== undefined && (version === undefined || version !== mark.version)) {
        this.compared++
        const changes = diff(mark.values, b)
        // diff() brought every value up to b's: the mark has now seen this version.
        mark.version = version
        if (changes !== undefined) {
          this.sink.putEvent(this.topics.events, serializeJsonEvent({ event: 'changed', time: now, beacon: b, changes }))
          mark.dirty = true
        }
      }
      if (mark === undefined || now - mark.at >= (mark.dirty ? minIntervalMs : heartbeatMs)) mark = this.publishState(b, now)
      if (mark.address !== b.address) this.relink(mark, b.address)
      order[i] = mark
      // Counted packets decide, not lastSeen alone: a packet at the tick's own ms may land after it.
      // A scanner's snapshot carries its packet total: no work per packet at all.
      const total = packetsHeard(b)
      let count = mark.count
      mark.count = 0
      if (total !== undefined) {
        count = total - mark.total
        mark.total = total
      }
      if (count > 0 || b.lastSeen > since) {
        const mp = b.measuredPower
        readings.push(`${mark.prefix}${num(b.smoothedRssi)}${mp === undefined ? '' : `,"measuredPower":${num(mp)}`},"lastSeen":${num(b.lastSeen)},"count":${count > 0 ? count : 1}}`)
        if (this.partitions > 1) partitionOf.push(mark.partition)
      }
    }
    order.length = beacons.length
    this.strays.clear()
    this.previousBatch = now
    // A tick in which nothing was heard sends no batch.
    if (readings.length === 0) return
    if (this.partitions > 1) {
      this.publishPartitioned(readings, partitionOf, now)
      return
    }
    this.sink.putVolatile(this.topics.rssi, this.batchText(readings, now), 'rssi')
  }

  /** A batch as JSON.stringify would write `{ gateway, time, readings }`, from readings already in text. */
  private batchText(readings: readonly string[], now: number): string {
    return `${this.batchHead}${num(now)},"readings":[${readings.join(',')}]}`
  }

  /** One batch per partition that has readings, on `<p>/gateways/<gw>/rssi/<n>` (same shape). */
  private publishPartitioned(readings: readonly string[], partitionOf: readonly number[], now: number): void {
    const parts = new Map<number, string[]>()
    readings.forEach((reading, i) => {
      const n = partitionOf[i]
      const list = parts.get(n)
      if (list === undefined) parts.set(n, [reading])
      else list.push(reading)
    })
    for (const [n, list] of parts) this.sink.putVolatile(this.topics.rssiPartition(n), this.batchText(list, now), 'rssi')
  }

  /** After a reconnect: every beacon's current state, replacing whatever waited. */
  refresh(beacons: readonly Beacon[], now: number): void {
    for (const b of beacons) this.publishState(b, now)
  }

  private publishState(beacon: Beacon, now: number): StateMark {
    if (this.ha !== undefined) for (const c of this.ha.due(beacon)) this.sink.putRetained(c.topic, c.payload)
    this.sink.putRetained(this.topics.beacon(beacon.id), serializeBeacon(beacon))
    let mark = this.marks.get(beacon.id)
    if (mark === undefined) {
      const partition = this.partitions > 1 ? rssiPartition(beacon.id, this.partitions) : 0
      mark = { id: beacon.id, live: true, at: now, dirty: false, values: valuesOf(beacon), version: versionOf(beacon), address: '', count: 0, total: 0, prefix: `{"id":${JSON.stringify(beacon.id)},"rssi":`, partition }
      this.marks.set(beacon.id, mark)
      this.relink(mark, beacon.address)
    } else {
      mark.at = now
      mark.dirty = false
    }
    return mark
  }

  /** Counts the beacon's packets under `address` from now on, with those already counted there. */
  private relink(mark: StateMark, address: string): void {
    if (this.byAddress.get(mark.address) === mark) this.byAddress.delete(mark.address)
    mark.address = address
    this.byAddress.set(address, mark)
    const stray = this.strays.get(address)
    if (stray !== undefined) {
      mark.count += stray.n
      this.strays.delete(address)
    }
  }
}
