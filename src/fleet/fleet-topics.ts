/**
 * What a tracker publishes about beacons: the retained `<p>/fleet/beacons/<id>` state (on found
 * and room changes at once, otherwise at most every `publishIntervalMs`, cleared on gone) and,
 * with Home Assistant, one device_tracker config per beacon before its first state.
 */

import type { Outbox } from '../mqtt/outbox.js'
import { stableHash } from '../mqtt/partition.js'
import type { FleetBeacon } from './fusion.js'
import { haTrackerConfig, haTrackerConfigTopic } from './home-assistant.js'

const MAX_ANNOUNCED = 100_000

/** The fleet's beacon topics, through the tracker's outbox. */
export class FleetTopics {
  /** When each present beacon's fleet topic was last put in the outbox. */
  private readonly published = new Map<string, number>()
  /**
   * Beacons taken over whose state another tracker published and this one has not yet: the
   * outbox skips a clear of a topic it never sent, but this one is on the broker.
   */
  private readonly inherited = new Set<string>()
  /** Beacons whose device_tracker config went out in this run (insertion order: oldest first). */
  private readonly announced = new Set<string>()

  constructor(
    private readonly outbox: Outbox,
    private readonly topicPrefix: string,
    private readonly publishIntervalMs: number,
    private readonly ha: { prefix: string; availability: boolean } | undefined,
  ) {}

  /** `<p>/fleet/beacons/<id>` */
  beaconTopic(id: string): string {
    return `${this.topicPrefix}/fleet/beacons/${id}`
  }

  /** The beacon's current state, now. */
  put(b: FleetBeacon): void {
    this.published.set(b.id, b.time)
    this.inherited.delete(b.id)
    this.outbox.putRetained(this.beaconTopic(b.id), JSON.stringify(b))
  }

  /**
   * Gone: its retained state is cleared. `always`: also when this run never published it (a
   * state another run or tracker left).
   */
  clear(id: string, always = false): void {
    this.published.delete(id)
    this.outbox.putRetained(this.beaconTopic(id), '', this.inherited.delete(id) || always)
  }

  /** A beacon whose state another tracker published at `time` (scale-out takeover). */
  adopt(id: string, time: number): void {
    this.published.set(id, time)
    this.inherited.add(id)
  }

  /** Beacons let go to another tracker: their retained state is now that tracker's. */
  release(which: (id: string) => boolean): void {
    for (const id of this.published.keys()) if (which(id)) this.published.delete(id)
    for (const id of this.inherited) if (which(id)) this.inherited.delete(id)
  }

  /**
   * True when the beacon's state is due for a refresh at `now`: once per `publishIntervalMs`,
   * when `now` crosses the beacon's own phase (a hash of its id). Beacons found in the same
   * second (a tracker start, a gateway reconnecting) are refreshed spread over the interval
   * rather than all in one tick every interval: at 12,500 beacons that burst held the event
   * loop for tens of ms.
   */
  due(id: string, now: number): boolean {
    const last = this.published.get(id)
    if (last === undefined) return true
    const every = this.publishIntervalMs
    const phase = stableHash(id) % every
    return Math.floor((now - phase) / every) > Math.floor((last - phase) / every)
  }

  /**
   * The device_tracker config, once per beacon and run, before its first state. It stays when the
   * beacon goes: Home Assistant then shows it `not_home`, which is the point of away detection.
   */
  announce(id: string): void {
    const ha = this.ha
    if (ha === undefined || this.announced.has(id)) return
    // Bounded: a stream of passing tags must not grow it forever; one forgotten is announced again.
    if (this.announced.size >= MAX_ANNOUNCED) this.announced.delete(this.announced.values().next().value as string)
    this.announced.add(id)
    this.outbox.putRetained(haTrackerConfigTopic(ha.prefix, id), JSON.stringify(haTrackerConfig(this.topicPrefix, id, ha.availability)))
  }
}
