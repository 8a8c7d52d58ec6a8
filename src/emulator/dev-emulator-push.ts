/**
 * The emulator's webhook push (platform docs 6.2–6.4): POSTs a message to the configured URL and, when
 * the answer is not 2xx (or there is none), pushes it again — three pushes in all, then it
 * gives up. Every attempt is recorded so tests can check the redelivery path end to end.
 */

/** One message's delivery. */
export interface Delivery {
  msgId: number
  type: 'text' | 'event'
  /** HTTP status of each push, in order; 0 when no answer came (refused, reset, timed out). */
  attempts: number[]
  /** A push was answered 2xx. */
  delivered: boolean
}

/** How the emulator pushes. */
export interface PushSettings {
  /** Where to push; nothing is pushed while unset. */
  url?: string
  /** Pause before each re-push. */
  redeliveryDelayMs: number
  /**
   * Safe mode (6.1): turns the message's JSON into `encryptData`. The platform's cipher is not published: bring
   * your own.
   */
  encrypt?: (plaintext: string) => string
  /** Headers to add to a push (a signature over its body), for a receiver's `verify` hook. */
  sign?: (body: string) => Record<string, string>
  /** Per push. */
  timeoutMs: number
}

/** Pushes in all per message (platform docs 6.4). */
export const PUSHES_PER_MESSAGE = 3

/** Sends messages and keeps the record; `idle()` waits for every one under way. */
export class WebhookPusher {
  /** Every message pushed, in the order it was first pushed. */
  readonly deliveries: Delivery[] = []
  readonly settings: PushSettings
  readonly #pending = new Set<Promise<unknown>>()
  #closed = false

  constructor(settings: PushSettings) {
    this.settings = settings
  }

  /** Pushes `message` (redelivering as 6.4 says); resolves with its delivery, or undefined when no URL is set. */
  push(message: { msgId: number; type: 'text' | 'event' } & Record<string, unknown>): Promise<Delivery | undefined> {
    const url = this.settings.url
    if (url === undefined || this.#closed) return Promise.resolve(undefined)
    const delivery: Delivery = { msgId: message.msgId, type: message.type, attempts: [], delivered: false }
    this.deliveries.push(delivery)
    const body = this.body(message)
    const run = (async () => {
      for (let n = 0; n < PUSHES_PER_MESSAGE && !this.#closed; n++) {
        if (n > 0) await new Promise((r) => setTimeout(r, this.settings.redeliveryDelayMs))
        const status = await this.post(url, body)
        delivery.attempts.push(status)
        if (status >= 200 && status < 300) {
          delivery.delivered = true
          break
        }
      }
      return delivery
    })()
    this.track(run)
    return run
  }

  /** Resolves once every push under way (and any started meanwhile) has finished. */
  async idle(): Promise<void> {
    while (this.#pending.size > 0) await Promise.allSettled([...this.#pending])
  }

  /** Keeps `work` counted by `idle()`. */
  track(work: Promise<unknown>): void {
    this.#pending.add(work)
    void work.finally(() => this.#pending.delete(work)).catch(() => undefined)
  }

  /** Stops re-pushing; pushes under way end after their current attempt. */
  close(): void {
    this.#closed = true
  }

  private body(message: Record<string, unknown>): string {
    const encrypt = this.settings.encrypt
    if (encrypt === undefined) return JSON.stringify(message)
    // Safe mode: the routing fields stay readable, the content travels as encryptData.
    const { appId, type, msgId, createdTime } = message
    return JSON.stringify({ appId, type, msgId, createdTime, encryptData: encrypt(JSON.stringify(message)) })
  }

  private async post(url: string, body: string): Promise<number> {
    try {
      const headers = { 'content-type': 'application/json', ...(this.settings.sign?.(body) ?? {}) }
      const res = await fetch(url, {
        method: 'POST',
        body,
        headers,
        redirect: 'manual',
        signal: AbortSignal.timeout(this.settings.timeoutMs),
      })
      await res.body?.cancel().catch(() => undefined)
      return res.status
    } catch {
      return 0
    }
  }
}
