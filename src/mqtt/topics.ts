/**
 * Topic names of the MQTT contract (docs/mqtt.md). One place builds them, so the
 * publisher, Home Assistant discovery, the tests and the fleet side cannot drift apart.
 */

import { InvalidOptionError } from '../errors.js'

/** Default topic prefix. */
export const DEFAULT_TOPIC_PREFIX = 'beaconkit'

/** Default Home Assistant discovery prefix. */
export const DEFAULT_HA_PREFIX = 'homeassistant'

/**
 * Gateway ids as in topics: `[A-Za-z0-9_-]`, 1–128 characters. The one pattern for the publisher's
 * own id and for the ids the fleet reads off topics (bounded: a hostile id cannot be huge).
 */
export const GATEWAY_ID = /^[A-Za-z0-9_-]{1,128}$/
// Wildcards, NUL and empty levels would make every topic below the prefix unusable.
const PREFIX_FORBIDDEN = ['#', '+', String.fromCharCode(0)]

/** Throws the InvalidOptionError for a gateway id outside `[A-Za-z0-9_-]{1,128}`. */
export function checkGatewayId(id: unknown): string {
  if (typeof id !== 'string' || !GATEWAY_ID.test(id)) {
    const shown = typeof id === 'string' && id.length <= 40 ? `'${id}'` : typeof id
    throw new InvalidOptionError('invalid_option', `gateway id ${shown} is not usable in a topic: use up to 128 letters, digits, '-' and '_', e.g. 'hall' or 'pi-3'`, { option: 'gatewayId' })
  }
  return id
}

/** Throws the InvalidOptionError for a prefix with wildcards, empty levels or a leading/trailing '/'. */
export function checkTopicPrefix(prefix: unknown, option = 'topicPrefix'): string {
  const ok = typeof prefix === 'string' && prefix !== '' && !PREFIX_FORBIDDEN.some((c) => prefix.includes(c)) && !prefix.split('/').includes('')
  if (!ok) {
    throw new InvalidOptionError('invalid_option', `${option} must be topic levels without wildcards, e.g. 'beaconkit' or 'site/beaconkit'`, { option })
  }
  return prefix
}

/** Longest id accepted as one topic level (beacon ids), in UTF-16 code units. */
export const MAX_TOPIC_LEVEL = 256

/** Longest topic accepted for a publish, in UTF-8 bytes: the MQTT limit. */
const MAX_TOPIC_BYTES = 65_535

/**
 * The code point at `s[i]` when it may be inside a topic, else -1. A C0 or C1 control
 * (U+0000–U+001F, U+007F–U+009F) or a non-character (U+FDD0–U+FDEF, U+xxFFFE/U+xxFFFF) makes
 * Mosquitto refuse the packet and close the connection (mosquitto_validate_utf8; checked against
 * Mosquitto 2.0.11), so one such id would cut every message after it. A lone surrogate has no
 * UTF-8 form: it would go out as U+FFFD, the topic of another id.
 */
function acceptedCodePoint(s: string, i: number): number {
  const c = s.codePointAt(i) as number
  if (c <= 0x1f || (c >= 0x7f && c <= 0x9f)) return -1
  if (c >= 0xd800 && c <= 0xdfff) return -1
  if ((c >= 0xfdd0 && c <= 0xfdef) || (c & 0xfffe) === 0xfffe) return -1
  return c
}

/** True when every character of `s` is one Mosquitto accepts in a topic (see acceptedCodePoint). */
function validTopicText(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    // The common case (printable ASCII) without the code-point work.
    if (c >= 0x20 && c < 0x7f) continue
    const cp = acceptedCodePoint(s, i)
    if (cp < 0) return false
    if (cp > 0xffff) i++
  }
  return true
}

/**
 * True when `id` can be one topic level of a publish: a non-empty string of at most
 * `maxLength` characters without '/', '+' or '#' and without anything Mosquitto refuses in a
 * topic (controls, lone surrogates, non-characters). The one check for every id that becomes a
 * topic level (fleet beacon topics, the gateway's beacon topics, discovery object ids).
 */
export function isTopicLevel(id: unknown, maxLength = MAX_TOPIC_LEVEL): id is string {
  if (typeof id !== 'string' || id.length === 0 || id.length > maxLength) return false
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i)
    if (c === 0x2f || c === 0x2b || c === 0x23) return false
  }
  return validTopicText(id)
}

/**
 * True when `topic` is a valid topic to publish to: non-empty, no wildcard, at most 65,535
 * UTF-8 bytes, nothing Mosquitto refuses. The outbox checks every topic with it before sending.
 */
export function isPublishTopic(topic: string): boolean {
  if (topic.length === 0 || topic.length > MAX_TOPIC_BYTES || topic.includes('+') || topic.includes('#')) return false
  return validTopicText(topic) && Buffer.byteLength(topic, 'utf8') <= MAX_TOPIC_BYTES
}

/** The topics of one gateway. */
export class GatewayTopics {
  /** `<p>/gateways/<gw>/status` */
  readonly status: string
  /** `<p>/gateways/<gw>/events` */
  readonly events: string
  /** `<p>/gateways/<gw>/rssi` */
  readonly rssi: string
  private readonly beaconBase: string

  constructor(
    readonly prefix: string,
    readonly gateway: string,
  ) {
    const base = `${prefix}/gateways/${gateway}`
    this.status = `${base}/status`
    this.events = `${base}/events`
    this.rssi = `${base}/rssi`
    this.beaconBase = `${base}/beacons/`
  }

  /** `<p>/gateways/<gw>/rssi/<n>`: partition `n` of the RSSI batch (scale-out). */
  rssiPartition(n: number): string {
    return `${this.rssi}/${n}`
  }

  /** `<p>/gateways/<gw>/beacons/<id>` */
  beacon(id: string): string {
    return this.beaconBase + id
  }
}

/** `<p>/gateways/+/beacons/<id>`: one beacon as heard by every gateway. */
export function anyGatewayBeaconTopic(prefix: string, id: string): string {
  return `${prefix}/gateways/+/beacons/${id}`
}

/** `<p>/gateways/+/status`: the status of every gateway. */
export function anyGatewayStatusTopic(prefix: string): string {
  return `${prefix}/gateways/+/status`
}

/** The `<obj>` of a Home Assistant object id: the beacon id lower-cased, every character outside `[a-z0-9]` replaced by `_`. */
export function haObjectId(beaconId: string): string {
  return beaconId.toLowerCase().replace(/[^a-z0-9]/g, '_')
}
