/**
 * The positioner on a worker thread. A fleet of thousands of positioned beacons spends most of
 * its CPU in the grid filter (every beacon, every second); on the thread that reads the broker,
 * that work competes with the readings themselves. Here the filter runs on another core: readings
 * are handed over in columns, and once per tick the owner asks for the beacons it is about to
 * place, in its order, within a time budget. The estimates are the in-thread `Positioner`'s own
 * (the same code over the same readings in the same order).
 */
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { Worker } from 'node:worker_threads'
import { InvalidOptionError, PositioningThreadError } from '../errors.js'
import { Positioner } from './positioner.js'
import { usableObservation } from './positioner-options.js'
import type { ThreadedPositionerOptions, ThreadedPositionerStats } from './positioner-thread-types.js'
import type { RadioMap } from './radio-map.js'
import type { Site } from './site.js'
import type {
  EstimateMessage,
  FixesMessage,
  ForgottenMessage,
  FromWorker,
  MemoryMessage,
  ObserveMessage,
  WorkerStart,
} from './thread-messages.js'
import { SlotTable } from './thread-slots.js'
import type { Observation, PositionEstimate } from './types.js'

/** Readings gathered before they are handed over (a few ms of a large fleet's traffic). */
const CHUNK = 4096
/** ms an estimate request may take beyond its budget before the tick goes on without it. */
const REPLY_GRACE_MS = 5000

/** The build's worker script: next to this module in dist, or dist's from the sources (tests). */
function workerScript(): URL {
  const sibling = new URL('./positioner-worker.js', import.meta.url)
  if (existsSync(fileURLToPath(sibling))) return sibling
  return new URL('../../dist/positioner-worker.js', import.meta.url)
}

/** An estimate request: its slots are read, and it is sent, once no beacon waits for a slot. */
interface Request {
  id: number
  beacons: readonly string[]
  time: number
  budgetMs: number
  slots?: Int32Array
  resolve: (done: number) => void
  timer: NodeJS.Timeout
}

/** Columns of readings waiting to be handed over. */
class Pending {
  n = 0
  slot = new Int32Array(CHUNK)
  anchor = new Int32Array(CHUNK)
  time = new Float64Array(CHUNK)
  rssi = new Float64Array(CHUNK)
}

/**
 * A {@link Positioner} on a worker thread, for a fleet tracker: `observe` and `forget` as
 * usual; `prepare(beacons, time, budgetMs)` estimates those beacons on the thread, after which
 * `estimate` answers from what it returned (the latest fix of each beacon, whatever the time
 * asked). Started on the first reading; `close()` stops the thread, and readings after it are
 * ignored. At most `maxBeacons` beacons are held on either thread (thread-slots.ts).
 */
export class ThreadedPositioner {
  readonly #counters = { sent: 0, dropped: 0, invalid: 0, heapBytes: 0 }
  readonly #site: Site
  readonly #map: RadioMap
  readonly #options: ThreadedPositionerOptions
  readonly #maxPending: number
  /** Validates the options at once, and positions in this thread if the worker fails. */
  readonly #local: Positioner
  #worker: Worker | undefined
  #failed = false
  #closed = false
  #pending = new Pending()
  #forget: number[] = []
  #flushQueued = false
  /** Readings the worker has taken in (from its latest answer). */
  #applied = 0
  readonly #table: SlotTable
  #requestId = 0
  readonly #memoryWaiting = new Map<number, (bytes: number | undefined) => void>()
  #waiting: Request | undefined

