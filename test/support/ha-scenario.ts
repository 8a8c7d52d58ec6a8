/**
 * A Home Assistant scenario through a real broker, judged step by step (ha-judge.ts): gateways
 * made of the publisher API (a PushSource, a BeaconScanner and an MqttPublisher each, all on one
 * virtual clock), optionally a FleetTracker on the same clock, and a subscriber that hands what
 * the broker delivers to two judges: one as Home Assistant reads it, one with the availability
 * removed from every config (the value HA holds behind "unavailable"). With a tracker, time moves
 * a second at a time in lockstep (every RSSI batch published is received by the tracker before
 * the clock moves on), so the run is the same however loaded the machine is.
 */

import { VirtualClock } from '../../src/clock.js'
import { parseAdvertisementLine } from '../../src/advertisement.js'
import type { Advertisement } from '../../src/advertisement.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import type { MqttPublisherOptions } from '../../src/mqtt/publisher-options.js'
import type { FleetTracker } from '../../src/fleet/tracker.js'
import { HaJudge } from './ha-judge.js'
import type { HaMessage } from './ha-judge.js'
import { retainedMessages, Subscriber } from './mqtt-subscriber.js'
import { PushSource } from './push-source.js'
import { waitFor } from '../integration/wait.js'
import { T0, vendorLine } from '../sources/helpers.js'

/** One gateway of the scenario. */
export interface ScenarioGateway {
  source: PushSource
  scanner: BeaconScanner
  publisher: MqttPublisher
  stopped: boolean
}

/** What a gateway hears of the beacon in one second, or undefined when it hears nothing. */
export type Hearing = (gateway: string, t: number) => { rssi: number; temperature: number } | undefined

/** One judged step: entity (short name) → `shown | value behind the availability`. */
export interface ScenarioStep {
  step: string
  shown: Record<string, string>
}

function adv(line: string): Advertisement {
  const parsed = parseAdvertisementLine(line)
  if (parsed.kind !== 'advertisement') throw new Error('bad test line')
  return parsed.advertisement
}

/** Drops `availability` from a discovery config: the judge of the values behind it. */
function stripAvailability(ha: string, m: HaMessage): HaMessage {
  if (!m.topic.startsWith(`${ha}/`) || m.payload === '') return m
  const c = JSON.parse(m.payload) as Record<string, unknown>
  delete c.availability
  return { ...m, payload: JSON.stringify(c) }
}

/** A scenario on one broker, topic prefix `beaconkit`. */
export class HaScenario {
  readonly clock = new VirtualClock(T0)
  readonly gateways = new Map<string, ScenarioGateway>()
  readonly judge: HaJudge
  readonly values: HaJudge
  readonly table: ScenarioStep[] = []
  /** Virtual ms since T0. */
  t = 0
  tracker: FleetTracker | undefined
  private read = 0

  private constructor(
    readonly url: string,
    readonly ha: string,
    readonly serial: string,
    readonly sub: Subscriber,
  ) {
    this.judge = new HaJudge({ discoveryPrefix: ha })
    this.values = new HaJudge({ discoveryPrefix: ha })
  }

  /** Subscribes (MQTT 5, retain as published: the judge needs to know what the broker retains). */
  static async open(url: string, ha: string, serial: string): Promise<HaScenario> {
    const sub = await Subscriber.connect(url, ['beaconkit/#', `${ha}/#`, 'beaconkit-test/marker/#'], { protocolVersion: 5 })
    return new HaScenario(url, ha, serial, sub)
  }

  /** Starts a gateway with Home Assistant on (`ha` options merged into the prefix). */
  async addGateway(id: string, ha: Record<string, unknown> = {}): Promise<ScenarioGateway> {
    const source = new PushSource(this.clock)
    const scanner = new BeaconScanner({ source, goneTimeoutMs: 30_000 })
    const options: MqttPublisherOptions = { url: this.url, gatewayId: id, clientId: `ha-scenario-${id}`, homeAssistant: { prefix: this.ha, ...ha } }
    const publisher = new MqttPublisher(options)
    publisher.attach(scanner)
    const connected = new Promise((resolve) => publisher.once('connected', resolve))
    await publisher.connect()
    await connected
    await scanner.start()
    const g = { source, scanner, publisher, stopped: false }
    this.gateways.set(id, g)
    return g
  }

  /** Stops a gateway cleanly (its status goes offline, retained). */
  async stopGateway(id: string): Promise<void> {
    const g = this.gateways.get(id)
    if (g === undefined || g.stopped) return
    g.stopped = true
    await g.scanner.stop()
    await g.publisher.close()
  }

