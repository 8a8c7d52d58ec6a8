/**
 * Home Assistant's MQTT discovery rules for the sensor, binary_sensor and device_tracker configs
 * we publish, written from HA's documentation (sensor.mqtt, binary_sensor.mqtt, device_tracker.mqtt, sensor device classes)
 * and, for the device_tracker, current home-assistant/core mqtt/device_tracker.py (state_topic
 * optional with json_attributes_topic; the state-topic keys deprecated, removed in 2027.1):
 * required keys, allowed device classes and their units, state classes, availability and
 * device grouping. `renderTemplates` runs the value templates through real Jinja2 (HA's
 * template engine) in python3, with `value_json` defined only when the payload is JSON, as HA does.
 */

import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'

/** Units HA accepts per sensor device class (the ones a beacon can report). */
const SENSOR_UNITS: Record<string, string[]> = {
  temperature: ['°C', '°F', 'K'],
  illuminance: ['lx'],
  battery: ['%'],
  signal_strength: ['dB', 'dBm'],
  distance: ['km', 'm', 'cm', 'mm', 'mi', 'nmi', 'yd', 'in', 'ft'],
}

const BINARY_SENSOR_CLASSES = ['battery', 'battery_charging', 'carbon_monoxide', 'cold', 'connectivity', 'door', 'garage_door', 'gas', 'heat', 'light', 'lock', 'moisture', 'motion', 'moving', 'occupancy', 'opening', 'plug', 'power', 'presence', 'problem', 'running', 'safety', 'smoke', 'sound', 'tamper', 'update', 'vibration', 'window']

const STATE_CLASSES = ['measurement', 'measurement_angle', 'total', 'total_increasing']

/** Keys a sensor / binary_sensor discovery config may carry (the ones HA documents). */
const COMMON_KEYS = ['availability', 'availability_mode', 'availability_template', 'availability_topic', 'device', 'device_class', 'enabled_by_default', 'encoding', 'entity_category', 'entity_picture', 'expire_after', 'force_update', 'icon', 'json_attributes_template', 'json_attributes_topic', 'name', 'default_entity_id', 'object_id', 'origin', 'payload_available', 'payload_not_available', 'platform', 'qos', 'state_topic', 'unique_id', 'value_template']
const KEYS: Record<string, string[]> = {
  sensor: [...COMMON_KEYS, 'last_reset_value_template', 'options', 'suggested_display_precision', 'state_class', 'unit_of_measurement'],
  binary_sensor: [...COMMON_KEYS, 'off_delay', 'payload_off', 'payload_on'],
  // device_tracker.mqtt: no device_class, expire_after or force_update.
  device_tracker: ['availability', 'availability_mode', 'availability_template', 'availability_topic', 'device', 'icon', 'json_attributes_template', 'json_attributes_topic', 'name', 'default_entity_id', 'object_id', 'origin', 'payload_available', 'payload_home', 'payload_not_available', 'payload_not_home', 'payload_reset', 'platform', 'qos', 'source_type', 'state_topic', 'unique_id', 'value_template'],
}

/** device_tracker keys current HA still reads but has deprecated (they stop working in 2027.1). */
const DEPRECATED_TRACKER_KEYS = ['state_topic', 'value_template', 'payload_home', 'payload_not_home', 'payload_reset']

const SOURCE_TYPES = ['gps', 'router', 'bluetooth', 'bluetooth_le']

/** A subscribe topic as HA validates it: wildcards only as whole levels, `#` last. */
function validSubscribeTopic(topic: unknown): boolean {
  if (typeof topic !== 'string' || topic === '') return false
  const levels = topic.split('/')
  return levels.every((l, i) => (l.includes('+') ? l === '+' : true) && (l.includes('#') ? l === '#' && i === levels.length - 1 : true))
}

