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

/**
 * Throws the InvalidOptionError for a gateway id outside `[A-Za-z0-9_-]{1,128}`; `option` names
 * another id that becomes a topic level the same way (the foreign-input bridge's `bridgeId`).
 */
export function checkGatewayId(id: unknown, option = 'gatewayId'): string {
  if (typeof id !== 'string' || !GATEWAY_ID.test(id)) {
    const shown = typeof id === 'string' && id.length <= 40 ? `'${id}'` : typeof id
    const what = option === 'gatewayId' ? 'gateway id' : option
    throw new InvalidOptionError(
      'invalid_option',
      `${what} ${shown} is not usable in a topic: use up to 128 letters, digits, '-' and '_', e.g. 'hall' or 'pi-3'`,
      { option },
    )
  }
  return id
}

/** Throws the InvalidOptionError for a prefix with wildcards, empty levels or a leading/trailing '/'. */
export function checkTopicPrefix(prefix: unknown, option = 'topicPrefix'): string {
  const ok =
    typeof prefix === 'string' &&
    prefix !== '' &&
    !PREFIX_FORBIDDEN.some((c) => prefix.includes(c)) &&
    !prefix.split('/').includes('')
  if (!ok) {
    throw new InvalidOptionError(
      'invalid_option',
      `${option} must be topic levels without wildcards, e.g. 'beaconkit' or 'site/beaconkit'`,
      { option },
    )
  }
  return prefix
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

/**
 * `<p>/inputs/<bridge>/status`: the liveness of a foreign-input bridge (retained, its last will
 * the `offline` form), which the statuses of its foreign nodes point to with `via`.
 */
export function inputsStatusTopic(prefix: string, bridgeId: string): string {
  return `${prefix}/inputs/${bridgeId}/status`
}

/**
 * The `<obj>` of a Home Assistant object id: the beacon id lower-cased, every character outside
 * `[a-z0-9]` replaced by `_`.
 */
export function haObjectId(beaconId: string): string {
  return beaconId.toLowerCase().replace(/[^a-z0-9]/g, '_')
}
