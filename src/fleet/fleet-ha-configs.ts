/**
 * Which Home Assistant configs of the beacons the gate admitted are out (home-assistant.ts), with
 * which name, and the sweep of the configs an earlier run or an earlier version's gateway left on
 * the fleet's topics. At most one entry per announced beacon: bounded by the gate's cap.
 */

import type { Outbox } from '../mqtt/outbox.js'
import type { MqttLink } from '../mqtt/connection.js'
import type { HaGate } from '../mqtt/ha-gate.js'
import { HA_FIELD_SPECS } from '../mqtt/ha-fields.js'
import type { HaField } from '../mqtt/ha-fields.js'
import { sweepRetainedConfigs } from '../mqtt/ha-sweep.js'
import { isTopicLevel } from '../util/topic-level.js'
import { isStableIdentity } from '../mqtt/stable-identity.js'
import type { FleetBeacon } from './fleet-beacon.js'
import {
  FLEET_HA_FIELDS,
  haFleetConfigTopics,
  haRoomConfig,
  haRoomConfigTopic,
  haTrackerConfig,
  haTrackerConfigTopic,
  haValueConfig,
  haValueConfigTopic,
} from './home-assistant.js'

/** The configs of one beacon that are out. */
interface Announced {
  /** The name they carry (undefined: the device is named by its id). */
  name: string | undefined
  /** The device_tracker and the Room sensor. */
  base: boolean
  fields: Set<HaField>
}

/** Retained configs read by the sweep per beacon the gate may hold: its 7 topics, and as many foreign ones. */
const SWEEP_MESSAGES_PER_BEACON = 2 * (2 + FLEET_HA_FIELDS.length)

/** The fleet's configs, through the tracker's outbox. */
export class FleetHaConfigs {
  private readonly out = new Map<string, Announced>()

  constructor(
    private readonly outbox: Outbox,
    private readonly topicPrefix: string,
    private readonly ha: { prefix: string; availability: boolean },
  ) {}

  /**
   * An admitted beacon's state: its device_tracker and Room configs if not out yet, a value
   * config for each fused value it has now and had not, and all of them again once when its
   * name became known (or changed): Home Assistant names the device from the config.
   */
  update(b: FleetBeacon): void {
    const had = this.out.get(b.id)
    const renamed = had !== undefined && b.name !== undefined && had.name !== b.name
    const entry = had ?? { name: b.name, base: false, fields: new Set<HaField>() }
    if (b.name !== undefined) entry.name = b.name
    this.out.set(b.id, entry)
    if (!entry.base || renamed) this.putBase(b.id, entry)
    for (const field of FLEET_HA_FIELDS) {
      const has = b.values !== undefined && HA_FIELD_SPECS[field].has(b.values)
      if ((has && !entry.fields.has(field)) || (renamed && entry.fields.has(field))) this.putValue(b.id, field, entry)
    }
  }

  /**
   * The beacon's name is now `name` (an edited site file; undefined: named by its id again): its
   * configs that are out go out again with it, so Home Assistant renames the entities.
   */
  rename(id: string, name: string | undefined): void {
    const entry = this.out.get(id)
    if (entry === undefined || entry.name === name) return
    entry.name = name
    if (entry.base) this.putBase(id, entry)
    for (const field of entry.fields) this.putValue(id, field, entry)
  }

  /** Every config that is out, once more (a broker that lost its retained messages, Home Assistant's birth). */
  reannounce(): void {
    for (const [id, entry] of this.out) {
      if (entry.base) this.putBase(id, entry)
      for (const field of entry.fields) this.putValue(id, field, entry)
    }
  }

  /** Every config of the beacon emptied (also those this run never wrote). */
  remove(id: string): void {
    this.out.delete(id)
    for (const topic of haFleetConfigTopics(this.ha.prefix, id)) this.outbox.putRetained(topic, '', { always: true })
  }