/** The problems of one discovery message, by HA's rules; empty when valid. */
export function discoveryProblems(topic: string, payload: string): string[] {
  const problems: string[] = []
  const m = /^([^/]+(?:\/[^/]+)*)\/(sensor|binary_sensor|device_tracker)\/(?:[a-zA-Z0-9_-]+\/)?([a-zA-Z0-9_-]+)\/config$/.exec(topic)
  if (m === null) return [`topic ${topic} is not <prefix>/<component>/[<node_id>/]<object_id>/config`]
  const component = m[2]
  let config: Record<string, unknown>
  try {
    config = JSON.parse(payload) as Record<string, unknown>
  } catch {
    return ['payload is not JSON']
  }
  for (const key of Object.keys(config)) if (!KEYS[component].includes(key)) problems.push(`unknown key ${key}`)
  if (component === 'device_tracker') {
    // Current HA: json_attributes_topic alone is enough; the state-topic keys are deprecated (removed in 2027.1).
    for (const key of DEPRECATED_TRACKER_KEYS) if (key in config) problems.push(`${key} is deprecated for device_tracker (stops working in Home Assistant 2027.1): report in_zones or coordinates in the JSON attributes`)
    if (config.state_topic === undefined && !validSubscribeTopic(config.json_attributes_topic)) problems.push('json_attributes_topic missing or not a valid subscribe topic (no state_topic either)')
    if (config.state_topic !== undefined && !validSubscribeTopic(config.state_topic)) problems.push('state_topic not a valid subscribe topic')
  } else {
    if (!validSubscribeTopic(config.state_topic)) problems.push('state_topic missing or not a valid subscribe topic')
    if (typeof config.value_template !== 'string') problems.push('value_template missing')
  }
  if (config.json_attributes_topic !== undefined && !validSubscribeTopic(config.json_attributes_topic)) problems.push('json_attributes_topic not a valid subscribe topic')
  if (typeof config.unique_id !== 'string' || config.unique_id === '') problems.push('unique_id missing (needed for a device)')
  const device = config.device as { identifiers?: unknown; connections?: unknown; name?: unknown } | undefined
  if (typeof device !== 'object' || device === null) problems.push('device missing')
  else if (!(Array.isArray(device.identifiers) && device.identifiers.length > 0) && !Array.isArray(device.connections)) problems.push('device needs identifiers or connections')
  const dc = config.device_class
  if (component === 'sensor') {
    if (dc !== undefined) {
      const units = SENSOR_UNITS[dc as string]
      if (units === undefined) problems.push(`device_class ${String(dc)} not checked here`)
      else if (!units.includes(config.unit_of_measurement as string)) problems.push(`unit ${String(config.unit_of_measurement)} not valid for ${String(dc)}`)
    }
    if (config.state_class !== undefined && !STATE_CLASSES.includes(config.state_class as string)) problems.push(`state_class ${String(config.state_class)}`)
  } else if (component === 'binary_sensor') {
    if (dc !== undefined && !BINARY_SENSOR_CLASSES.includes(dc as string)) problems.push(`binary_sensor device_class ${String(dc)}`)
  } else if (config.source_type !== undefined && !SOURCE_TYPES.includes(config.source_type as string)) problems.push(`source_type ${String(config.source_type)}`)
  if (config.availability !== undefined) {
    if (config.availability_topic !== undefined) problems.push('availability and availability_topic together')
    const list = config.availability
    if (!Array.isArray(list) || list.length === 0) problems.push('availability must be a non-empty list')
    else for (const a of list as { topic?: unknown }[]) if (!validSubscribeTopic(a.topic)) problems.push('availability entry without a valid topic')
  }
  if (config.expire_after !== undefined && !(Number.isInteger(config.expire_after) && (config.expire_after as number) > 0)) problems.push('expire_after must be a positive whole number of seconds')
  if (config.entity_category !== undefined && !['config', 'diagnostic'].includes(config.entity_category as string)) problems.push('entity_category')
  return problems
}

/** The Debian python3 (with python3-jinja2) that renders templates; `python3` on the PATH elsewhere. */
const PYTHON = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3'

/** Whether python3 with Jinja2 is here to render templates. */
export function jinjaAvailable(): boolean {
  const r = spawnSync(PYTHON, ['-c', 'import jinja2, jinja2.sandbox'], { encoding: 'utf8' })
  return r.status === 0
}

// HA renders a value template with `value` (the payload) and, when the payload parses as JSON,
// `value_json`, in a sandboxed environment, and strips the result (helpers/template.py
// async_render_with_possible_json_value). A render error is reported per case, not thrown: HA
// logs it and the message changes nothing (mqtt/models.py MqttValueTemplateException).
const RENDER = `
import json, sys, jinja2, jinja2.sandbox
env = jinja2.sandbox.ImmutableSandboxedEnvironment()
out = []
for case in json.load(sys.stdin):
    variables = {'value': case['payload']}
    try:
        variables['value_json'] = json.loads(case['payload'])
    except ValueError:
        pass
    try:
        out.append({'ok': env.from_string(case['template']).render(**variables).strip()})
    except Exception as e:
        out.append({'error': type(e).__name__ + ': ' + str(e)})
print(json.dumps(out))
`

/** One rendered template: its text, or the error HA would log instead. */
export type Rendered = { ok: string } | { error: string }

/** Renders each template with HA's variables for its payload, in one python3 run; errors per case. */
export function renderTemplatesSafe(cases: readonly { template: string; payload: string }[]): Rendered[] {
  if (cases.length === 0) return []
  const r = spawnSync(PYTHON, ['-c', RENDER], { input: JSON.stringify(cases), encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 })
  if (r.status !== 0) throw new Error(`jinja2 render failed: ${r.stderr}`)
  return JSON.parse(r.stdout) as Rendered[]
}

/** Renders each template with HA's variables for its payload; returns the rendered text (throws on a template error). */
export function renderTemplates(cases: { template: string; payload: string }[]): string[] {
  return renderTemplatesSafe(cases).map((r, i) => {
    if ('error' in r) throw new Error(`jinja2 render failed for case ${i}: ${r.error}`)
    return r.ok
  })
}

/**
 * The beacons a gateway's discovery gate announces (src/mqtt/ha-gate.ts), from the retained
 * states it published (`<p>/gateways/<gw>/beacons/<id>` payloads): a stable identity (serial
 * number, beaconID or Eddystone UID) and a published state heard over at least `dwellMs`. The
 * state that admits a beacon is the one published with its first configs, so this is exact.
 */
export function gateAnnounced(statePayloads: readonly string[], dwellMs = 30_000): Set<string> {
  const out = new Set<string>()
  for (const payload of statePayloads) {
    if (payload === '') continue
    const b = JSON.parse(payload) as { id: string; serialNumber?: string; beaconID?: string; eddystone?: { uid?: unknown }; firstSeen: number; lastSeen: number }
    const stable = b.id === b.serialNumber || b.id === b.beaconID || b.eddystone?.uid !== undefined
    if (stable && b.lastSeen - b.firstSeen >= dwellMs) out.add(b.id)
  }
  return out
}
