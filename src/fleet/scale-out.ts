/**
 * Several trackers sharing the beacons (docs/fleet.md "Scaling out"). Gateways publish their
 * RSSI batches in P partitions by beacon hash; each tracker announces itself with a retained
 * `<p>/fleet/trackers/<id>` status whose last will says `offline`, computes from the live
 * trackers which partitions it holds (rendezvous hashing, partitions.ts) and subscribes to
 * those only, through `$share/<group>/…`: while two trackers both hold a partition during a
 * rebalance, each batch still reaches one of them, not both.
 *
 * A partition changes hands without a `gone` or `found`: the tracker that loses it lets its
 * beacons go silently, and the one that gains it first reads their retained fleet states
 * (`<p>/fleet/beacons/+`, kept per beacon; retained-reader.ts) and only then subscribes to the
 * partition. The retained state is at most `publishIntervalMs` old, well inside the gone
 * timeout; one that cannot be seeded is handed to the ghost check, which clears it unless a
 * gateway confirms that beacon in time.
 */

import { randomBytes } from 'node:crypto'
import type { MqttLink } from '../mqtt/connection.js'
import { rssiPartition } from '../mqtt/partition.js'
import { PACKAGE_VERSION } from '../mqtt/payloads.js'
import { partitionsOf } from './partitions.js'
import type { FleetTopics } from './fleet-topics.js'
import type { FleetState } from './fleet-state.js'
import type { FleetScaleOutOptions } from './tracker-types.js'
import type { RetainedReader } from './retained-reader.js'
import { parseSeed } from './wire.js'
import { resolveScaleOut } from './scale-out-options.js'

/** What the coordinator needs of its tracker. */
export interface ScaleOutHost {
  /** The broker link, once open. */
  link(): MqttLink | undefined
  now(): number
  /** The fused state: beacons are seeded into it and released from it. */
  readonly state: FleetState
  /** The tracker's fleet topics: seeded beacons were published by another tracker. */
  readonly topics: FleetTopics
  /** Reads the retained fleet states (shared with the tracker's ghost check). */
  reader(): RetainedReader
  /** A retained state of a partition taken over that cannot be seeded: cleared unless a gateway confirms it in time. */
  suspect(id: string): void
  /** The partitions held changed. */
  changed(info: { partitions: number[]; trackers: string[] }): void
  /** Puts this tracker's status in the outbox again (its payload comes from {@link ScaleOut.status}). */
  announce(): void
  error(error: Error): void
}

/** Peers tracked at most: the ids come from the network. */
const MAX_TRACKERS = 1024
/**
 * A live tracker republishes its status this often; a peer not heard for three times as long is
 * presumed dead (a broker that lost its will).
 */
const HEARTBEAT_MS = 30_000

/** The scale-out side of one tracker. */
export class ScaleOut {
  readonly trackerId: string
  readonly count: number
  /** `<p>/fleet/trackers/<id>`: this tracker's retained status; its last will is `offline`. */
  readonly statusTopic: string
  private readonly group: string
  private readonly trackersBase: string
  /** Other trackers online → when their status last arrived (tracker clock). */
  private readonly peers = new Map<string, number>()
  /** Partitions subscribed on the current connection. */
  private readonly held = new Set<number>()
  private session = ''
  private synced = false
  private lastAnnounced = -Infinity
  private dirty = false
  private running: Promise<void> | undefined
  private stopped = false
  /** Beacons taken over from retained states and let go; retained states not of the published shape. */
  readonly counters = { seeded: 0, released: 0, unparsable: 0, peersRefused: 0 }

  constructor(
    options: FleetScaleOutOptions,
    private readonly prefix: string,
    private readonly host: ScaleOutHost,
  ) {
    const { partitions, id, g } = resolveScaleOut(options)
    this.trackerId = id
    this.count = partitions
    this.group = g
    this.trackersBase = `${prefix}/fleet/trackers/`
    this.statusTopic = `${this.trackersBase}${id}`
  }

  /** Whether beacon `id` is in a partition this tracker holds now (its retained state is this tracker's). */
  holds(id: string): boolean {
    return this.held.has(rssiPartition(id, this.count))
  }

  /** What to subscribe on every connection besides the gateways' status (and the reader's sync topic). */
  get filters(): string[] {
    return [`${this.trackersBase}+`]
  }

  /** The shared subscription of partition `n`. */
  partitionFilter(n: number): string {
    return `$share/${this.group}/${this.prefix}/gateways/+/rssi/${n}`
  }

  /** This tracker's status payload: the gateway status shape plus its partition count and session. */
  status(state: 'online' | 'offline', time: number): string {
    return JSON.stringify({
      state,
      time,
      version: PACKAGE_VERSION,
      partitions: this.count,
      ...(state === 'online' ? { session: this.session } : {}),
    })
  }

  /**
   * A new connection (clean session: nothing subscribed). A fresh session nonce goes into the
   * status; the echo of that status proves every retained peer status has arrived before it,
   * and only then are partitions chosen.
   */
  connected(): void {
    this.held.clear()
    this.synced = false
    this.session = randomBytes(6).toString('hex')
    this.lastAnnounced = this.host.now()
    this.host.announce()
  }

