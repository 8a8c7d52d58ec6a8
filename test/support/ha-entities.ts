/**
 * What one Home Assistant MQTT entity (sensor, binary_sensor, device_tracker) does with each
 * message, and the state it then shows. The rules, taken from Home Assistant's source (facts,
 * not code):
 * - mqtt/sensor.py `_update_state`: a message (any message) on the state topic first resets the
 *   `expire_after` timer; the rendered value `None` means unknown; a sensor that expects a number
 *   (device class other than the non-numeric ones, a unit, a state class or a display precision:
 *   sensor/__init__.py `_numeric_state_expected`) ignores an empty value and takes any other
 *   text, which sensor/__init__.py `state` then rejects when it is not a finite number: the write
 *   fails ("Exception raised while updating state") and the state machine keeps the old state;
 *   a text sensor longer than 255 characters (mqtt/util.py `check_state_too_long`,
 *   core.py MAX_LENGTH_STATE_STATE) falls through to the datetime parse and becomes unknown.
 *   `mqtt_async_added_to_hass` restores the last state after a restart when `expire_after` is set,
 *   the state was not unknown/unavailable and it has not expired by then.
 * - mqtt/binary_sensor.py: empty rendered value ignored; payload_on/payload_off (defaults ON/OFF)
 *   → on/off; `None` → unknown; anything else is logged and ignored; the same `expire_after` and
 *   restore after a restart.
 * - mqtt/device_tracker.py (home-assistant/core, current): `state_topic` is optional when
 *   `json_attributes_topic` is set; state_topic, value_template, payload_home, payload_not_home and
 *   payload_reset are deprecated (they stop working in 2027.1) but still read: an empty rendered
 *   value is ignored; payload_home → home, payload_not_home → not_home, payload_reset (default
 *   `None`) → no location; anything else stores the RAW payload (msg.payload, not the rendered
 *   value) as the location name. `_process_update_extra_state_attributes`, on the JSON attributes:
 *   if `latitude` or `longitude` is among them → the location name is reset, the coordinates are
 *   set (both numbers, else cleared with a warning) and in_zones is cleared; elif `in_zones` is
 *   among them → it must be a list (else a warning and nothing changes); the coordinates are
 *   cleared and in_zones becomes the zones among HA's zone entities matching each reported string
 *   as an entity id (`zone.home`), an object id (`home` → `zone.home`) or a zone's friendly name
 *   (`Home`), unknown ones dropped. The attributes shown exclude gps_accuracy, in_zones, latitude
 *   and longitude.
 * - device_tracker TrackerEntity.state (developers.home-assistant.io blog 2026-06-15 "Changes to
 *   device tracker entity models", and the device tracker entity docs): the location name wins;
 *   else coordinates → the zone containing them (non-passive zones by size, then distance:
 *   zone.home → home, none → not_home, other → its name); else in_zones not None → empty →
 *   not_home, otherwise the first zone by size (zone.home → home, other → its name); else unknown.
 * - helpers/entity.py: a state over 255 characters is written as unknown; unavailable is written
 *   without asking the platform for its state.
 * - mqtt/entity.py MqttAvailabilityMixin: per configured availability topic a flag (initially
 *   false) and a "latest" flag (initially false); a message is looked up by its own topic among
 *   the configured topics, so one that arrived through a wildcard topic raises KeyError (logged,
 *   nothing changes); its payload (after the entry's template) equal to payload_available
 *   (default `online`) / payload_not_available (default `offline`) sets both flags; anything
 *   else changes nothing. Mode latest → the latest flag, any → some flag, all → every flag.
 *   A template error (mqtt/models.py MqttValueTemplateException) is logged and changes nothing.
 */

import type { Rendered } from './ha-schema.js'
import { smallestZone, zoneAt, zonesNamed, zoneState } from './ha-zones.js'
import type { HaZone } from './ha-zones.js'

export type { HaZone } from './ha-zones.js'

