/**
 * What `beaconkit survey` hears while a point is recorded: its connection to the fleet's broker
 * (through the root's openBrokerLink), subscribed to every gateway's RSSI batches, and the
 * recorder that keeps the carried beacon's readings as survey samples.
 */

import { openBrokerLink } from '../../gateway/broker-link.js'
import { connectionConditions } from '../../gateway/connection-conditions.js'
import type { Logger } from '../../log/logger.js'
import type { MqttLink } from '../../mqtt/connection.js'
import type { SurveySample } from '../../positioning/types.js'
import type { MqttFlags } from '../command-line.js'

/** Collects one beacon's readings from every gateway's RSSI batches while a point is being recorded. */
export class Recorder {
  private current: { x: number; y: number; samples: SurveySample[]; gateways: Set<string> } | undefined
  malformed = 0

  constructor(
    private readonly prefix: string,
    private readonly beacon: string,
  ) {}

  onMessage(topic: string, payload: Buffer): void {
    const c = this.current
    const base = `${this.prefix}/gateways/`
    if (c === undefined || !topic.startsWith(base) || payload.length === 0) return
    const [gateway, kind, extra] = topic.slice(base.length).split('/')
    if (kind !== 'rssi' || extra !== undefined || gateway === undefined || gateway === '') return
    let batch: unknown
    try {
      batch = JSON.parse(payload.toString('utf8'))
    } catch {
      this.malformed++
      return
    }
    const readings = (batch as { readings?: unknown } | null)?.readings
    if (!Array.isArray(readings)) {
      this.malformed++
      return
    }
    for (const r of readings as unknown[]) {
      const o = r as { id?: unknown; rssi?: unknown } | null
      if (o === null || typeof o !== 'object' || o.id !== this.beacon) continue
      if (typeof o.rssi !== 'number' || !Number.isFinite(o.rssi) || o.rssi < -130 || o.rssi > 20) {
        this.malformed++
        continue
      }
      c.samples.push({ x: c.x, y: c.y, anchor: gateway, rssi: o.rssi })
      c.gateways.add(gateway)
    }
  }

  begin(x: number, y: number): void {
    this.current = { x, y, samples: [], gateways: new Set() }
  }

  end(): { samples: SurveySample[]; gateways: Set<string> } {
    const c = this.current ?? { samples: [], gateways: new Set<string>() }
    this.current = undefined
    return c
  }
}

/** Opens the survey's connection to the fleet's broker, subscribed to every gateway's RSSI batches for `recorder`. */
export async function connect(mqtt: MqttFlags, recorder: Recorder, prefix: string, log: Logger): Promise<MqttLink> {
  const link = await openBrokerLink(
    {
      url: mqtt.url,
      topicPrefix: prefix,
      ...(mqtt.username === undefined ? {} : { username: mqtt.username }),
      ...(mqtt.passwordFile === undefined ? {} : { passwordFile: mqtt.passwordFile }),
    },
    { gatewayId: 'survey', clientId: `beaconkit-survey-${process.pid}` },
  )
  let subscribed: () => void = () => undefined
  const ready = new Promise<void>((resolve) => {
    subscribed = resolve
  })
  const subscribe = async (): Promise<void> => {
    try {
      // A clean session forgets subscriptions: subscribe on every connection.
      await link.subscribe([`${prefix}/gateways/+/rssi`], 0)
      subscribed()
    } catch (error) {
      log.warn(`survey: subscribing failed (${(error as Error).message}); retrying on the next connection`)
    }
  }
  // One line when a problem starts and one when it clears, not one per retry.
  const problems = connectionConditions(log)
  link.on('error', (error) => problems.error(error))
  link.on('connected', () => problems.connected())
  link.on('disconnected', () => problems.disconnected())
  link.on('connected', () => void subscribe())
  link.on('message', (topic, payload) => recorder.onMessage(topic, payload))
  if (link.connected) void subscribe()
  await ready
  return link
}

/** Survey samples as lines of the samples file (`x,y,anchor,rssi`). */
export function csv(samples: readonly SurveySample[]): string {
  return samples.map((s) => `${s.x},${s.y},${s.anchor},${s.rssi}\n`).join('')
}
