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
import type { BeaconChanges } from '../range/merge.js'
import type { Beacon } from '../reading.js'
import type { HaAnnouncer } from './home-assistant.js'
import { rssiPartition } from './partition.js'
import type { RssiBatch, RssiReading } from './payloads.js'
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
  /** Clock time of the latest state published. */
  at: number
  /** A non-RSSI value changed since. */
  dirty: boolean
  /** The values at the previous look (found or tick). */
  values: Values
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
  /**
   * Packets per address since the previous batch. A counter object per address, reset after
   * each batch rather than a new map: a get and an increment per packet instead of a set.
   */
  private readonly counts = new Map<string, { n: number }>()
  private previousBatch = -Infinity

  constructor(
    private readonly topics: GatewayTopics,
    private readonly timing: FeedTiming,
    private readonly sink: FeedSink,
    private readonly ha: HaAnnouncer | undefined,
    /** RSSI batch partitions (scale-out); 1 publishes the unpartitioned batch of the contract. */
    private readonly partitions = 1,
  ) {}

  /** One advertisement from the source: counted for the next batch. */
  packet(address: string): void {
    const counter = this.counts.get(address)
    if (counter === undefined) this.counts.set(address, { n: 1 })
    else counter.n++
  }

  found(beacon: Beacon, now: number): void {
    this.sink.putEvent(this.topics.events, serializeJsonEvent({ event: 'found', time: now, beacon }))
    this.publishState(beacon, now)
  }

  gone(beacon: Beacon, now: number): void {
    this.sink.putEvent(this.topics.events, serializeJsonEvent({ event: 'gone', time: now, beacon }))
    this.marks.delete(beacon.id)
    this.sink.putRetained(this.topics.beacon(beacon.id), '')
  }

  /** The update tick: changed events, due states (throttled changes, heartbeats) and the RSSI batch. */
  updated(beacons: readonly Beacon[], now: number): void {
    const { minIntervalMs, heartbeatMs } = this.timing
    const readings: RssiReading[] = []
    const counts = this.counts
    const since = this.previousBatch
    for (const b of beacons) {
      const mark = this.marks.get(b.id)
      if (mark !== undefined) {
        const changes = diff(mark.values, b)
        if (changes !== undefined) {
          this.sink.putEvent(this.topics.events, serializeJsonEvent({ event: 'changed', time: now, beacon: b, changes }))
          mark.dirty = true
        }
      }
      if (mark === undefined || now - mark.at >= (mark.dirty ? minIntervalMs : heartbeatMs)) this.publishState(b, now)
      // Counted packets decide, not lastSeen alone: a packet at the tick's own ms may land after it.
      const counter = counts.get(b.address)
      const count = counter === undefined ? 0 : counter.n
      if (count > 0 || b.lastSeen > since) {
        const n = count > 0 ? count : 1
        // Two fixed literal shapes (in the contract's key order) keep JSON.stringify on its fast path.
        readings.push(
          b.measuredPower === undefined
            ? { id: b.id, rssi: b.smoothedRssi, lastSeen: b.lastSeen, count: n }
            : { id: b.id, rssi: b.smoothedRssi, measuredPower: b.measuredPower, lastSeen: b.lastSeen, count: n },
        )
      }
    }
    // Addresses not heard since the previous batch go (other devices, beacons gone); the rest restart at 0.
    for (const [address, counter] of counts) {
      if (counter.n === 0) counts.delete(address)
      else counter.n = 0
    }
    this.previousBatch = now
    // A tick in which nothing was heard sends no batch.
    if (readings.length === 0) return
    if (this.partitions > 1) {
      this.publishPartitioned(readings, now)
      return
    }
    const batch: RssiBatch = { gateway: this.topics.gateway, time: now, readings }
    this.sink.putVolatile(this.topics.rssi, JSON.stringify(batch), 'rssi')
  }

  /** One batch per partition that has readings, on `<p>/gateways/<gw>/rssi/<n>` (same shape). */
  private publishPartitioned(readings: RssiReading[], now: number): void {
    const parts = new Map<number, RssiReading[]>()
    for (const r of readings) {
      const n = rssiPartition(r.id, this.partitions)
      const list = parts.get(n)
      if (list === undefined) parts.set(n, [r])
      else list.push(r)
    }
    for (const [n, list] of parts) {
      const batch: RssiBatch = { gateway: this.topics.gateway, time: now, readings: list }
      this.sink.putVolatile(this.topics.rssiPartition(n), JSON.stringify(batch), 'rssi')
    }
  }

  /** After a reconnect: every beacon's current state, replacing whatever waited. */
  refresh(beacons: readonly Beacon[], now: number): void {
    for (const b of beacons) this.publishState(b, now)
  }

  private publishState(beacon: Beacon, now: number): void {
    if (this.ha !== undefined) for (const c of this.ha.due(beacon)) this.sink.putRetained(c.topic, c.payload)
    this.sink.putRetained(this.topics.beacon(beacon.id), serializeBeacon(beacon))
    const mark = this.marks.get(beacon.id)
    if (mark === undefined) this.marks.set(beacon.id, { at: now, dirty: false, values: valuesOf(beacon) })
    else {
      mark.at = now
      mark.dirty = false
    }
  }
}
