/**
 * The tracker's 1 s tick: when it falls, and how a tick places the fleet's beacons without
 * stalling the tracker's messages — in steps with the messages in between, within a time budget
 * for positioning, or after a positioning thread has estimated them.
 */
import { setImmediate } from 'node:timers'
import { performance } from 'node:perf_hooks'
import type { CancelTimer, Clock } from '../clock.js'
import type { PositionEstimator } from './fleet-beacon.js'
import type { FleetState } from './fleet-state.js'

const TICK_MS = 1000
/**
 * Beacons placed per step of a tick when they are positioned: 10–30 ms of filter updates on a
 * large site, so a batch waits about that long behind a tick (see `tick`). A fleet below it, or
 * one without positions, ticks in one go.
 */
const PLACE_STEP = 250

/**
 * ms of each 1 s tick that positioning may take. Half the tick: the rest is for the messages
 * (50,000 readings a second cost about a quarter of a core). A tracker short of CPU then
 * positions each beacon less often instead of falling behind its messages — behind them, its
 * packets arrive late for the filter, whose steps then grow and cost more: a spiral.
 */
const POSITION_BUDGET_MS = 500
/**
 * ms of its own time a positioning thread may take for a tick's estimates. It delays no
 * message, so most of the tick; the rest is for taking in the readings between requests.
 */
const THREAD_BUDGET_MS = 800

/** What a tick works on and hands its end to. */
export interface TickHost {
  readonly clock: Clock
  readonly state: FleetState
  /** The positioner now (a new site may bring another). */
  positioner(): PositionEstimator | undefined
  /** The tracker stopped: a tick in steps goes no further. */
  stopped(): boolean
  /** A tick starts (none is running): what waits for a tick boundary (a new site) is applied. */
  begin?(now: number): void
  /** The rest of a tick once every beacon is placed: publishing and events. */
  end(now: number): void
}

/** Runs the tick (see the file comment). */
export class TickRunner {
  private cancel: CancelTimer | undefined
  /** A tick's steps are running (see `tick`). */
  private ticking = false
  /** A tick fell due while one was running. */
  private tickDue = false

  constructor(private readonly host: TickHost) {}

  /**
   * Starts ticking. Ticks fall on whole seconds of the clock (a few ms after, as timers do),
   * where the fleet's positioner is cheapest to ask (FleetState.positionTime) and its answer newest.
   */
  start(): void {
    const clock = this.host.clock
    this.cancel = clock.setTimeout(
      () => {
        this.tick()
        this.cancel = clock.setInterval(() => this.tick(), TICK_MS)
      },
      TICK_MS - (((clock.now() % TICK_MS) + TICK_MS) % TICK_MS),
    )
  }

  /** Stops ticking (a tick in steps stops at its next step: `stopped()`). */
  stop(): void {
    this.cancel?.()
    this.cancel = undefined
  }

  /**
   * The 1 s tick. Beacons are placed {@link PLACE_STEP} at a time with the tracker's messages
   * in between, so a large positioned fleet does not stall ingest for the whole tick; a tick
   * that falls due while one is still running starts when it ends.
   */
  private tick(): void {
    if (this.ticking) {
      this.tickDue = true
      return
    }
    const { state } = this.host
    const now = this.host.clock.now()
    this.host.begin?.(now)
    const positioner = this.host.positioner()
    // A positioner on its own thread estimates this tick's beacons there first; placing them is
    // then a few comparisons each, in one step.
    const order = positioner?.prepare === undefined ? [] : state.tickOrder(now)
    const ready =
      order.length === 0 ? undefined : positioner?.prepare?.(order, state.positionTime(now), THREAD_BUDGET_MS)
    if (ready !== undefined) {
      this.ticking = true
      void ready.then((estimated) => {
        if (this.host.stopped()) return
        const place = state.beginTick(now)
        if (estimated > 0) place({ estimate: true, count: estimated })
        place({ estimate: false })
        this.tickDone(now)
      })
      return
    }
    // Without positions a beacon's room is a few comparisons: 12,500 take ~40 ms, one step.
    const place = state.beginTick(now, state.positioned ? PLACE_STEP : Infinity)
    // Positioning may take POSITION_BUDGET_MS of each tick (the steps' own time, not the time
    // between them, when messages are handled); past it the tick's remaining beacons keep their
    // positions.
    let spent = 0
    const step = (): boolean => {
      const t0 = performance.now()
      const done = place({ estimate: spent < POSITION_BUDGET_MS })
      spent += performance.now() - t0
      return done
    }
    if (step()) {
      this.host.end(now)
      return
    }
    this.ticking = true
    const next = (): void => {
      if (this.host.stopped()) return
      if (!step()) {
        setImmediate(next)
        return
      }
      this.tickDone(now)
    }
    setImmediate(next)
  }

  /**
   * A tick that ran in steps (or waited for its positioning thread) has placed every beacon: its
   * end, and the tick that fell due meanwhile.
   */
  private tickDone(now: number): void {
    this.ticking = false
    this.host.end(now)
    if (this.tickDue) {
      this.tickDue = false
      this.tick()
    }
  }
}
