/**
 * Reading the retained fleet states `<p>/fleet/beacons/+` once, for what another run or another
 * tracker left there: scale-out seeds the partitions it takes over from them, and a starting
 * tracker finds the states nobody confirms any more (ghost-states.ts).
 *
 * One read: subscribe to the filter, publish a nonce to the tracker's own sync topic and wait
 * for its echo (the broker delivers the retained messages of a subscription before what is
 * published after it), then unsubscribe. Reads are serialized: two at once would unsubscribe
 * each other's filter.
 */

import { randomBytes } from 'node:crypto'
import type { MqttLink } from '../mqtt/connection.js'

/** How long to wait for the echo before going on with what arrived. */
const READ_TIMEOUT_MS = 10_000

/** The tracker's reader of retained fleet states. */
export class RetainedReader {
  private readonly base: string
  private reading: { nonce: string; each: (id: string, payload: Buffer) => void; done: () => void } | undefined
  private queue: Promise<void> = Promise.resolve()
  private stopped = false

  /**
   * @param prefix the topic prefix `<p>`
   * @param syncTopic a topic the tracker is subscribed to and nobody else publishes on
   */
  constructor(
    prefix: string,
    readonly syncTopic: string,
  ) {
    this.base = `${prefix}/fleet/beacons/`
  }

  /** `<p>/fleet/beacons/+` */
  get filter(): string {
    return `${this.base}+`
  }

  /**
   * Calls `each` with the beacon id and payload of every non-empty retained state, then
   * resolves. Rejects when the connection goes meanwhile (subscribe or unsubscribe fails).
   */
  read(link: MqttLink, each: (id: string, payload: Buffer) => void): Promise<void> {
    const run = this.queue.then(() => this.readNow(link, each))
    this.queue = run.catch(() => undefined)
    return run
  }

  private async readNow(link: MqttLink, each: (id: string, payload: Buffer) => void): Promise<void> {
    if (this.stopped) return
    const nonce = randomBytes(6).toString('hex')
    let timer: NodeJS.Timeout | undefined
    const echoed = new Promise<void>((resolve) => {
      this.reading = { nonce, each, done: resolve }
      timer = setTimeout(resolve, READ_TIMEOUT_MS)
    })
    try {
      await link.subscribe([this.filter], 1)
      link.client?.publish(this.syncTopic, nonce, { qos: 1, retain: false })
      await echoed
    } finally {
      clearTimeout(timer)
      this.reading = undefined
    }
    await link.unsubscribe([this.filter])
  }

  /** A message for the reader (a state under the filter, or the echo); true when it was. */
  onMessage(topic: string, payload: Buffer): boolean {
    if (topic === this.syncTopic) {
      if (this.reading !== undefined && payload.toString('utf8') === this.reading.nonce) this.reading.done()
      return true
    }
    if (!topic.startsWith(this.base)) return false
    const id = topic.slice(this.base.length)
    if (this.reading !== undefined && payload.length > 0 && !id.includes('/')) this.reading.each(id, payload)
    return true
  }

  /** Ends a read in progress (the connection went, or the tracker stops). */
  cancel(): void {
    this.reading?.done()
  }

  /** No read starts any more. */
  stop(): void {
    this.stopped = true
    this.cancel()
  }
}