/** The three platforms the judge knows. */
export type HaComponent = 'sensor' | 'binary_sensor' | 'device_tracker'

/** Renders a template for a payload (through the judge's Jinja2 cache). */
export type RenderFn = (template: string, payload: string) => Rendered

const MAX_STATE = 255
const NON_NUMERIC_CLASSES = new Set(['date', 'enum', 'timestamp'])

/** One availability entry as HA normalises `availability_topic` and `availability`. */
interface AvailEntry {
  topic: string
  template: string | undefined
  on: string
  off: string
}

const str = (v: unknown, fallback: string): string => (typeof v === 'string' ? v : fallback)

/** One entity's HA-side state. */
export class HaEntity {
  /** What HA shows now (the state machine's state). */
  shown = 'unknown'
  /** When `shown` last changed (ms). */
  lastChanged: number
  private native: string | null = null
  private isOn: boolean | null = null
  private location: string | null = null
  private coords: { lat: number; lon: number; accuracy: number } | null = null
  /** The zones a device_tracker's `in_zones` attribute named; null when not reported. */
  private inZones: HaZone[] | null = null
  /** The JSON attributes HA shows (a device_tracker's without gps_accuracy, in_zones, latitude, longitude). */
  attributes: Record<string, unknown> = {}
  private availByTopic = new Map<string, boolean>()
  private availLatest = false
  private expired: boolean | null = null
  private expiresAt: number | undefined
  private avail: AvailEntry[] = []

  constructor(
    readonly component: HaComponent,
    readonly discoveryTopic: string,
    public config: Record<string, unknown>,
    private readonly zones: readonly HaZone[],
    private readonly log: (line: string) => void,
    now: number,
  ) {
    this.lastChanged = now
    this.configure(config)
  }

  /** The topic filters this entity subscribes to, each with the template HA renders for it. */
  subscriptions(): { filter: string; template: string | undefined; kind: 'state' | 'avail' | 'attrs' }[] {
    const out: { filter: string; template: string | undefined; kind: 'state' | 'avail' | 'attrs' }[] = []
    if (typeof this.config.state_topic === 'string') out.push({ filter: this.config.state_topic, template: this.stateTemplate(), kind: 'state' })
    for (const a of this.avail) out.push({ filter: a.topic, template: a.template, kind: 'avail' })
    if (typeof this.config.json_attributes_topic === 'string') out.push({ filter: this.config.json_attributes_topic, template: str(this.config.json_attributes_template, '') || undefined, kind: 'attrs' })
    return out
  }

  /** A (re)config from discovery: HA keeps the entity's values and the flags of topics it keeps. */
  configure(config: Record<string, unknown>): void {
    this.config = config
    const avail: AvailEntry[] = []
    if (typeof config.availability_topic === 'string') avail.push({ topic: config.availability_topic, template: str(config.availability_template, '') || undefined, on: str(config.payload_available, 'online'), off: str(config.payload_not_available, 'offline') })
    if (Array.isArray(config.availability)) {
      for (const a of config.availability as Record<string, unknown>[]) {
        if (typeof a?.topic === 'string') avail.push({ topic: a.topic, template: str(a.value_template, '') || undefined, on: str(a.payload_available, 'online'), off: str(a.payload_not_available, 'offline') })
      }
    }
    this.avail = avail
    this.availByTopic = new Map(avail.map((a) => [a.topic, this.availByTopic.get(a.topic) ?? false]))
    this.expired = this.expireAfterMs() === undefined ? null : this.expiresAt === undefined ? true : this.expired
  }

  private stateTemplate(): string | undefined {
    const t = this.config.value_template
    return typeof t === 'string' && t !== '' ? t : undefined
  }

  private expireAfterMs(): number | undefined {
    const e = this.config.expire_after
    return this.component !== 'device_tracker' && typeof e === 'number' && e > 0 ? e * 1000 : undefined
  }

