/**
 * Home Assistant on a gateway (docs/mqtt.md "Home Assistant"): its device (ha-gateway-device.ts)
 * on every connection, the beacons in range in its online status (republished on change, at
 * most every {@link STATUS_BEACONS_INTERVAL_MS}), and per-beacon entities (home-assistant.ts)
 * unless a fleet tracker owns the beacons: with `beacons: 'auto'` the first valid message on
 * `<p>/fleet/status` or `<p>/fleet/trackers/+` (retained or live, any state) switches to the
 * fleet mode for the rest of the run.
 */

import type { Clock, CancelTimer } from '../clock.js'
import { InvalidOptionError } from '../errors.js'
import type { MqttLink } from './connection.js'
import { HaBirthWatch } from './ha-birth.js'
import type { HaGateStats, HomeAssistantOptions } from './ha-gate.js'
import { haGatewayConfigs } from './ha-gateway-device.js'
import { HaAnnouncer } from './home-assistant.js'
import type { HaBeaconsMode } from './home-assistant.js'
import type { HaBeaconNames, HaSettings } from './ha-config.js'
import { readStatusState } from './payloads.js'
import { checkTopicPrefix, DEFAULT_HA_PREFIX } from './topics.js'
import type { GatewayTopics } from './topics.js'
import type { RetainOptions } from './outbox-types.js'

/** `homeAssistant: { … }` of a gateway publisher: the discovery prefix, the gate, and who owns the beacons. */
export interface GatewayHomeAssistantOptions extends HomeAssistantOptions {
  /**
   * Per-beacon entities from this gateway: `true` always, `false` never (a fleet tracker
   * announces the beacons; only the gateway device), `'auto'` (default) until a fleet tracker's
   * status is seen on the broker.
   */
  beacons?: 'auto' | boolean
  /**
   * Names for beacons (the `beacons:` list of a config file): a named beacon's device is called
   * by its name, and with a list only listed beacons get entities.
   */
  names?: HaBeaconNames
  /** The room the gateway is in: its device gets it as `suggested_area` (Home Assistant's area). */
  room?: string
}

/** Default of `homeAssistant.beacons`. */
export const HA_BEACONS_DEFAULT = 'auto'

/** The online status is republished for a new count at most this often (ms). */
export const STATUS_BEACONS_INTERVAL_MS = 5000

/**
 * The largest packet a gateway with Home Assistant on accepts (MQTT 5): its sweep reads configs
 * of at most 16 KiB and its fleet watch status payloads of at most 4 KiB; the broker drops
 * anything larger for this client instead of sending it.
 */
export const HA_MAX_PACKET_BYTES = 64 * 1024

/** Checks `homeAssistant.beacons` (an InvalidOptionError names it). */
export function checkHaBeacons(value: unknown): 'auto' | boolean {
  if (value === undefined) return HA_BEACONS_DEFAULT
  if (value === 'auto' || value === true || value === false) return value
  throw new InvalidOptionError(
    'invalid_option',
    `homeAssistant.beacons must be 'auto', true or false, not ${JSON.stringify(value) ?? typeof value}`,
    { option: 'homeAssistant.beacons' },
  )
}

/** Home Assistant counters of a gateway publisher. */
export interface HaPublisherStats extends HaGateStats {
  /** The `homeAssistant.beacons` option in force. */
  beacons: 'auto' | boolean
  /**
   * 'standalone': per-beacon entities from this gateway; 'fleet': only the gateway device (a fleet
   * tracker seen, or `beacons: false`).
   */
  mode: HaBeaconsMode
  /** Per-beacon configs removed because a fleet tracker was seen mid-run. */
  withdrawn: number
  /** Shared configs of earlier versions (`beaconkit_<obj>_<field>`) removed by the start-up sweep. */
  legacyRemoved: number
}

/** What it publishes through (the publisher's outbox and state). */
export interface GatewayHaOutput {
  /** A retained message; `always`: clear it even if this run never wrote it. */
  retained(topic: string, payload: string, options?: RetainOptions): void
  /** Publishes the online status with `beacons`; false when it cannot now (not connected, closing). */
  status(beacons: number, now: number): boolean
}

/** A gateway's Home Assistant side; the feed drives `announcer`, the publisher the rest. */
export class GatewayHomeAssistant {
  readonly announcer: HaAnnouncer
  private readonly fleetStatus: string
  private readonly trackersBase: string
  private listening: MqttLink | undefined
  private inRange = 0
  private sentCount: number | undefined
  private sentAt = -Infinity
  private timer: CancelTimer | undefined
  /** Home Assistant's birth: every config again. */
  private readonly birth: HaBirthWatch

  constructor(
    private readonly settings: HaSettings,
    private readonly options: HomeAssistantOptions & {
      beacons: 'auto' | boolean
      names?: HaBeaconNames
      room?: string
    },
    private readonly statusTopic: string,
    private readonly out: GatewayHaOutput,
  ) {
    this.announcer = new HaAnnouncer(
      settings,
      options,
      options.beacons === false ? 'fleet' : 'standalone',
      options.names,
    )
    this.fleetStatus = `${settings.topicPrefix}/fleet/status`
    this.trackersBase = `${settings.topicPrefix}/fleet/trackers/`
    this.birth = new HaBirthWatch(settings.prefix, () => this.announceAll({ beacons: true }))
  }

