/**
 * A real MQTT subscriber for tests (mqtt.js): collects every message on a filter, and reads what
 * a broker retains. "Everything has arrived" is known, not guessed: the subscriber publishes a
 * marker after its subscription and waits for it to come back, which a broker delivers after
 * everything published to it before; retained messages are read behind a retained marker
 * (retainedMessages()).
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

let retainedMarkers = 0

/**
 * What the broker retains under `filter` now: topic → payload (empty retained messages are not
 * retained). A live marker (sync()) cannot tell when the retained messages are all in: aedes
 * streams them after the SUBACK, asynchronously, and a live message can overtake the stream.
 * So a retained marker is stored first and subscribed to by the last filter: brokers send the
 * retained messages of one SUBSCRIBE filter by filter, so the marker comes after all the others.
 * For that, no filter may cover the marker's topic (none may start with a wildcard).
 */
export async function retainedMessages(url: string, filter: string | string[], options: IClientOptions = {}): Promise<Map<string, string>> {
  const filters = Array.isArray(filter) ? filter : [filter]
  const covering = filters.find((f) => f.startsWith('#') || f.startsWith('+') || f.startsWith('beaconkit-test/'))
  if (covering !== undefined) throw new Error(`retainedMessages: the filter ${covering} covers the retained marker; name a first topic level`)
  const marker = `beaconkit-test/retained-marker/${process.pid}/${++retainedMarkers}`
  const pub = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 10_000, ...options })
  try {
    await pub.publishAsync(marker, 'm', { qos: 1, retain: true })
    const sub = await Subscriber.connect(url, [...filters, marker], options)
    try {
      await sub.until((ms) => ms.some((m) => m.topic === marker), `retained marker ${marker}`)
      return new Map(sub.messages.filter((m) => m.retain && m.topic !== marker).map((m) => [m.topic, m.payload]))
    } finally {
      await sub.close()
    }
  } finally {
    // Leaves nothing retained behind.
    await pub.publishAsync(marker, '', { qos: 1, retain: true })
    await pub.endAsync()
  }
}
