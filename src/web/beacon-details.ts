/**
 * Sensor values of fleet beacons for the map's details panel. The fleet tracker fuses RSSI only;
 * serial, model, battery, temperature, light, motion and the gateway's verified claim are in the
 * Beacon objects each gateway keeps retained on `<p>/gateways/<gw>/beacons/<id>` (DESIGN.md 6).
 * This listens there and hands out only the fields the page shows. Any client of the broker can
 * publish there, so each message is treated as hostile: size bounded before parsing, ids
 * checked, times clamped to arrival, and only gateways the fleet knows are shown
 * (gateway-claims.ts holds the bounded state; known-gateways.ts says who is known).
 */
import { hostname } from 'node:os'
import { inspect } from 'node:util'
import type { MqttLink } from '../mqtt/connection.js'
import { resolvePublisherOptions } from '../mqtt/publisher-options.js'
import { openLink } from '../mqtt/link-secrets.js'
import type { FleetTrackerOptions } from '../fleet/tracker-types.js'
import { readBeaconState } from '../fleet/beacon-claims.js'
import { RealClock } from '../clock.js'
import type { Clock } from '../clock.js'
import { checkTopicPrefix, DEFAULT_TOPIC_PREFIX } from '../mqtt/topics.js'
import { GatewayClaims } from './gateway-claims.js'
import type { ClaimLimits, ClaimStats } from './gateway-claims.js'
import type { GatewayWitness } from '../fleet/beacon-claims.js'
import type { ViewDetails } from './view.js'
import type { DetailsSource } from './live-view.js'

/** Options of {@link MqttBeaconDetails}: the broker connection, as for a FleetTracker, and who is trusted. */
export type MqttBeaconDetailsOptions = Pick<
  FleetTrackerOptions,
  | 'url'
  | 'client'
  | 'topicPrefix'
  | 'clientId'
  | 'username'
  | 'passwordFile'
  | 'password'
  | 'tls'
  | 'reconnect'
  | 'connectTimeoutMs'
> & {
  /**
   * The gateways whose states may be shown: a `FleetGateways(tracker, site)`. Without it every
   * gateway id is believed, which is right only on a broker where every client is trusted.
   */
  gateways?: GatewayWitness
  /** Arrival times, which bound a state's `lastSeen`; default the real clock (give the tracker's). */
  clock?: Clock
  /** Bounds of the held states (defaults: `CLAIM_LIMITS`). */
  limits?: Partial<ClaimLimits>
}

/** Counters of {@link MqttBeaconDetails}: skipped messages and the held states' bounds. */
export interface BeaconDetailsStats extends ClaimStats {
  /** Messages that were not a Beacon object. */
  malformed: number
  /** Messages on a topic whose gateway or beacon id is not a valid one. */
  invalidId: number
  /** Messages larger than {@link MAX_DETAILS_BYTES}. */
  tooLarge: number
}

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
  private readonly latest: GatewayClaims
  private readonly clock: Clock
  private readonly clientId: string
  private stopped = false
  /** Messages that were not a Beacon object (skipped). */
  malformed = 0
  private readonly skipped = { invalidId: 0, tooLarge: 0 }

  constructor(options: MqttBeaconDetailsOptions) {
    const { gateways, clock, limits, ...connection } = options
    this.#options = resolvePublisherOptions({ ...connection, gatewayId: 'fleet' })
    this.topicPrefix = checkTopicPrefix(options.topicPrefix ?? DEFAULT_TOPIC_PREFIX)
    this.clientId =
      options.clientId ??
      `beaconkit-map-${hostname()
        .replace(/[^A-Za-z0-9_-]/g, '')
        .slice(0, 16)}-${process.pid}`
    this.clock = clock ?? new RealClock()
    this.latest = new GatewayClaims(gateways, limits)
  }

  /**
   * Details of a beacon as the known gateway with the freshest state published them, naming
   * that gateway (`reportedBy`) and the gateways that claim it verified (`claims`).
   */
  details(id: string): ViewDetails | undefined {
    return this.latest.details(id)
  }

  /** What was skipped, and how many states are held. */
  get stats(): BeaconDetailsStats {
    return { malformed: this.malformed, ...this.skipped, ...this.latest.stats }
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
      link.subscribe([filter], 0).then(
        () => wake?.(),
        () => undefined,
      )
    }
    link.on('connected', subscribe)
    link.on('error', () => undefined)
    link.on('message', (topic, payload) => this.onMessage(topic, payload))
    if (link.connected) subscribe()
    await subscribed
  }

  private onMessage(topic: string, payload: Buffer): void {
    // The same reading as the tracker's (fleet/beacon-claims.ts): ids checked, size bounded, shape checked.
    const m = readBeaconState(this.topicPrefix, topic, payload)
    switch (m.kind) {
      case 'state':
        this.latest.put(m.id, m.gateway, m.beacon, this.clock.now())
        return
      case 'cleared':
        // Gone at that gateway only: the others that hear it keep their details.
        this.latest.delete(m.id, m.gateway)
        return
      case 'invalidId':
        this.skipped.invalidId++
        return
      case 'tooLarge':
        this.skipped.tooLarge++
        return
      case 'malformed':
        this.malformed++
        return
      case 'ignore':
        return
    }
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
