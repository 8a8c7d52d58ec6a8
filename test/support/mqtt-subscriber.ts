/**
 * A real MQTT subscriber for tests (mqtt.js): collects every message on a filter, and reads what
 * a broker retains. "Everything has arrived" is known, not guessed: the subscriber publishes a
 * marker after its subscription and waits for it to come back, which a broker delivers after
 * the retained messages and after everything published to it before.
 */

import mqtt from 'mqtt'
import type { IClientOptions, MqttClient } from 'mqtt'
import { waitFor } from '../integration/wait.js'

/** One received message. */
export interface Received {
  topic: string
  payload: string
  retain: boolean
  qos: number
}

/** A connected subscriber. */
export class Subscriber {
  readonly messages: Received[] = []
  private markers = 0

  private constructor(private readonly client: MqttClient) {
    client.on('message', (topic, payload, packet) => {
      this.messages.push({ topic, payload: payload.toString('utf8'), retain: packet.retain, qos: packet.qos })
    })
  }

  /**
   * Connects and subscribes to `filter` at QoS 1. MQTT 3.1.1 by default (aedes speaks no more);
   * with `protocolVersion: 5` the subscription keeps the publisher's retain flag (retain as
   * published), so the flag of every live message can be checked.
   */
  static async connect(url: string, filter: string | string[] = '#', options: IClientOptions = {}): Promise<Subscriber> {
    const client = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 10_000, ...options })
    const sub = new Subscriber(client)
    await client.subscribeAsync(filter, { qos: 1, ...(options.protocolVersion === 5 ? { rap: true } : {}) })
    return sub
  }

  /** Messages on one topic. */
  on(topic: string): Received[] {
    return this.messages.filter((m) => m.topic === topic)
  }

  /** Waits until `check` holds for the messages so far. */
  async until(check: (messages: Received[]) => boolean, what: string, timeoutMs = 20_000): Promise<void> {
    await waitFor(() => check(this.messages), what, timeoutMs)
  }

  /**
   * Waits until everything the broker had for this subscriber when called has arrived: publishes
   * a marker and waits for it. Needs a filter that covers `beaconkit-test/marker/#`.
   */
  async sync(timeoutMs = 20_000): Promise<void> {
    const topic = `beaconkit-test/marker/${process.pid}/${++this.markers}`
    await this.client.publishAsync(topic, 'm', { qos: 1 })
    await this.until((ms) => ms.some((m) => m.topic === topic), `marker ${topic}`, timeoutMs)
  }

  async close(): Promise<void> {
    await this.client.endAsync()
  }
}

/** What the broker retains under `filter` now: topic → payload (empty retained messages are not retained). */
export async function retainedMessages(url: string, filter: string | string[] = '#', options: IClientOptions = {}): Promise<Map<string, string>> {
  const filters = [...(Array.isArray(filter) ? filter : [filter]), 'beaconkit-test/marker/#']
  const sub = await Subscriber.connect(url, filters, options)
  try {
    await sub.sync()
    return new Map(sub.messages.filter((m) => m.retain).map((m) => [m.topic, m.payload]))
  } finally {
    await sub.close()
  }
}