  /** Lost the connection: the broker dropped the subscriptions with it. */
  disconnected(): void {
    this.held.clear()
    this.synced = false
    this.host.reader().cancel()
  }

  /** Every second: heartbeat, and peers whose status stopped presumed gone. */
  tick(now: number): void {
    if (this.synced && now - this.lastAnnounced >= HEARTBEAT_MS) {
      this.lastAnnounced = now
      this.host.announce()
    }
    let changed = false
    for (const [id, at] of this.peers) {
      if (now - at >= 3 * HEARTBEAT_MS) {
        this.peers.delete(id)
        changed = true
      }
    }
    if (changed) this.rebalance()
  }

  /** A message under `<p>/fleet/` (the reader's aside); true when it was this coordinator's. */
  onMessage(topic: string, payload: Buffer): boolean {
    if (!topic.startsWith(this.trackersBase)) return false
    const rest = topic.slice(this.trackersBase.length)
    if (!rest.includes('/')) this.onPeerStatus(rest, payload)
    return true
  }

  /** A beacon of a partition being taken over, from its retained fleet state: no `found`. */
  private seedOne(id: string, payload: Buffer): void {
    let body: unknown
    try {
      body = JSON.parse(payload.toString('utf8'))
    } catch {
      body = undefined
    }
    const s = parseSeed(id, body)
    if (s === undefined) {
      this.counters.unparsable++
      // Nobody will publish over it unless a gateway hears that beacon: not to be left present.
      this.host.suspect(id)
      return
    }
    const now = this.host.now()
    if (!this.host.state.seed(s, now)) {
      if (this.host.state.get(id, now) === undefined) this.host.suspect(id)
      return
    }
    this.counters.seeded++
    this.host.topics.adopt(id, now)
  }

  /** Another tracker holds these partitions now: their beacons go quietly (no `gone`). */
  private release(partitions: ReadonlySet<number>): void {
    const mine = (id: string): boolean => partitions.has(rssiPartition(id, this.count))
    this.host.topics.release(mine)
    this.counters.released += this.host.state.release(mine)
  }

  private onPeerStatus(id: string, payload: Buffer): void {
    let state: unknown
    let session: unknown
    try {
      const body =
        payload.length === 0 ? {} : (JSON.parse(payload.toString('utf8')) as { state?: unknown; session?: unknown })
      state = body.state
      session = body.session
    } catch {
      return
    }
    if (id === this.trackerId) {
      // Our own status came back: every retained peer status was delivered before it.
      if (state === 'online' && session === this.session && !this.synced) {
        this.synced = true
        this.rebalance()
      }
      return
    }
    const had = this.peers.has(id)
    if (state === 'online') {
      if (!had && this.peers.size >= MAX_TRACKERS) {
        this.counters.peersRefused++
        return
      }
      this.peers.set(id, this.host.now())
      if (!had) this.rebalance()
    } else if (had) {
      this.peers.delete(id)
      this.rebalance()
    }
  }

  /** Recomputes what this tracker holds and moves there; serialized, coalesced. */
  private rebalance(): void {
    this.dirty = true
    if (!this.synced || this.running !== undefined || this.stopped) return
    this.running = this.run().finally(() => {
      this.running = undefined
      if (this.dirty && this.synced) this.rebalance()
    })
  }

  private async run(): Promise<void> {
    while (this.dirty && this.synced && !this.stopped) {
      this.dirty = false
      const trackers = [this.trackerId, ...this.peers.keys()].sort()
      const want = new Set(partitionsOf(this.trackerId, trackers, this.count))
      const lost = new Set([...this.held].filter((n) => !want.has(n)))
      const gained = [...want].filter((n) => !this.held.has(n))
      if (lost.size === 0 && gained.length === 0) continue
      const link = this.host.link()
      if (link === undefined) return
      try {
        if (lost.size > 0) {
          await link.unsubscribe([...lost].map((n) => this.partitionFilter(n)))
          for (const n of lost) this.held.delete(n)
          this.release(lost)
        }
        if (gained.length > 0) {
          await this.seed(link, new Set(gained))
          await link.subscribe(
            gained.map((n) => this.partitionFilter(n)),
            0,
          )
          for (const n of gained) this.held.add(n)
        }
      } catch (error) {
        // The connection went meanwhile: the next one starts over from nothing held.
        this.host.error(error instanceof Error ? error : new Error(String(error)))
        return
      }
      this.host.changed({ partitions: [...this.held].sort((a, b) => a - b), trackers })
    }
  }

  /** Seeds the beacons of partitions `want` from their retained fleet states (the reader's one read). */
  private async seed(link: MqttLink, want: ReadonlySet<number>): Promise<void> {
    await this.host.reader().read(link, (id, payload) => {
      if (want.has(rssiPartition(id, this.count))) this.seedOne(id, payload)
    })
  }

  /** Stops rebalancing (the tracker is stopping). */
  stop(): void {
    this.stopped = true
    this.host.reader().cancel()
  }
}