  constructor(options: ThreadedPositionerOptions) {
    this.#local = new Positioner(options)
    this.#site = options.site
    this.#map = this.#local.radioMap
    this.#options = options
    // A slot let go of is told to the worker with the next hand-over, which confirms it.
    this.#table = new SlotTable(this.#local.maxBeacons, (slot) => {
      this.#forget.push(slot)
      this.#flushSoon()
    })
    const max = options.maxPending ?? 250_000
    if (!Number.isInteger(max) || max < CHUNK)
      throw new InvalidOptionError(
        'invalid_option',
        `positioner thread: maxPending is ${max}; give a whole number of readings, at least ${CHUNK}`,
        { option: 'maxPending' },
      )
    this.#maxPending = max
  }

  /** ms of packets the filter folds into one update (the positioner's `stepMs`). */
  get stepMs(): number {
    return this.#local.stepMs
  }

  /** Counters (a copy). */
  get stats(): ThreadedPositionerStats {
    return { ...this.#counters, failed: this.#failed, slots: this.#table.slots, waiting: this.#table.waiting }
  }

  /** Beacons with state (as the positioner's `size`): at most `maxBeacons`. */
  get size(): number {
    return this.#failed ? this.#local.size : this.#table.size
  }

  /** Takes one reading; bad ones are counted, never thrown. */
  observe(o: Observation): void {
    if (this.#failed) return this.#local.observe(o)
    if (this.#closed) return
    const a = this.#map.index(o.anchor)
    if (a < 0 || !usableObservation(o)) {
      this.#counters.invalid++
      return
    }
    if (this.#counters.sent - this.#applied + this.#pending.n + this.#table.heldRows >= this.#maxPending) {
      this.#counters.dropped++
      return
    }
    // At the positioner's bound the beacon heard least recently is let go, here and there; a new
    // beacon may have to wait for a slot (its reading is then held in the table).
    const slot = this.#table.reading(o.beacon, a, o.time, o.rssi)
    if (slot >= 0) this.#push(slot, a, o.time, o.rssi)
  }

  /** The latest fix `prepare` brought for `beacon` (or, after a failure, this thread's estimate at `time`). */
  estimate(beacon: string, time: number): PositionEstimate | undefined {
    if (this.#failed) return this.#local.estimate(beacon, time)
    const slot = this.#table.slotOf(beacon)
    const out: PositionEstimate | undefined = slot < 0 ? undefined : this.#table.fix(slot)
    if (out === undefined) return undefined
    const room = this.#site.roomAt(out.x, out.y)
    if (room !== undefined) out.room = room
    return out
  }

  /** Lets go of a beacon's state. */
  forget(beacon: string): void {
    if (this.#failed) return this.#local.forget(beacon)
    this.#table.forget(beacon)
  }

  /**
   * Estimates `beacons` at `time` on the thread, in this order, until `budgetMs` of its time
   * is spent; resolves with how many (from the first) were estimated — `estimate` then returns
   * their new fixes, and the rest keep their previous ones. Undefined when the thread failed
   * (`estimate` then works in this thread). Beacons waiting for a slot are given one first
   * (a hand-over and its confirmation), so their readings count.
   */
  prepare(beacons: readonly string[], time: number, budgetMs: number): Promise<number> | undefined {
    if (this.#failed || this.#closed) return undefined
    if (this.#start() === undefined) return undefined
    // Hands over the forgotten slots the waiting beacons need, as well as the readings.
    this.#flush()
    const id = ++this.#requestId
    // A request still unanswered is given up: its answer will be ignored.
    this.#settle(0)
    return new Promise<number>((resolve) => {
      const timer = setTimeout(() => this.#settle(0), budgetMs + REPLY_GRACE_MS)
      timer.unref()
      // The caller's list may change before a deferred request is sent.
      this.#waiting = { id, beacons: this.#table.waiting > 0 ? [...beacons] : beacons, time, budgetMs, resolve, timer }
      this.#ask()
    })
  }

  /**
   * Bytes of the thread's heap and typed arrays now, after a collection when the process runs
   * with `--expose-gc` (what a benchmark reports); undefined without a thread.
   */
  heapBytes(): Promise<number | undefined> {
    const worker = this.#worker
    if (worker === undefined || this.#failed) return Promise.resolve(undefined)
    const id = ++this.#requestId
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(undefined), REPLY_GRACE_MS)
      timer.unref()
      const done = (bytes: number | undefined): void => {
        clearTimeout(timer)
        this.#memoryWaiting.delete(id)
        resolve(bytes)
      }
      this.#memoryWaiting.set(id, done)
      const message: MemoryMessage = { type: 'memory', id }
      worker.postMessage(message)
    })
  }

  /** Stops the thread; its state is let go. */
  async close(): Promise<void> {
    this.#closed = true
    this.#settle(0)
    const worker = this.#worker
    this.#worker = undefined
    await worker?.terminate()
  }

  /** Sends the request waited for, once no beacon waits for a slot (else `#confirmed` calls again). */
  #ask(): void {
    const w = this.#waiting
    const worker = this.#worker
    if (w === undefined || w.slots !== undefined || worker === undefined || this.#table.waiting > 0) return
    this.#flush()
    w.slots = Int32Array.from(w.beacons, (id) => this.#table.slotOf(id))
    const { id, time, budgetMs } = w
    const message: EstimateMessage = { type: 'estimate', id, time, slots: w.slots.slice(), budgetMs }
    worker.postMessage(message, [message.slots.buffer as ArrayBuffer])
  }

  /** One reading into the columns for the thread. */
  #push(slot: number, anchor: number, time: number, rssi: number): void {
    const p = this.#pending
    p.slot[p.n] = slot
    p.anchor[p.n] = anchor
    p.time[p.n] = time
    p.rssi[p.n] = rssi
    p.n++
    if (p.n === CHUNK) this.#flush()
    else this.#flushSoon()
  }

  #start(): Worker | undefined {
    if (this.#worker !== undefined || this.#failed || this.#closed) return this.#worker
    // Everything but what cannot cross threads (the site, the map: sent as parts) or is this side's own.
    const { site: _site, radioMap: _map, maxPending: _pending, onError: _onError, script, ...options } = this.#options
    const start: WorkerStart = { map: this.#map.toParts(), options }
    let worker: Worker
    try {
      worker = new Worker(script ?? workerScript(), { workerData: start })
    } catch (error) {
      this.#fail(error)
      return undefined
    }
    // The thread must not keep a program alive that has nothing else to do.
    worker.unref()
    worker.on('message', (m: FromWorker) => {
      if (m.type === 'fixes') this.#answer(m)
      else if (m.type === 'forgotten') this.#confirmed(m)
      else this.#memoryWaiting.get(m.id)?.(m.heapBytes)
    })
    worker.on('error', (error) => this.#fail(error))
    worker.on('exit', (code) => {
      if (!this.#closed) this.#fail(new Error(`exited with code ${code}`))
    })
    this.#worker = worker
    return worker
  }

  /** Hands what waits over once this turn of the event loop is done (its other readings with it). */
  #flushSoon(): void {
    if (this.#flushQueued) return
    this.#flushQueued = true
    setImmediate(() => this.#flush())
  }

  #flush(): void {
    this.#flushQueued = false
    const p = this.#pending
    if (p.n === 0 && this.#forget.length === 0) return
    const worker = this.#start()
    if (worker === undefined) return
    const message: ObserveMessage = {
      type: 'observe',
      n: p.n,
      slot: p.slot,
      anchor: p.anchor,
      time: p.time,
      rssi: p.rssi,
      forget: Int32Array.from(this.#forget),
    }
    worker.postMessage(message, [
      p.slot.buffer,
      p.anchor.buffer,
      p.time.buffer,
      p.rssi.buffer,
      message.forget.buffer,
    ] as ArrayBuffer[])
    this.#counters.sent += p.n
    this.#pending = new Pending()
    this.#forget = []
  }

  #answer(m: FixesMessage): void {
    this.#applied = m.applied
    this.#counters.heapBytes = m.heapBytes
    const w = this.#waiting
    if (w?.slots === undefined || w.id !== m.id) return
    for (let i = 0; i < m.done; i++) {
      const slot = w.slots[i]
      if (slot >= 0) this.#table.setFix(slot, m.fix[3 * i], m.fix[3 * i + 1], m.fix[3 * i + 2])
    }
    this.#settle(m.done)
  }

  /** The worker let go of forgotten slots: beacons waiting get them, and their held readings go over. */
  #confirmed(m: ForgottenMessage): void {
    this.#applied = m.applied
    for (const { slot, rows } of this.#table.confirm(m.slots)) {
      for (let i = 0; i < rows.length; i += 3) this.#push(slot, rows[i], rows[i + 1], rows[i + 2])
    }
    this.#ask()
  }

  /** Ends the request being waited for (if any): `done` of its beacons have new fixes. */
  #settle(done: number): void {
    const w = this.#waiting
    if (w === undefined) return
    this.#waiting = undefined
    clearTimeout(w.timer)
    w.resolve(done)
  }

  #fail(error: unknown): void {
    if (this.#failed) return
    this.#failed = true
    this.#worker = undefined
    this.#settle(0)
    const reason = error instanceof Error ? error.message : String(error)
    this.#options.onError?.(
      new PositioningThreadError(
        'positioning_thread_failed',
        `positioning thread stopped (${reason}); positions go on in the main thread from scratch, ` +
          'using more of its CPU — check that dist/positioner-worker.js is installed with the package',
        { cause: error },
      ),
    )
  }
}
