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

import { BatchWriter } from './batch-writer.js'
import { serializeBeacon, serializeJsonEvent } from '../scanner/json-events.js'
import { packetsHeard, slotOf, versionOf } from '../range/snapshot.js'
import type { BeaconChanges } from '../range/merge.js'
import type { Beacon } from '../reading.js'
import type { HaAnnouncer } from './home-assistant.js'
import { CHANGE_FIELDS, MarkTable } from './mark-table.js'
import type { ChangeField, Values } from './mark-table.js'
import { rssiPartition } from './partition.js'
import { isTopicLevel } from '../util/topic-level.js'
import type { GatewayTopics } from './topics.js'
import type { RetainOptions } from './outbox-types.js'

/** Where the feed's messages go (the outbox). */
export interface FeedSink {
  /** `always`: an empty message goes out even for a topic not published in this run (a config of an earlier run). */
  putRetained(topic: string, payload: string, options?: RetainOptions): void
  putEvent(topic: string, payload: string): void
  putVolatile(topic: string, payload: Buffer, kind: 'rssi'): void
}

/** Timing of the retained beacon states. */
export interface FeedTiming {
  minIntervalMs: number
  heartbeatMs: number
}

/** Bytes of the batch between the numbers (JSON text, ASCII). */
const READINGS = Buffer.from(',"readings":[', 'latin1')
const MEASURED_POWER = Buffer.from(',"measuredPower":', 'latin1')
const LAST_SEEN = Buffer.from(',"lastSeen":', 'latin1')
const COUNT = Buffer.from(',"count":', 'latin1')
const BATCH_TAIL = Buffer.from(']}', 'latin1')
const COMMA = 0x2c
const CLOSE = 0x7d

/** One RSSI batch being written (one per partition). */
interface Batch {
  readonly out: BatchWriter
  /** Readings in it this tick. */
  readings: number
}

