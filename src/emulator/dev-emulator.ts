/**
 * The developer interface in the emulator (docs/developer-interface.md, "The emulator"): the
 * routes under `/developers`, downlink tasks that complete after a delay and push a task event,
 * sensor data pushes, and injected platform failures.
 */
import { InvalidOptionError } from '../errors.js'
import { WebhookPusher } from './dev-emulator-push.js'
import type { Delivery } from './dev-emulator-push.js'
import { developerRoute, EnvelopeError } from './dev-emulator-routes.js'
import { DeveloperStore } from './dev-emulator-store.js'
import type { EmulatorTask } from './dev-emulator-store.js'

/** Options of the developer part of `startEmulator()`. */
export interface DeveloperEmulatorOptions {
  /** AppID in pushed messages. Default `emulator-app`. */
  appId?: string
  /** How long a downlink task takes before it completes and its event is pushed. Default 200 ms. */
  taskDelayMs?: number
  /** Pause before each re-push of a message answered non-2xx. Default 1000 ms. */
  redeliveryDelayMs?: number
  /**
   * Safe mode (platform docs 6.1): turns each pushed message's JSON into `encryptData`. The platform's cipher
   * is not published: bring your own.
   */
  encrypt?: (plaintext: string) => string
  /** Headers added to each push (e.g. a signature over the body) for a receiver's `verify` hook. */
  sign?: (body: string) => Record<string, string>
}

/** The developer side of a running emulator. */
export interface DeveloperEmulator {
  /** Devices, stations, owners, tasks and history; tests may read and change it. */
  readonly store: DeveloperStore
  /** Every pushed message and the status of each of its pushes. */
  readonly deliveries: readonly Delivery[]
  /** Where pushes go (undefined: nowhere). */
  webhookUrl: string | undefined
  /**
   * Pushes a sensor data message (6.2) for device `sn` and adds it to its history; resolves once delivered or
   * given up.
   */
  pushData(sn: string, data?: Record<string, unknown>): Promise<Delivery | undefined>
  /** The next `times` developer requests (default 1) fail with `errCode` (-1, 500, or any code of part 7). */
  failNext(errCode: number, times?: number): void
  /** Resolves once no task is pending and no push is under way. */
  idle(): Promise<void>
}

function nonNegative(value: number | undefined, fallback: number, option: string): number {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value < 0)
    throw new InvalidOptionError('invalid_option', `${option} must be a number of milliseconds >= 0`, { option })
  return value
}

/** The developer emulator behind the HTTP server; `handle` answers one request. */
export class DeveloperEmulatorCore implements DeveloperEmulator {
  readonly store: DeveloperStore
  readonly #pusher: WebhookPusher
  readonly #appId: string
  readonly #taskDelayMs: number
  /** Pending tasks: each timer with what ends its wait in `idle()`. */
  readonly #timers = new Map<NodeJS.Timeout, () => void>()
  #failures: number[] = []

  constructor(seed: number, webhookUrl: string | undefined, options: DeveloperEmulatorOptions = {}) {
    if (webhookUrl !== undefined) {
      try {
        new URL(webhookUrl)
      } catch {
        throw new InvalidOptionError(
          'invalid_option',
          'webhookUrl must be an absolute URL such as http://127.0.0.1:8080/',
          { option: 'webhookUrl' },
        )
      }
    }
    this.store = new DeveloperStore(seed)
    this.#appId = options.appId ?? 'emulator-app'
    this.#taskDelayMs = nonNegative(options.taskDelayMs, 200, 'developer.taskDelayMs')
    this.#pusher = new WebhookPusher({
      url: webhookUrl,
      redeliveryDelayMs: nonNegative(options.redeliveryDelayMs, 1000, 'developer.redeliveryDelayMs'),
      timeoutMs: 10_000,
      ...(options.encrypt === undefined ? {} : { encrypt: options.encrypt }),
      ...(options.sign === undefined ? {} : { sign: options.sign }),
    })
  }

  get deliveries(): readonly Delivery[] {
    return this.#pusher.deliveries
  }

  get webhookUrl(): string | undefined {
    return this.#pusher.settings.url
  }

  set webhookUrl(url: string | undefined) {
    this.#pusher.settings.url = url
  }

  pushData(sn: string, data: Record<string, unknown> = {}): Promise<Delivery | undefined> {
    const device = this.store.devices.get(sn)
    if (device === undefined)
      throw new InvalidOptionError('invalid_option', `no device ${sn} in the emulator; pick one of store.devices`, {
        option: 'sn',
      })
    const msgId = this.store.msgId()
    const createdTime = Date.now()
    this.store.addHistory({ msgId: String(msgId), createdTime, sn, data })
    return this.#pusher.push({
      appId: this.#appId,
      sn,
      type: 'text',
      deviceType: device.deviceType,
      createdTime,
      msgId,
      data,
    })
  }

  failNext(errCode: number, times = 1): void {
    if (!Number.isInteger(errCode) || errCode === 0)
      throw new InvalidOptionError('invalid_option', 'errCode must be a non-zero integer such as -1 or 500', {
        option: 'errCode',
      })
    for (let i = 0; i < times; i++) this.#failures.push(errCode)
  }

  idle(): Promise<void> {
    return this.#pusher.idle()
  }

  /** Answers a request below `/developers` (`parts` after it): status and JSON body. */
  handle(method: string, parts: string[], query: URLSearchParams, body: unknown): [number, unknown] {
    try {
      const injected = this.#failures.shift()
      if (injected !== undefined)
        throw new EnvelopeError(
          injected === -1 ? 503 : 500,
          injected,
          injected === -1 ? 'system busy, retry later' : 'injected failure',
        )
      return developerRoute(this.store, (tasks) => this.schedule(tasks), method, parts, query, body)
    } catch (e) {
      if (e instanceof EnvelopeError) return [e.status, e.body()]
      throw e
    }
  }

  /** Stops the task timers and re-pushes. */
  close(): void {
    for (const [t, done] of this.#timers) {
      clearTimeout(t)
      done()
    }
    this.#timers.clear()
    this.#pusher.close()
  }

  private schedule(tasks: EmulatorTask[]): void {
    for (const task of tasks) {
      let done = (): void => undefined
      this.#pusher.track(new Promise<void>((resolve) => (done = resolve)))
      const timer = setTimeout(() => {
        this.#timers.delete(timer)
        const resultCode = this.store.complete(task)
        // Counted by idle() from the moment the task was created until its event is delivered or given up.
        void this.#pusher.push({
          appId: this.#appId,
          taskId: String(task.taskId),
          type: 'event',
          createdTime: Date.now(),
          msgId: this.store.msgId(),
          data: { resultCode, resultData: { sn: task.sn, scheduleNo: task.scheduleNo, kind: task.kind } },
        })
        done()
      }, this.#taskDelayMs)
      this.#timers.set(timer, () => done())
    }
  }
}
