/**
 * What a tracker publishes about beacons: the retained `<p>/fleet/beacons/<id>` state (on found
 * and room changes at once, otherwise at most every `publishIntervalMs`, cleared on gone) and,
 * with Home Assistant, the configs of each beacon that passed the discovery gate (fleet-ha-configs.ts).
 */

import type { Outbox } from '../mqtt/outbox.js'
import { stableHash } from '../mqtt/partition.js'
import type { FleetBeacon } from './fleet-beacon.js'
import { HaGate } from '../mqtt/ha-gate.js'
import type { HaGateOptions, HaGateStats } from '../mqtt/ha-gate.js'
import type { MqttLink } from '../mqtt/connection.js'
import { isStableIdentity } from '../mqtt/stable-identity.js'
import { FleetHaConfigs } from './fleet-ha-configs.js'

/** A beacon's name, if it has one. */
type NameOf = (id: string) => string | undefined

/** A beacon that moved is republished at most this often (docs/fleet-reference.md "The fleet topics"). */
export const MOVE_REPUBLISH_MS = 1000

/** The fleet's beacon topics, through the tracker's outbox. */
export class FleetTopics {
  /** When each present beacon's fleet topic was last put in the outbox. */
  private readonly published = new Map<string, number>()
  /**
   * Beacons taken over whose state another tracker published and this one has not yet: the
   * outbox skips a clear of a topic it never sent, but this one is on the broker.
   */
  private readonly inherited = new Set<string>()
  /** Beacons that moved less than {@link MOVE_REPUBLISH_MS} after their last put: put on a later tick. */
  private readonly movedSoon = new Set<string>()
  /** Which beacons have Home Assistant configs: dwell, cap and expiry (ha-gate.ts). */
  private readonly gate: HaGate | undefined
  /** Which of those configs are out, and with which name. */
  private readonly configs: FleetHaConfigs | undefined

  constructor(
    private readonly outbox: Outbox,
    private readonly topicPrefix: string,
    private readonly publishIntervalMs: number,
    ha: { prefix: string; availability: boolean; gate: HaGateOptions } | undefined,
    /** The fleet's IRK file's names: an `irk:<name>` it holds is a stable identity. */
    private readonly holdsIdentity?: (name: string) => boolean,
  ) {
    this.gate = ha === undefined ? undefined : new HaGate(ha.gate)
    this.configs = ha === undefined ? undefined : new FleetHaConfigs(outbox, topicPrefix, ha)
  }

  /** `<p>/fleet/beacons/<id>` */
  beaconTopic(id: string): string {
    return `${this.topicPrefix}/fleet/beacons/${id}`
  }

  /** The beacon's current state, now. */
  put(b: FleetBeacon): void {
    this.published.set(b.id, b.time)
    this.movedSoon.delete(b.id)
    this.inherited.delete(b.id)
    this.outbox.putRetained(this.beaconTopic(b.id), JSON.stringify(b))
    // An announced beacon whose name became known, or with a value that has no entity yet.
    if (this.gate?.has(b.id) === true) this.configs?.update(b)
  }

  /**
   * The beacon moved by `moveThresholdM`: its state goes out now, or, when it went out less than
   * {@link MOVE_REPUBLISH_MS} ago, on the first tick after that ({@link movedDue}).
   */
  moved(b: FleetBeacon): void {
    const last = this.published.get(b.id)
    if (last === undefined || b.time - last >= MOVE_REPUBLISH_MS) this.put(b)
    else this.movedSoon.add(b.id)
  }

  /** Whether a move of the beacon waits to be published and may be at `now`. */
  movedDue(id: string, now: number): boolean {
    return this.movedSoon.has(id) && now - (this.published.get(id) ?? -Infinity) >= MOVE_REPUBLISH_MS
  }

  /**
   * The broker kept no session and may have lost its retained messages (a restart without
   * persistence): the present beacons' states and every discovery config go out again.
   */
  republish(present: readonly FleetBeacon[]): void {
    for (const b of present) this.put(b)
    this.configs?.reannounce()
  }

  /** Home Assistant announced itself (its birth): every discovery config again. */
  reannounce(): void {
    this.configs?.reannounce()
  }

  /**
   * Gone: its retained state is cleared. `always`: also when this run never published it (a
   * state another run or tracker left).
   */
  clear(id: string, { always = false }: { always?: boolean } = {}): void {
    this.published.delete(id)
    this.movedSoon.delete(id)
    this.outbox.putRetained(this.beaconTopic(id), '', { always: this.inherited.delete(id) || always })
  }

  /** A beacon whose state another tracker published at `time` (scale-out takeover). */
  adopt(id: string, time: number): void {
    this.published.set(id, time)
    this.inherited.add(id)
    // Its config is this tracker's to keep (announced again after the dwell) and to expire.
    this.gate?.found(id, time)
  }

  /** Beacons let go to another tracker: their retained state is now that tracker's. */
  release(which: (id: string) => boolean): void {
    for (const id of this.published.keys()) {
      if (!which(id)) continue
      this.published.delete(id)
      this.movedSoon.delete(id)
      // Its configs are the new tracker's to keep or expire now.
      this.gate?.forget(id)
      this.configs?.drop(id)
    }
    for (const id of this.inherited) if (which(id)) this.inherited.delete(id)
  }

