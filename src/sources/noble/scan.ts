/**
 * Keeps one source's scan running on an adapter that noble believes is powered on.
 *
 * noble's own notion of "scanning" is unreliable in four ways, each handled here:
 * - it reports a scan as started when the *disable* before it completes, so a refused or lost
 *   enable goes unnoticed: scanning counts as running only when the enable's own answer says
 *   success (control.ts pairs answers with commands) or an advertisement arrives, and
 *   failures are retried with back-off;
 * - another program can stop the scan or turn duplicate filtering on: the scan is resumed
 *   after a delay that grows while it keeps happening (two noble users of one adapter restart
 *   each other forever otherwise), with one warning naming the likely cause;
 * - a controller reset under noble leaves it not scanning without any state change;
 * - the controller can stop reporting silently: the watchdog restarts the scan.
 */

import type { CancelTimer, Clock } from '../../clock.js'
import { hciStatusText } from './errors.js'
import { Backoff, InterruptionTracker } from './retry.js'
import { ScanWatchdog } from '../scan-watchdog.js'

/** How long the controller has to confirm a scan enable before the start counts as failed. */
const CONFIRM_MS = 5000
/** Retries of refused scan starts: 1 s, 2 s, 4 s, … up to 30 s. */
const RETRY_BASE_MS = 1000
const RETRY_MAX_MS = 30_000
/** Resumes after another program changed the scan: 1 s, doubling up to 60 s while it keeps happening. */
const RESUME_BASE_MS = 1000
const RESUME_MAX_MS = 60_000
/** Interruptions further apart than this are unrelated; this many closer together are a restart loop. */
const CALM_MS = 60_000
const LOOP_AFTER = 3

/** What the keeper needs from its source. */
export interface ScanKeeperHost {
  /**
   * Asks noble to (re)start scanning; false when nothing was sent (adapter not on, or noble threw and the
   * source reported it).
   */
  send(): boolean
  /** The controller confirmed a scan; `resumed` when it had been lost while running. */
  confirmed(resumed: boolean): void
  warn(message: string): void
  /** Whether the source is past its first confirmation (losing the scan then counts as an interruption). */
  running(): boolean
}

/** Counters the keeper maintains. */
export interface ScanKeeperStats {
  watchdogRestarts: number
  resumes: number
  scanFailures: number
}

/** Scan confirmation, retries, resumes and the watchdog of one source; see the file comment. */
export class ScanKeeper {
  readonly stats: ScanKeeperStats = { watchdogRestarts: 0, resumes: 0, scanFailures: 0 }
  /** Why the last start failed, for start()'s timeout message. */
  lastFailure: string | undefined
  /** The controller confirmed that scanning runs. */
  private scanning = false
  /** A scan start was sent and awaits its confirmation. */
  private confirming = false
  /** Scanning was lost while running; its next confirmation counts as a resume. */
  private resuming = false
  private warnedLoop = false
  private readonly watchdog: ScanWatchdog
  private readonly retries = new Backoff(RETRY_BASE_MS, RETRY_MAX_MS)
  private readonly interruptions = new InterruptionTracker(RESUME_BASE_MS, RESUME_MAX_MS, CALM_MS, LOOP_AFTER)
  private cancelRetry: CancelTimer | undefined
  private cancelConfirm: CancelTimer | undefined

  constructor(
    private readonly clock: Clock,
    watchdogMs: number,
    private readonly adapter: string,
    private readonly host: ScanKeeperHost,
  ) {
    this.watchdog = new ScanWatchdog(clock, watchdogMs, (silent) => this.onStall(silent))
  }

  /** The adapter is powered on: scan unless scanning or waiting for a confirmation. */
  poweredOn(): void {
    if (!this.scanning && !this.confirming) this.request()
  }

  /** The adapter left 'poweredOn': nothing scans until it is back. */
  poweredOff(): void {
    this.lose()
  }

  /** Everything stops (source stopped or start failed); the counters stay. */
  stop(): void {
    this.scanning = this.confirming = this.resuming = false
    this.watchdog.stop()
    this.cancelRetry?.()
    this.cancelConfirm?.()
    this.cancelRetry = this.cancelConfirm = undefined
  }

  /** An advertisement arrived at `now`: it proves the scan runs, whatever happened to the enable's answer. */
  heard(now: number): void {
    this.watchdog.heard(now)
    if (this.confirming) this.confirm()
  }