  /** Whether the sensor must show a number (sensor/__init__.py `_numeric_state_expected`). */
  private numericExpected(): boolean {
    const c = this.config
    if (this.component !== 'sensor') return false
    if (typeof c.device_class === 'string' && NON_NUMERIC_CLASSES.has(c.device_class)) return false
    return c.unit_of_measurement !== undefined || c.state_class !== undefined || c.suggested_display_precision !== undefined || c.device_class !== undefined
  }

  private render(template: string | undefined, payload: string, render: RenderFn, what: string): string | undefined {
    if (template === undefined) return payload
    const r = render(template, payload)
    if ('error' in r) {
      this.log(`${this.discoveryTopic}: ${what} template error (${r.error}); message ignored`)
      return undefined
    }
    return r.ok
  }

  /** A message delivered through the subscription `filter`. */
  receive(kind: 'state' | 'avail' | 'attrs', filter: string, topic: string, payload: string, now: number, render: RenderFn): void {
    if (kind === 'avail') return this.availability(topic, payload, now, render)
    if (kind === 'attrs') return this.jsonAttributes(payload, now, render)
    const expire = this.expireAfterMs()
    if (expire !== undefined) {
      this.expired = false
      this.expiresAt = now + expire
    }
    const value = this.render(this.stateTemplate(), payload, render, 'value')
    if (value === undefined) return
    if (this.component === 'sensor') this.sensorValue(value, topic)
    else if (value.trim() === '') return this.log(`${this.discoveryTopic}: empty rendered value from ${topic} ignored`)
    else if (this.component === 'binary_sensor') {
      if (value === str(this.config.payload_on, 'ON')) this.isOn = true
      else if (value === str(this.config.payload_off, 'OFF')) this.isOn = false
      else if (value === 'None') this.isOn = null
      else return this.log(`${this.discoveryTopic}: no matching payload '${value}' from ${topic}; ignored`)
    } else {
      if (value === str(this.config.payload_home, 'home')) this.location = 'home'
      else if (value === str(this.config.payload_not_home, 'not_home')) this.location = 'not_home'
      else if (value === str(this.config.payload_reset, 'None')) this.location = null
      else this.location = payload
    }
    this.write(now)
  }

  private sensorValue(value: string, topic: string): void {
    if (value === 'None') this.native = null
    else if (this.numericExpected()) {
      if (value === '') this.log(`${this.discoveryTopic}: empty state from ${topic} ignored`)
      else this.native = value
    } else if (value.length > MAX_STATE) {
      this.log(`${this.discoveryTopic}: state of ${value.length} characters exceeds ${MAX_STATE}; unknown`)
      this.native = null
    } else this.native = value
  }

  private availability(topic: string, payload: string, now: number, render: RenderFn): void {
    const entry = this.avail.find((a) => a.topic === topic)
    if (entry === undefined) return this.log(`${this.discoveryTopic}: KeyError '${topic}' in availability (the configured topic is a wildcard); ignored`)
    const value = this.render(entry.template, payload, render, 'availability')
    if (value === undefined) return
    if (value === entry.on) this.availByTopic.set(topic, (this.availLatest = true))
    else if (value === entry.off) this.availByTopic.set(topic, (this.availLatest = false))
    this.write(now)
  }