  /**
   * True when the beacon's state is due for a refresh at `now`: once per `publishIntervalMs`,
   * when `now` crosses the beacon's own phase (a hash of its id). Beacons found in the same
   * second (a tracker start, a gateway reconnecting) are refreshed spread over the interval
   * rather than all in one tick every interval: at 12,500 beacons that burst held the event
   * loop for tens of ms.
   */
  due(id: string, now: number, moving?: (id: string) => boolean): boolean {
    if (this.movedDue(id, now)) return true
    const last = this.published.get(id)
    if (last === undefined) return true
    // A tag that says it is moving (its accelerometer) goes out every second: the estimate of a
    // walking tag trails it and may creep less than moveThresholdM a second at the start of a
    // walk and at each turn, which `moved` alone would leave unpublished.
    if (moving !== undefined && now - last >= MOVE_REPUBLISH_MS && moving(id)) return true
    const every = this.publishIntervalMs
    const phase = stableHash(id) % every
    return Math.floor((now - phase) / every) > Math.floor((last - phase) / every)
  }

  /**
   * Forgotten (evicted, or by hand): its retained state and every discovery config are cleared,
   * also when this run never published them.
   */
  forget(id: string): void {
    this.clear(id, { always: true })
    this.gate?.forget(id)
    this.configs?.remove(id)
  }

  /** Found at `now`: its dwell starts (Home Assistant), none for a beacon the user `vouched` for by naming it. */
  found(id: string, now: number, { vouched = false }: { vouched?: boolean } = {}): void {
    this.gate?.found(id, now, { vouched })
  }

  /** Gone: its retained state is cleared, and its discovery config expires after `expireMs`. */
  gone(id: string, now: number): void {
    this.clear(id)
    this.gate?.gone(id, now)
  }

  /**
   * Discovery on the tick: the configs of each beacon whose dwell is over and whom the gate admits
   * (`present` gives its fused state, if still there), and empty configs for those gone for
   * `expireMs`. Configs stay while the beacon is merely gone: Home Assistant then shows it
   * `not_home`, which is the point of away detection. A beacon the user vouched for (`vouched`,
   * given its fused state) has no dwell.
   */
  discovery(
    now: number,
    present: (id: string) => FleetBeacon | undefined,
    listed: (id: string) => boolean = () => true,
    vouched: (b: FleetBeacon) => boolean = () => false,
  ): void {
    const gate = this.gate
    const configs = this.configs
    if (gate === undefined || configs === undefined) return
    for (const id of gate.woken(now)) {
      const b = present(id)
      // Already announced (a config of an earlier run): admit() only stops its expiry.
      const announced = gate.has(id)
      if (b === undefined) continue
      // With a `beacons` list in the site file, a beacon it does not name is not announced; the
      // serial number that names it may arrive later (the gateways' beacon states), so look again.
      if (!listed(id)) {
        if (isStableIdentity(id, this.holdsIdentity)) gate.recheck(id, now)
        continue
      }
      if (
        !gate.admit(id, isStableIdentity(id, this.holdsIdentity), b.firstSeen, b.lastSeen, now, vouched(b)) ||
        announced
      )
        continue
      configs.update(b)
    }
    for (const id of gate.expired(now)) configs.remove(id)
  }

  /**
   * The site's names changed (FleetTracker.setSite): an announced beacon (present, or away and
   * still named) that is no longer `listed` has its configs emptied, one renamed gets them again
   * with its new name (`nameOf`), and a present beacon not announced is looked at on the next
   * tick (it may be listed now).
   */
  names(now: number, present: readonly FleetBeacon[], listed: (id: string) => boolean, nameOf: NameOf): void {
    const gate = this.gate
    const configs = this.configs
    if (gate === undefined || configs === undefined) return
    const here = new Set(present.map((b) => b.id))
    for (const id of gate.announcedIds()) {
      const name = nameOf(id)
      // Away, a beacon named by the serial number its gateways reported may not be known by it
      // now: its configs are left as they are rather than emptied by mistake.
      if (name === undefined && !here.has(id)) continue
      if (listed(id)) configs.rename(id, name)
      else {
        gate.forget(id)
        configs.remove(id)
      }
    }
    // Woken now, not after a dwell: the gate still asks a beacon the user did not name for its dwell.
    for (const b of present) if (!gate.has(b.id) && listed(b.id)) gate.found(b.id, now, { vouched: true })
  }

  /**
   * Reads the configs an earlier run (or an earlier version's gateway) left on the fleet's topics
   * (fleet-ha-configs.ts), once, after the first connection: each kept under the gate and written
   * again in the current form, or removed.
   */
  sweep(
    link: MqttLink,
    now: number,
    nameOf: (id: string) => string | undefined = () => undefined,
  ): Promise<number> | undefined {
    const gate = this.gate
    if (gate === undefined || this.configs === undefined) return undefined
    return this.configs.sweep(link, gate, now, nameOf, this.holdsIdentity)
  }

  /** Discovery counters, with Home Assistant. */
  get discoveryStats(): HaGateStats | undefined {
    return this.gate?.stats
  }
}