  /**
   * Runs virtual time to T0 + `until`, each gateway hearing what `hearing` says once a second.
   * With a tracker, in lockstep: the tracker has every published batch before the clock moves on.
   */
  async run(until: number, hearing: Hearing): Promise<void> {
    for (; this.t < until; this.t += 1000) {
      this.clock.advanceTo(T0 + this.t)
      for (const [id, g] of this.gateways) {
        const h = g.stopped ? undefined : hearing(id, this.t)
        if (h !== undefined) g.source.emit('advertisement', adv(vendorLine(this.t, 'aa:00:00:00:00:24', this.serial, h)))
      }
      if (this.tracker !== undefined) await this.lockstep(this.tracker)
    }
    this.clock.advanceTo(T0 + this.t)
    if (this.tracker !== undefined) await this.lockstep(this.tracker)
  }

  private async lockstep(tracker: FleetTracker): Promise<void> {
    const live = [...this.gateways.values()].filter((g) => !g.stopped)
    await Promise.all(live.map((g) => g.publisher.flush(30_000)))
    const published = [...this.gateways.values()].reduce((n, g) => n + g.publisher.stats.byKind.rssi, 0)
    await waitFor(() => tracker.stats.batches >= published, `the tracker to have ${published} batches at t=${this.t}`, 60_000)
  }

  /**
   * Hands everything delivered since the last step to both judges at the current time; the step
   * goes into the printed table unless `inTable` is false (a check between the table's steps).
   */
  async step(name: string, inTable = true): Promise<ScenarioStep> {
    for (const g of this.gateways.values()) if (!g.stopped) await g.publisher.flush(30_000)
    await this.tracker?.flush()
    await this.sub.sync()
    const batch = this.sub.messages.slice(this.read).filter((m) => !m.topic.startsWith('beaconkit-test/'))
    this.read = this.sub.messages.length
    const messages = batch.map((m) => ({ topic: m.topic, payload: m.payload, retain: m.retain }))
    this.judge.receive(messages, T0 + this.t)
    this.values.receive(messages.map((m) => stripAvailability(this.ha, m)), T0 + this.t)
    return this.record(name, inTable)
  }

  /** Home Assistant restarts and re-reads what the broker retains. */
  async restart(name: string): Promise<ScenarioStep> {
    await this.sub.sync()
    this.read = this.sub.messages.length
    const retained = await retainedMessages(this.url, ['beaconkit/#', `${this.ha}/#`])
    this.judge.restart(T0 + this.t, retained)
    this.values.restart(T0 + this.t, new Map([...retained].map(([topic, payload]) => [topic, stripAvailability(this.ha, { topic, payload }).payload])))
    return this.record(name)
  }

  /** The short name of an entity in the table: `sensor/hall/B_temperature`, `device_tracker/B`, `binary_sensor/gw_hall/connectivity`. */
  short(topic: string): string {
    return topic.replace(`${this.ha}/`, '').replace('/config', '').replaceAll('beaconkit_', '').replace(this.serial.toLowerCase(), 'B')
  }

  private record(name: string, inTable = true): ScenarioStep {
    const shown: Record<string, string> = {}
    const behind = this.values.shown()
    for (const [topic, state] of [...this.judge.shown()].sort(([a], [b]) => a.localeCompare(b))) shown[this.short(topic)] = `${state} | ${behind.get(topic) ?? '-'}`
    const step = { step: name, shown }
    if (inTable) this.table.push(step)
    return step
  }

  /** What an entity showed at a step (before the `|`), or undefined when HA had no such entity. */
  static shown(step: ScenarioStep, entity: string): string | undefined {
    return step.shown[entity]?.split(' | ')[0]
  }

  /** The judged table, printed as the tests' evidence (docs/home-assistant.md is taken from it). */
  print(title: string): void {
    const lines = this.table.map((r) => `${r.step}\n${Object.entries(r.shown).map(([k, v]) => `    ${k.padEnd(36)} ${v}`).join('\n')}`)
    console.log(`${title} (state | value behind the availability), beacon ${this.serial} = B:\n${lines.join('\n')}\n${this.judge.log.length} HA log lines${this.judge.log.length > 0 ? `, e.g. ${this.judge.log[0]}` : ''}`)
  }

  /** Stops everything this scenario started (gateways, the subscriber; the tracker is the caller's). */
  async close(): Promise<void> {
    await this.sub.close()
    for (const id of this.gateways.keys()) await this.stopGateway(id)
  }
}
