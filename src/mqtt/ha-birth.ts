/**
 * Home Assistant's birth message (`<discovery prefix>/status` `online`, sent when it starts or
 * reconnects): whoever announces discovery configs announces them all again then, as
 * zigbee2mqtt does, so a Home Assistant that lost them (a broker restarted without persistence,
 * configs cleared by hand) gets its entities back. Anyone allowed to write that topic can send
 * it, so a flood is answered at most once per {@link BIRTH_MIN_INTERVAL_MS} (the last one late,
 * never dropped).
 */

import type { MqttLink } from './connection.js'

/** Births are answered at most this often (ms of wall time). */
export const BIRTH_MIN_INTERVAL_MS = 5000

/** A birth payload is `online`; anything longer is not one. */
const MAX_BIRTH_BYTES = 16

/** `<discovery prefix>/status` */
export function haBirthTopic(haPrefix: string): string {
  return `${haPrefix}/status`
}

/** Watches one link for Home Assistant's birth and calls `announce` (rate-limited). */
export class HaBirthWatch {
  readonly topic: string
  private link: MqttLink | undefined
  private lastAt = -Infinity
  private timer: ReturnType<typeof setTimeout> | undefined

  constructor(
    haPrefix: string,
    private readonly announce: () => void,
    private readonly minIntervalMs = BIRTH_MIN_INTERVAL_MS,
  ) {
    this.topic = haBirthTopic(haPrefix)
  }

  /**
   * Connected (again): listens on `link` and subscribes (a clean session forgets subscriptions).
   * A broker ACL that forbids reading the topic only costs the re-announcement on a birth.
   */
  connected(link: MqttLink): void {
    if (this.link !== link) {
      this.link?.off('message', this.onMessage)
      this.link = link
      link.on('message', this.onMessage)
    }
    link.subscribe([this.topic], 1).catch(() => undefined)
  }

  /** Stops listening and drops a pending answer. */
  close(): void {
    this.link?.off('message', this.onMessage)
    this.link = undefined
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
  }

  // A retained `online` is not a birth: it was there before us (and a connection announces anyway).
  private readonly onMessage = (topic: string, payload: Buffer, retained: boolean): void => {
    if (topic !== this.topic || retained || payload.length > MAX_BIRTH_BYTES) return
    if (payload.toString('utf8').trim() !== 'online') return
    if (this.timer !== undefined) return
    const wait = this.lastAt + this.minIntervalMs - Date.now()
    if (wait <= 0) {
      this.fire()
      return
    }
    this.timer = setTimeout(() => {
      this.timer = undefined
      this.fire()
    }, wait)
    this.timer.unref()
  }

  private fire(): void {
    this.lastAt = Date.now()
    this.announce()
  }
}
