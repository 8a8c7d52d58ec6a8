/**
 * Sensor values of fleet beacons for the map's details panel. The fleet tracker fuses RSSI only;
 * serial, model, battery, temperature, light, motion and the verified marker are in the Beacon
 * objects each gateway keeps retained on `<p>/gateways/<gw>/beacons/<id>` (DESIGN.md 6). This
 * listens there, keeps the freshest per beacon, and hands out only the fields the page shows.
 */
import { hostname } from 'node:os'
import { inspect } from 'node:util'
import type { Beacon } from '../reading.js'
import type { MqttLink } from '../mqtt/connection.js'
import { openLink, resolvePublisherOptions } from '../mqtt/publisher-options.js'
import type { FleetTrackerOptions } from '../fleet/tracker-types.js'
import { checkTopicPrefix, DEFAULT_TOPIC_PREFIX } from '../mqtt/topics.js'
import { detailsOf } from './view.js'
import type { ViewDetails } from './view.js'
import type { DetailsSource } from './live-view.js'

/** Options of {@link MqttBeaconDetails}: the broker connection, as for a FleetTracker. */
export type MqttBeaconDetailsOptions = Pick<FleetTrackerOptions, 'url' | 'client' | 'topicPrefix' | 'clientId' | 'username' | 'passwordFile' | 'tls' | 'reconnect' | 'connectTimeoutMs'>

const MAX_BEACONS = 50_000

/**
 * Keeps the latest sensor details of every beacon any gateway publishes; give it to
 * `startMapServer({ details })`.
 *
 * ```ts
 * const details = new MqttBeaconDetails({ url: 'mqtt://127.0.0.1:1883' })
 * await details.start()
 * const map = await startMapServer({ fleet: tracker, site, details })
 * ```
 */
export class MqttBeaconDetails implements DetailsSource {
  readonly topicPrefix: string
  #options: ReturnType<typeof resolvePublisherOptions>
  #link: MqttLink | undefined
  /** Per beacon, what each gateway that hears it last published. */
  private readonly latest = new Map<string, Map<string, { lastSeen: number; details: ViewDetails }>>()
  private readonly clientId: string
  private stopped = false
  /** Messages that were not a Beacon object (skipped). */
  malformed = 0

  constructor(options: MqttBeaconDetailsOptions) {
    this.#options = resolvePublisherOptions({ ...options, gatewayId: 'fleet' })
    this.topicPrefix = checkTopicPrefix(options.topicPrefix ?? DEFAULT_TOPIC_PREFIX)
    this.clientId = options.clientId ?? `beaconkit-map-${hostname().replace(/[^A-Za-z0-9_-]/g, '').slice(0, 16)}-${process.pid}`
  }

  /** Details of a beacon, as the gateway that heard it last published them. */
  details(id: string): ViewDetails | undefined {
    let best: { lastSeen: number; details: ViewDetails } | undefined
    for (const held of this.latest.get(id)?.values() ?? []) if (best === undefined || held.lastSeen > best.lastSeen) best = held
    return best?.details
  }

  /** Connects and subscribes; resolves once subscribed (the retained states then arrive). */
  async start(): Promise<void> {
    const link = await openLink(this.#options, this.clientId, undefined)
    this.#link = link
    const filter = `${this.topicPrefix}/gateways/+/beacons/+`
    let wake: (() => void) | undefined
    const subscribed = new Promise<void>((resolve) => {
      wake = resolve
    })
    const subscribe = (): void => {
      // A clean session forgets subscriptions: subscribe on every connection.
      link.subscribe([filter], 0).then(() => wake?.(), () => undefined)
    }
    link.on('connected', subscribe)
    link.on('error', () => undefined)
    link.on('message', (topic, payload) => this.onMessage(topic, payload))
    if (link.connected) subscribe()
    await subscribed
  }

  private onMessage(topic: string, payload: Buffer): void {
    const parts = topic.slice(this.topicPrefix.length + 1).split('/')
    if (parts.length !== 4 || parts[0] !== 'gateways' || parts[2] !== 'beacons') return
    const [, gateway, , id] = parts
    if (payload.length === 0) {
      // Gone at that gateway only: the others that hear it keep their details.
      const byGateway = this.latest.get(id)
      byGateway?.delete(gateway)
      if (byGateway?.size === 0) this.latest.delete(id)
      return
    }
    let b: Beacon
    try {
      b = JSON.parse(payload.toString('utf8')) as Beacon
    } catch {
      this.malformed++
      return
    }
    if (typeof b !== 'object' || b === null || typeof b.lastSeen !== 'number' || !Number.isFinite(b.lastSeen)) {
      this.malformed++
      return
    }
    let byGateway = this.latest.get(id)
    if (byGateway === undefined) {
      if (this.latest.size >= MAX_BEACONS) return
      byGateway = new Map()
      this.latest.set(id, byGateway)
    }
    byGateway.set(gateway, { lastSeen: b.lastSeen, details: detailsOf(b) })
  }

  /** Disconnects. */
  async stop(): Promise<void> {
    if (this.stopped) return
    this.stopped = true
    await this.#link?.close()
  }

  /** Never the client or its options (they hold the password). */
  [inspect.custom](): string {
    return `MqttBeaconDetails { topicPrefix: '${this.topicPrefix}', beacons: ${this.latest.size} }`
  }

  toJSON(): { topicPrefix: string; beacons: number } {
    return { topicPrefix: this.topicPrefix, beacons: this.latest.size }
  }
}