function valuesOf(b: Beacon): Values {
  return {
    temperature: b.temperature,
    light: b.light,
    accelerometerCount: b.accelerometerCount,
    movingState: b.movingState,
    batteryLevel: b.batteryLevel,
  }
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
  private readonly marks = new MarkTable()
  /** Marks by address: a packet is counted on its beacon's mark, found with one get. */
  private readonly byAddress = new Map<string, number>()
  /** Packets of addresses without a mark (a beacon not announced yet, other devices), per batch. */
  private readonly strays = new Map<string, { n: number }>()
  private previousBatch = -Infinity
  /**
   * Mark numbers by the scanner's slot of their beacon (slotOf()), -1 for none: a scanner's
   * snapshot finds its mark here by index instead of hashing its id into a map of 10,000. A
   * hint, checked by id.
   */
  private readonly bySlot: number[] = []
  /**
   * Beacons whose values the ticks compared with their mark's, in all: a scanner's beacon whose
   * version is the one its mark saw is not compared (its values cannot have changed).
   */
  compared = 0
  /**
   * Beacon states not published because the id cannot be a topic level (a control character, a
   * wildcard: isTopicLevel), counted per tick they were due; the beacon is left out of the batch too.
   */
  invalidIds = 0
  /** `{"gateway":<gw>,"time":` in UTF-8. */
  private readonly batchHead: Buffer
  /** The batch of each partition, written anew every tick into the same buffers. */
  private readonly batches: Batch[]

  constructor(
    private readonly topics: GatewayTopics,
    private readonly timing: FeedTiming,
    private readonly sink: FeedSink,
    private readonly ha: HaAnnouncer | undefined,
    /** RSSI batch partitions (scale-out); 1 publishes the unpartitioned batch of the contract. */
    private readonly partitions = 1,
  ) {
    this.batchHead = Buffer.from(`{"gateway":${JSON.stringify(topics.gateway)},"time":`)
    this.batches = Array.from({ length: partitions }, () => ({ out: new BatchWriter(), readings: 0 }))
  }

  /** One advertisement from the source: counted for the next batch. */
  packet(address: string): void {
    const m = this.byAddress.get(address)
    if (m !== undefined) {
      this.marks.count[m]++
      return
    }
    const counter = this.strays.get(address)
    if (counter === undefined) this.strays.set(address, { n: 1 })
    else counter.n++
  }

  found(beacon: Beacon, now: number): void {
    this.sink.putEvent(this.topics.events, serializeJsonEvent({ event: 'found', time: now, beacon }))
    this.ha?.found(beacon, now)
    this.publishState(beacon, now)
  }

  gone(beacon: Beacon, now: number): void {
    this.sink.putEvent(this.topics.events, serializeJsonEvent({ event: 'gone', time: now, beacon }))
    this.ha?.gone(beacon, now)
    const marks = this.marks
    const m = marks.find(beacon.id)
    if (m >= 0) {
      const slot = slotOf(beacon)
      if (slot !== undefined && this.bySlot[slot] === m) this.bySlot[slot] = -1
      const address = marks.addresses[m]
      if (this.byAddress.get(address) === m) this.byAddress.delete(address)
      marks.remove(m)
    }
    this.sink.putRetained(this.topics.beacon(beacon.id), '')
  }

  /**
   * The update tick: changed events, due states (throttled changes, heartbeats) and the RSSI
   * batch. The batch is written straight into bytes (batch-writer.ts) from each mark's encoded
   * prefix: no reading objects, no strings per reading, no id encoded twice.
   */
  updated(beacons: readonly Beacon[], now: number): void {
    const { minIntervalMs, heartbeatMs } = this.timing
    const since = this.previousBatch
    const marks = this.marks
    const bySlot = this.bySlot
    const batches = this.batches
    for (const batch of batches) batch.readings = 0
    if (this.ha !== undefined) this.discoveryTick(now)
    for (let i = 0; i < beacons.length; i++) {
      const b = beacons[i]
      const slot = slotOf(b)
      let m = slot === undefined || slot >= bySlot.length ? -1 : bySlot[slot]
      if (m < 0 || marks.ids[m] !== b.id) m = marks.find(b.id)
      // Most beacons at most ticks changed nothing but RSSI: their scanner version says so.
      const version = versionOf(b)
      if (m >= 0 && (version === undefined || version !== marks.version[m])) {
        this.compared++
        const changes = diff(marks.values[m], b)
        // diff() brought every value up to b's: the mark has now seen this version.
        marks.version[m] = version ?? Number.NaN
        if (changes !== undefined) {
          this.sink.putEvent(
            this.topics.events,
            serializeJsonEvent({ event: 'changed', time: now, beacon: b, changes }),
          )
          marks.dirty[m] = 1
        }
      }
      if (m < 0 || now - marks.at[m] >= (marks.dirty[m] === 1 ? minIntervalMs : heartbeatMs))
        m = this.publishState(b, now)
      if (m < 0) continue
      if (marks.addresses[m] !== b.address) this.relink(m, b.address)
      if (slot !== undefined) {
        // Grown in order: an array written at a far index first turns into a slow dictionary.
        while (bySlot.length <= slot) bySlot.push(-1)
        bySlot[slot] = m
      }
      // Counted packets decide, not lastSeen alone: a packet at the tick's own ms may land after it.
      // A scanner's snapshot carries its packet total: no work per packet at all.
      const total = packetsHeard(b)
      let count = marks.count[m]
      marks.count[m] = 0
      if (total !== undefined) {
        count = total - marks.total[m]
        marks.total[m] = total
      }
      if (count > 0 || b.lastSeen > since) this.reading(batches[marks.partition[m]], m, b, count > 0 ? count : 1, now)
    }
    this.strays.clear()
    this.previousBatch = now
    // A tick in which nothing was heard sends no batch (nor does a partition without readings).
    for (let n = 0; n < batches.length; n++) {
      const batch = batches[n]
      if (batch.readings === 0) continue
      batch.out.bytes(BATCH_TAIL)
      this.sink.putVolatile(
        this.partitions > 1 ? this.topics.rssiPartition(n) : this.topics.rssi,
        batch.out.take(),
        'rssi',
      )
    }
  }

  /**
   * One reading, in the contract's key order: what JSON.stringify of an `RssiReading`
   * (payloads.ts) gives, with the smoothed RSSI to a tenth of a dB.
   */
  private reading(batch: Batch, m: number, b: Beacon, count: number, now: number): void {
    const out = batch.out
    if (batch.readings++ === 0) {
      out.reset()
      out.bytes(this.batchHead)
      out.number(now)
      out.bytes(READINGS)
    } else {
      out.char(COMMA)
    }
    this.marks.writePrefix(m, out)
    out.tenths(b.smoothedRssi)
    const mp = b.measuredPower
    if (mp !== undefined) {
      out.bytes(MEASURED_POWER)
      out.number(mp)
    }
    out.bytes(LAST_SEEN)
    out.number(b.lastSeen)
    out.bytes(COUNT)
    out.number(count)
    out.char(CLOSE)
  }

  /**
   * Discovery on the tick: a beacon whose dwell is over gets its state published this tick, the
   * announcement with it.
   */
  private discoveryTick(now: number): void {
    for (const id of (this.ha as HaAnnouncer).woken(now)) {
      const m = this.marks.find(id)
      if (m >= 0) this.marks.at[m] = -Infinity
    }
  }

  /**
   * Removes the discovery configs of beacons gone for the expiry. On a timer of its own: a
   * scanner with nothing in range may pause its update tick.
   */
  expireDiscovery(now: number): void {
    if (this.ha !== undefined)
      for (const c of this.ha.expired(now)) this.sink.putRetained(c.topic, c.payload, { always: true })
  }

  /** After a reconnect: every beacon's current state, replacing whatever waited. */
  refresh(beacons: readonly Beacon[], now: number): void {
    for (const b of beacons) this.publishState(b, now)
  }

  /**
   * Publishes the beacon's state (and its due discovery configs); returns its mark, or -1 for an
   * id that cannot be a topic level (skipped and counted: the broker would refuse its topic).
   */
  private publishState(beacon: Beacon, now: number): number {
    const marks = this.marks
    let m = marks.find(beacon.id)
    // Only a beacon without a mark can have a bad id: a mark is made after this check passed.
    if (m < 0 && !isTopicLevel(beacon.id)) {
      this.invalidIds++
      return -1
    }
    if (this.ha !== undefined) for (const c of this.ha.due(beacon, now)) this.sink.putRetained(c.topic, c.payload)
    this.sink.putRetained(this.topics.beacon(beacon.id), serializeBeacon(beacon))
    if (m < 0) {
      const partition = this.partitions > 1 ? rssiPartition(beacon.id, this.partitions) : 0
      m = marks.add(beacon, valuesOf(beacon), versionOf(beacon), partition, now)
      this.relink(m, beacon.address)
    } else {
      marks.at[m] = now
      marks.dirty[m] = 0
    }
    return m
  }

  /** Counts the beacon's packets under `address` from now on, with those already counted there. */
  private relink(m: number, address: string): void {
    const marks = this.marks
    if (this.byAddress.get(marks.addresses[m]) === m) this.byAddress.delete(marks.addresses[m])
    marks.addresses[m] = address
    this.byAddress.set(address, m)
    const stray = this.strays.get(address)
    if (stray !== undefined) {
      marks.count[m] += stray.n
      this.strays.delete(address)
    }
  }
}