  private jsonAttributes(payload: string, now: number, render: RenderFn): void {
    const text = this.render(str(this.config.json_attributes_template, '') || undefined, payload, render, 'json_attributes')
    if (text === undefined) return
    let attrs: unknown
    try {
      attrs = JSON.parse(text)
    } catch {
      return this.log(`${this.discoveryTopic}: erroneous JSON attributes ignored`)
    }
    if (typeof attrs !== 'object' || attrs === null || Array.isArray(attrs)) return this.log(`${this.discoveryTopic}: JSON attributes not a dictionary; ignored`)
    const a = attrs as Record<string, unknown>
    if (this.component !== 'device_tracker') {
      this.attributes = a
      return this.write(now)
    }
    if ('latitude' in a || 'longitude' in a) {
      this.location = null
      this.inZones = null
      const acc = typeof a.gps_accuracy === 'number' ? a.gps_accuracy : 0
      const valid = typeof a.latitude === 'number' && typeof a.longitude === 'number'
      this.coords = valid ? { lat: a.latitude as number, lon: a.longitude as number, accuracy: acc } : null
      if (!valid) this.log(`${this.discoveryTopic}: invalid or incomplete location in the JSON attributes; coordinates cleared`)
    } else if ('in_zones' in a) {
      if (!Array.isArray(a.in_zones)) return this.log(`${this.discoveryTopic}: in_zones in the JSON attributes is not a list; ignored`)
      this.coords = null
      this.inZones = zonesNamed(this.zones, a.in_zones as unknown[])
    }
    this.attributes = Object.fromEntries(Object.entries(a).filter(([k]) => !['gps_accuracy', 'in_zones', 'latitude', 'longitude'].includes(k)))
    this.write(now)
  }

  /** Whether HA calls the entity available (availability mode, then the expiry). */
  get available(): boolean {
    let ok = true
    if (this.avail.length > 0) {
      const mode = str(this.config.availability_mode, 'latest')
      const flags = [...this.availByTopic.values()]
      ok = mode === 'all' ? flags.every(Boolean) : mode === 'any' ? flags.some(Boolean) : this.availLatest
    }
    return ok && this.expired !== true
  }

  /** The platform's state, or `undefined` when computing it raises (the write fails). */
  private platformState(): string | undefined {
    if (this.component === 'binary_sensor') return this.isOn === null ? 'unknown' : this.isOn ? 'on' : 'off'
    if (this.component === 'sensor') {
      if (this.native === null) return 'unknown'
      if (this.numericExpected()) {
        const n = Number(this.native.trim())
        if (this.native.trim() === '' || !Number.isFinite(n)) {
          this.log(`${this.discoveryTopic}: non-numeric value '${this.native.slice(0, 80)}' for a numeric sensor; state not written`)
          return undefined
        }
      }
      return this.native
    }
    if (this.location !== null) return this.location
    if (this.coords !== null) return zoneState(zoneAt(this.zones, this.coords.lat, this.coords.lon, this.coords.accuracy))
    if (this.inZones !== null) return zoneState(smallestZone(this.inZones))
    return 'unknown'
  }

  /** Writes the state to the state machine, as HA does after a handled message. */
  write(now: number): void {
    let next = this.available ? this.platformState() : 'unavailable'
    if (next === undefined) return
    if (next.length > MAX_STATE) {
      this.log(`${this.discoveryTopic}: state of ${next.length} characters exceeds ${MAX_STATE}; written as unknown`)
      next = 'unknown'
    }
    if (next !== this.shown) this.lastChanged = now
    this.shown = next
  }

  /** Fires the expiry timer if it is due by `now`. */
  tick(now: number): void {
    if (this.expiresAt !== undefined && this.expiresAt <= now) {
      this.expiresAt = undefined
      this.expired = true
      this.write(now)
    }
  }

  /** After a restart: restores the last state of an `expire_after` entity that has not expired (RestoreSensor). */
  restore(previous: { shown: string; lastChanged: number; native: string | null; isOn: boolean | null }, now: number): void {
    const expire = this.expireAfterMs()
    if (expire === undefined || previous.shown === 'unknown' || previous.shown === 'unavailable') return
    const until = previous.lastChanged + expire
    if (until <= now) return
    this.native = previous.native
    this.isOn = previous.isOn
    this.expired = false
    this.expiresAt = until
    this.write(now)
    this.lastChanged = previous.lastChanged
  }

  /** What restore() needs from this entity before a restart. */
  snapshot(): { shown: string; lastChanged: number; native: string | null; isOn: boolean | null } {
    return { shown: this.shown, lastChanged: this.lastChanged, native: this.native, isOn: this.isOn }
  }
}