  /** Let go of without touching the broker (another tracker owns its configs now). */
  drop(id: string): void {
    this.out.delete(id)
  }

  /**
   * Reads the retained configs on the fleet's topics once (ha-sweep.ts): each one we would write
   * for a stable id is kept under the gate and written again in the current form (a legacy
   * device_tracker with a state topic, a gateway's value sensor); the rest of ours are removed.
   */
  sweep(
    link: MqttLink,
    gate: HaGate,
    now: number,
    nameOf: (id: string) => string | undefined,
    holdsIdentity?: (name: string) => boolean,
  ): Promise<number> {
    const ha = this.ha.prefix
    return sweepRetainedConfigs(
      link,
      gate,
      {
        filters: [`${ha}/device_tracker/+/config`, `${ha}/sensor/+/config`, `${ha}/binary_sensor/+/config`],
        beaconOf: (topic, config) => {
          const source = typeof config.state_topic === 'string' ? config.state_topic : config.json_attributes_topic
          const id = typeof source === 'string' ? this.beaconOfSource(source) : undefined
          return id !== undefined && haFleetConfigTopics(ha, id).includes(topic) ? id : undefined
        },
        // An irk:<name> of the fleet's IRK file keeps its configs too.
        stable: (id) => isStableIdentity(id, holdsIdentity),
        kept: (id, topic) => this.rewrite(id, topic, nameOf(id)),
        remove: (topic) => this.outbox.putRetained(topic, '', { always: true }),
      },
      now,
      { maxMessages: SWEEP_MESSAGES_PER_BEACON * gate.options.maxBeacons, windowMs: 2000 },
    )
  }

  /**
   * The beacon id of a state topic a config of ours reads: the fleet's presence or state, or a
   * gateway's own beacon state (the value sensors of earlier versions).
   */
  private beaconOfSource(source: string): string | undefined {
    const p = this.topicPrefix
    for (const base of [`${p}/fleet/presence/`, `${p}/fleet/beacons/`]) {
      if (source.startsWith(base)) return checked(source.slice(base.length))
    }
    const gateways = `${p}/gateways/`
    if (!source.startsWith(gateways)) return undefined
    const [gw, level, id, ...more] = source.slice(gateways.length).split('/')
    return more.length === 0 && level === 'beacons' && isTopicLevel(gw) ? checked(id) : undefined
  }

  /** A kept config, written again as this version writes it. */
  private rewrite(id: string, topic: string, name: string | undefined): void {
    let entry = this.out.get(id)
    if (entry === undefined) {
      entry = { name, base: false, fields: new Set() }
      this.out.set(id, entry)
    }
    if (topic === haTrackerConfigTopic(this.ha.prefix, id) || topic === haRoomConfigTopic(this.ha.prefix, id)) {
      if (!entry.base) this.putBase(id, entry)
      return
    }
    const field = FLEET_HA_FIELDS.find((f) => haValueConfigTopic(this.ha.prefix, id, f) === topic)
    if (field !== undefined && !entry.fields.has(field)) this.putValue(id, field, entry)
  }

  private putBase(id: string, entry: Announced): void {
    entry.base = true
    const { prefix, availability } = this.ha
    this.outbox.putRetained(
      haTrackerConfigTopic(prefix, id),
      JSON.stringify(haTrackerConfig(this.topicPrefix, id, availability, entry.name)),
    )
    this.outbox.putRetained(
      haRoomConfigTopic(prefix, id),
      JSON.stringify(haRoomConfig(this.topicPrefix, id, availability, entry.name)),
    )
  }

  private putValue(id: string, field: HaField, entry: Announced): void {
    entry.fields.add(field)
    const { prefix, availability } = this.ha
    this.outbox.putRetained(
      haValueConfigTopic(prefix, id, field),
      JSON.stringify(haValueConfig(this.topicPrefix, id, field, availability, entry.name)),
    )
  }
}

function checked(id: string | undefined): string | undefined {
  return isTopicLevel(id) ? id : undefined
}