  /** The Home Assistant side of the gateway with `topics`, its options checked; `heartbeatMs` sets `expire_after`. */
  static forGateway(
    options: HomeAssistantOptions & { beacons: 'auto' | boolean; names?: HaBeaconNames; room?: string },
    topics: GatewayTopics,
    heartbeatMs: number,
    out: GatewayHaOutput,
  ): GatewayHomeAssistant {
    const settings: HaSettings = {
      prefix: checkTopicPrefix(options.prefix ?? DEFAULT_HA_PREFIX, 'homeAssistant.prefix'),
      topicPrefix: topics.prefix,
      gatewayId: topics.gateway,
      // A beacon in range is heard at least every heartbeat: miss two and it is unavailable.
      expireAfterSeconds: Math.max(1, Math.ceil((2 * heartbeatMs) / 1000)),
    }
    return new GatewayHomeAssistant(settings, options, topics.status, out)
  }

  /** Counters and the mode. */
  get stats(): HaPublisherStats {
    const a = this.announcer
    return {
      ...a.gate.stats,
      beacons: this.options.beacons,
      mode: a.mode,
      withdrawn: a.withdrawn,
      legacyRemoved: a.legacyRemoved,
    }
  }

  /** Beacons in range now (the status's `beacons`). */
  get beacons(): number {
    return this.inRange
  }

  /**
   * Connected (again): the device configs, the beacons' configs again when the broker kept no
   * session (it may have lost its retained messages: a restart without persistence), the fleet
   * subscription in 'auto' and Home Assistant's birth (clean sessions forget them), and on the
   * first connection the sweep of an earlier run's configs.
   */
  connected(
    link: MqttLink,
    now: number,
    { first, sessionPresent = false }: { first: boolean; sessionPresent?: boolean },
  ): void {
    this.announceAll({ beacons: !sessionPresent })
    this.birth.connected(link)
    if (this.options.beacons === 'auto' && this.announcer.mode === 'standalone') {
      if (this.listening === undefined) {
        this.listening = link
        link.on('message', this.onFleet)
      }
      // Not allowed to read the fleet's topics (an ACL): standalone it stays.
      link.subscribe(this.fleetFilters(), 1).catch(() => undefined)
    }
    if (first) void this.announcer.sweep(link, now, (topic) => this.out.retained(topic, '', { always: true }))
  }

  /** The gateway device's configs, and with `beacons` every beacon config announced so far. */
  private announceAll({ beacons }: { beacons: boolean }): void {
    const device = haGatewayConfigs(this.settings.prefix, this.settings.gatewayId, this.statusTopic, this.options.room)
    for (const c of device) this.out.retained(c.topic, c.payload)
    if (beacons) for (const c of this.announcer.reannounce()) this.out.retained(c.topic, c.payload)
  }

  /** The online status went out with the current count at `now` (a connection). */
  statusSent(now: number): void {
    this.sentCount = this.inRange
    this.sentAt = now
  }

  /** The beacons in range are `count` now: the status follows, at most every 5 s (on `clock`). */
  count(count: number, now: number, clock: Clock): void {
    this.inRange = Math.max(0, count)
    if (this.inRange === this.sentCount || this.timer !== undefined) return
    const wait = this.sentAt + STATUS_BEACONS_INTERVAL_MS - now
    if (wait > 0) {
      this.timer = clock.setTimeout(() => {
        this.timer = undefined
        this.count(this.inRange, clock.now(), clock)
      }, wait)
      return
    }
    if (this.out.status(this.inRange, now)) this.statusSent(now)
  }

  /** Stops the timer and the fleet listener. */
  close(): void {
    this.timer?.()
    this.timer = undefined
    this.birth.close()
    this.stopListening()
  }

  private stopListening(): void {
    this.listening?.off('message', this.onFleet)
    this.listening = undefined
  }

  private fleetFilters(): string[] {
    return [this.fleetStatus, `${this.trackersBase}+`]
  }

  /** Only the first valid message matters: then the listener and the subscription go. */
  private readonly onFleet = (topic: string, payload: Buffer): void => {
    if (this.announcer.mode !== 'standalone') return
    const rest = topic.startsWith(this.trackersBase) ? topic.slice(this.trackersBase.length) : undefined
    const tracker = rest !== undefined && rest !== '' && !rest.includes('/')
    if ((topic !== this.fleetStatus && !tracker) || readStatusState(payload) === undefined) return
    for (const m of this.announcer.toFleet()) this.out.retained(m.topic, '', { always: true })
    const link = this.listening
    this.stopListening()
    if (link?.connected === true) link.unsubscribe(this.fleetFilters()).catch(() => undefined)
  }
}
