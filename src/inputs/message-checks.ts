/**
 * The checks every foreign format applies to a topic or payload before trusting it: a node id
 * usable as a gateway id, a JSON object, an availability word, a plausible RSSI, the levels under
 * a base topic. Pure: no MQTT, no clock.
 */

/** Lowest and highest RSSI a controller reports (as the decoder's envelope check). */
export const RSSI_MIN = -127
export const RSSI_MAX = 20

/** Gateway ids as beaconkit's topics allow them (mqtt/topics.ts GATEWAY_ID). */
const NODE_ID = /^[A-Za-z0-9_-]{1,128}$/

/** True when `id` can be a gateway id in beaconkit's topics. */
export function isNodeId(id: string): boolean {
  return NODE_ID.test(id)
}

/** The JSON object of a payload, or undefined (not JSON, or not an object). */
export function jsonObject(payload: string): Record<string, unknown> | undefined {
  let value: unknown
  try {
    value = JSON.parse(payload)
  } catch {
    return undefined
  }
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : undefined
}

/** `online` / `offline` availability payloads (OMG, Theengs and ESPresense alike); else undefined. */
export function availability(payload: string): boolean | undefined {
  const text = payload.trim()
  return text === 'online' ? true : text === 'offline' ? false : undefined
}

/**
 * The RSSI of a payload when it is a usable dBm value; `absurd` when present but unusable;
 * undefined when absent.
 */
export function rssiOf(value: unknown): number | 'absurd' | undefined {
  if (value === undefined) return undefined
  if (typeof value !== 'number' || !Number.isFinite(value) || value < RSSI_MIN || value > RSSI_MAX) return 'absurd'
  return value
}

/** The topic levels after `base/`, or undefined when the topic is not under `base`. */
export function levelsUnder(topic: string, base: string): string[] | undefined {
  if (!topic.startsWith(base) || topic.charCodeAt(base.length) !== 0x2f) return undefined
  return topic.slice(base.length + 1).split('/')
}