  /** The controller answered an LE Set Scan Enable of this adapter's noble instance. */
  enableAnswered(enable: boolean, status: number): void {
    if (!enable || !this.confirming) return
    if (status === 0) this.confirm()
    else this.fail(`the controller refused LE Set Scan Enable: ${hciStatusText(status)}`)
  }

  /** Another program stopped scanning (noble's scanStop without our asking). */
  stoppedElsewhere(): void {
    // While confirming too: a disable landing between our enable and its answer wins.
    if (!this.host.running() || (!this.scanning && !this.confirming)) return
    this.interrupted('Scanning was stopped outside beaconkit (another program using the adapter?); resuming')
  }

  /** Another program re-enabled scanning with duplicate filtering although duplicates are wanted. */
  filteringForced(): void {
    if (!this.host.running()) return
    this.interrupted(
      `Another program on ${this.adapter} re-enabled scanning with duplicate filtering (bluetoothd discovery, ` +
        '`bluetoothctl scan on` or hcitool lescan): repeated advertisements would be dropped and beacons flap gone; ' +
        're-enabling scanning without filtering',
    )
  }

  /** The controller was reset under noble (hciconfig reset, a fast down/up, firmware): it is not scanning any more. */
  controllerReset(): void {
    this.lose()
    this.host.warn(
      `${this.adapter} was reset (hciconfig reset, a quick down/up or a firmware restart); re-enabling scanning.`,
    )
    this.request()
  }

  private lose(): void {
    if (this.host.running() && (this.scanning || this.confirming)) this.resuming = true
    this.scanning = this.confirming = false
    this.cancelConfirm?.()
    this.cancelConfirm = undefined
    this.watchdog.stop()
  }

  private request(): void {
    if (!this.host.send()) return
    this.confirming = true
    this.cancelConfirm?.()
    this.cancelConfirm = this.clock.setTimeout(() => {
      this.cancelConfirm = undefined
      this.fail(`the controller did not confirm it within ${CONFIRM_MS / 1000} s`)
    }, CONFIRM_MS)
  }

  /** Runs `action` after `delayMs`; one pending at a time, cancelled by stop(). */
  private later(delayMs: number, action: () => void): void {
    this.cancelRetry?.()
    this.cancelRetry = this.clock.setTimeout(() => {
      this.cancelRetry = undefined
      action()
    }, delayMs)
  }

  private confirm(): void {
    this.confirming = false
    this.cancelConfirm?.()
    this.cancelConfirm = undefined
    this.retries.reset()
    this.lastFailure = undefined
    const resumed = this.resuming
    if (resumed) this.stats.resumes++
    this.resuming = false
    this.scanning = true
    this.host.confirmed(resumed)
    this.watchdog.start()
  }

  private fail(reason: string): void {
    if (!this.confirming) return
    this.lose()
    this.stats.scanFailures++
    this.lastFailure = reason
    const delay = this.retries.next()
    this.host.warn(`Scanning did not start on ${this.adapter} (${reason}); retrying in ${delay / 1000} s.`)
    this.later(delay, () => {
      if (!this.confirming) this.request()
    })
  }

  /** Another program changed the scan: resume after a delay that grows while it keeps happening. */
  private interrupted(what: string): void {
    this.lose()
    this.resuming = true
    const { delayMs, loop, count } = this.interruptions.record(this.clock.now())
    if (loop && !this.warnedLoop) {
      this.warnedLoop = true
      this.host.warn(
        `Scanning on ${this.adapter} was interrupted ${count} times in a row: another program keeps using ` +
          `this adapter, ` +
          'typically a second process scanning it with noble (or two NobleSources naming it differently), ' +
          'or bluetoothd. ' +
          `Give the adapter to one program (see docs/troubleshooting.md); resuming with growing delays, up ` +
          `to ${RESUME_MAX_MS / 1000} s.`,
      )
    } else if (!loop) {
      this.host.warn(`${what} in ${delayMs / 1000} s.`)
    }
    this.later(delayMs, () => {
      if (!this.scanning && !this.confirming) this.request()
    })
  }

  /** The watchdog saw `silent` ms without an advertisement while scanning. */
  private onStall(silent: number): void {
    if (!this.host.running() || !this.scanning) return
    this.stats.watchdogRestarts++
    this.host.warn(
      `No advertisement for ${Math.round(silent / 1000)} s while scanning; restarting the scan ` +
        '(adapters stall silently; if this repeats with beacons in range, see docs/troubleshooting.md).',
    )
    this.request()
  }
}
