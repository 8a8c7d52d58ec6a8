/**
 * Live advertisements from a Bluetooth adapter through @abandonware/noble.
 *
 * noble is loaded inside `start()` only (see load.ts), so importing beaconkit never
 * opens a Bluetooth socket. Around noble this class adds what long-running gateways need and
 * noble leaves to every application: scanning that is confirmed by the controller (noble
 * reports a scan as started when the disable before it completes) and retried with back-off
 * when refused, that comes back after the adapter is powered off and on, reset, or stopped by
 * another program, a watchdog for scans that stall silently, a fatal error when the adapter
 * is gone for good, bounded memory when thousands of random addresses pass by, and snapshots
 * instead of noble's mutable objects.
 */

import { EventEmitter } from 'eventemitter3'
import type { CancelTimer, Clock } from '../../clock.js'
import type { AdapterState, AdvertisementSource, AdvertisementSourceEvents } from '../source.js'
import { advertisementFromNoble } from './advertisement.js'
import { adapterLostError, bluetoothErrorForState, bluetoothErrorFrom, startTimeoutError } from './errors.js'
import { loadNoble, sameAdapterWarning } from './load.js'
import { resolveNobleOptions } from './options.js'
import type { NobleSourceOptions, ResolvedNobleOptions } from './options.js'
import { NoblePruner } from './prune.js'
import { nobleControl } from './control.js'
import type { NobleControl } from './control.js'
import { releaseNoble } from './release.js'
import { ScanKeeper } from './scan.js'
import { combinedScan, joinScan, leaveScan, matchesServices, scanUsers } from './share.js'
import type { ScanWants } from './share.js'
import { adapterStateOf } from './types.js'
import type { NobleLike, NoblePeripheralLike } from './types.js'
import type { NobleSourceStats } from './stats.js'

export type { NobleSourceOptions } from './options.js'

type Phase = 'stopped' | 'starting' | 'running'

/**
 * An {@link AdvertisementSource} scanning a real adapter with noble (Linux HCI, macOS, Windows).
 *
 * ```ts
 * const source = new NobleSource({ hciDeviceId: 1 })
 * source.on('advertisement', (adv) => console.log(adv.address, adv.rssi))
 * await source.start() // throws BluetoothUnavailableError with a fix-it message
 * ```
 */
export class NobleSource extends EventEmitter<AdvertisementSourceEvents> implements AdvertisementSource {
  /** The clock timestamps run on, when one was passed in the options. */
  readonly clock?: Clock
  private readonly options: ResolvedNobleOptions
  private readonly wants: ScanWants
  private readonly reported = new WeakSet<object>()
  private readonly pruner = new NoblePruner()
  private readonly counters = { advertisements: 0, prunedPeripherals: 0, prunedAddresses: 0 }

  private noble: NobleLike | undefined
  private control: NobleControl | undefined
  private attached = false
  private phase: Phase = 'stopped'
  /** Bumped by every stop(), so a start() still loading noble knows it was cancelled. */
  private generation = 0
  private starting: Promise<void> | undefined
  private settleStart: ((error?: Error) => void) | undefined
  private lastState: AdapterState | undefined
  private readonly scan: ScanKeeper
  private cancelPrune: CancelTimer | undefined
  private cancelStartTimeout: CancelTimer | undefined
  private cancelLost: CancelTimer | undefined

  /** @throws InvalidOptionError (`invalid_option`) naming the bad option. */
  constructor(options: NobleSourceOptions = {}) {
    super()
    this.options = resolveNobleOptions(options)
    this.wants = { serviceUuids: this.options.serviceUuids, allowDuplicates: this.options.allowDuplicates }
    if (this.options.clockGiven) this.clock = this.options.clock
    const adapter = this.options.hciDeviceId === undefined ? 'the Bluetooth adapter' : `hci${this.options.hciDeviceId}`
    this.scan = new ScanKeeper(this.options.clock, this.options.watchdogMs, adapter, {
      send: () => this.requestScan(),
      confirmed: () => this.onScanConfirmed(),
      warn: (message) => this.emit('warning', message),
      running: () => this.phase === 'running',
    })
  }

  /** A copy of the counters. */
  get stats(): NobleSourceStats {
    return { ...this.counters, ...this.scan.stats }
  }

  /**
   * `hci<n>` when an adapter number was given: names this source's advertisements in a
   * CombinedSource.
   */
  get adapter(): string | undefined {
    return this.options.hciDeviceId === undefined ? undefined : `hci${this.options.hciDeviceId}`
  }

  /**
   * Loads noble, waits for the adapter to be powered on and starts scanning; resolves once
   * the controller confirmed scanning. Calling it again while running does nothing.
   *
   * @throws BluetoothUnavailableError — `not_installed`, `unsupported`, `no_adapter`,
   *   `permission_denied`, `unauthorized`, `powered_off` or `start_failed`; the message says what
   *   to do.
   */
  start(): Promise<void> {
    if (this.phase === 'running') return Promise.resolve()
    if (this.starting !== undefined) return this.starting
    this.phase = 'starting'
    const generation = this.generation
    const starting = this.startScanning(generation).finally(() => {
      if (this.starting === starting) this.starting = undefined
    })
    this.starting = starting
    return starting
  }

  /**
   * Stops scanning and detaches from noble; safe to call twice, and `start()` works again
   * afterwards. When no other source uses the adapter, it also releases what kept the process
   * alive (noble's adapter poll and the socket's poll handle), so a program that is done can
   * simply end, and a service exits promptly on SIGTERM.
   */
  async stop(): Promise<void> {
    this.generation++
    const releasing = this.teardown()
    // A start() still waiting for the adapter resolves: the caller asked for the stop.
    this.settleStart?.()
    this.settleStart = undefined
    await releasing
  }

  private async startScanning(generation: number): Promise<void> {
    let noble: NobleLike
    try {
      noble = await loadNoble(this.options.hciDeviceId)
    } catch (error) {
      if (this.generation === generation) this.phase = 'stopped'
      throw bluetoothErrorFrom(error, this.options.hciDeviceId)
    }
    if (this.generation !== generation) return
    this.noble = noble
    // A restarted source reports the current state again, even if it did not change meanwhile.
    this.lastState = undefined
    this.scan.lastFailure = undefined
    this.attach(noble)
    for (const problem of this.control?.problems() ?? [])
      this.emit('warning', `noble ${problem} (beaconkit was written against noble 1.9.2-26).`)

    const started = new Promise<void>((resolve, reject) => {
      this.settleStart = (error?: Error) => (error === undefined ? resolve() : reject(error))
    })
    const timeout = this.options.startTimeoutMs
    if (timeout > 0) {
      this.cancelStartTimeout = this.options.clock.setTimeout(() => {
        const state = this.lastState ?? 'unknown'
        const last = this.scan.lastFailure === undefined ? '' : `; last attempt: ${this.scan.lastFailure}`
        this.failStart(startTimeoutError(timeout, state, last))
      }, timeout)
    }
    this.onStateChange(noble.state)
    return started
  }

  private failStart(error: Error): void {
    const settle = this.settleStart
    this.settleStart = undefined
    void this.teardown()
    settle?.(error)
  }

  private attach(noble: NobleLike): void {
    this.attached = true
    joinScan(noble, this.wants)
    this.control = nobleControl(noble)
    this.control?.unpark()
    this.control?.on('scanEnable', this.onScanEnable)
    this.control?.on('reset', this.onReset)
    noble.on('stateChange', this.onStateChange)
    noble.on('discover', this.onDiscover)
    noble.on('scanStart', this.onScanStart)
    noble.on('scanStop', this.onScanStop)
    noble.on('warning', this.onNobleWarning)
  }

  /**
   * Everything start() set up, undone; scanning stops unless another source shares the
   * adapter. Resolves when the adapter is released (see release.ts).
   */
  private teardown(): Promise<void> | undefined {
    this.phase = 'stopped'
    this.scan.stop()
    for (const cancel of [this.cancelPrune, this.cancelStartTimeout, this.cancelLost]) cancel?.()
    this.cancelPrune = this.cancelStartTimeout = this.cancelLost = undefined
    const noble = this.noble
    if (noble === undefined || !this.attached) return undefined
    this.attached = false
    this.control?.removeListener('scanEnable', this.onScanEnable)
    this.control?.removeListener('reset', this.onReset)
    noble.removeListener('stateChange', this.onStateChange)
    noble.removeListener('discover', this.onDiscover)
    noble.removeListener('scanStart', this.onScanStart)
    noble.removeListener('scanStop', this.onScanStop)
    noble.removeListener('warning', this.onNobleWarning)
    // Another source on the same adapter keeps its scan.
    if (leaveScan(noble, this.wants) > 0) return undefined
    return releaseNoble(noble, () => scanUsers(noble) === 0)
  }

  /**
   * Asks noble to (re)start scanning (it sends disable, parameters, enable); false when nothing
   * was sent.
   */
  private requestScan(): boolean {
    const noble = this.noble
    if (noble === undefined || noble.state !== 'poweredOn') return false
    // Several sources share one scan: ask for what all of them need (share.ts).
    const settings = combinedScan(noble, this.wants)
    try {
      noble.startScanning(settings.serviceUuids, settings.allowDuplicates)
    } catch (error) {
      const wrapped = bluetoothErrorFrom(error, this.options.hciDeviceId)
      if (this.phase === 'starting') this.failStart(wrapped)
      else this.emit('error', wrapped)
      return false
    }
    return true
  }

  private readonly onScanEnable = (enable: boolean, status: number): void => this.scan.enableAnswered(enable, status)

  /** The controller confirmed scanning: the first time, start() resolves. */
  private onScanConfirmed(): void {
    if (this.phase !== 'starting') return
    this.phase = 'running'
    const warning = this.noble === undefined ? undefined : sameAdapterWarning(this.noble)
    if (warning !== undefined) this.emit('warning', warning)
    this.cancelStartTimeout?.()
    this.cancelStartTimeout = undefined
    if (this.options.pruneIntervalMs > 0) {
      const noble = this.noble
      this.cancelPrune = this.options.clock.setInterval(() => {
        if (noble !== undefined) this.prune(noble)
      }, this.options.pruneIntervalMs)
    }
    const settle = this.settleStart
    this.settleStart = undefined
    settle?.()
  }

  private readonly onStateChange = (raw: string): void => {
    const state = adapterStateOf(raw)
    if (state !== this.lastState) {
      this.lastState = state
      this.emit('state', state)
    }
    if (state === 'poweredOn') {
      this.cancelLost?.()
      this.cancelLost = undefined
      this.scan.poweredOn()
      return
    }
    this.scan.poweredOff()
    if (state === 'unsupported' || state === 'unauthorized' || state === 'poweredOff') {
      const error = bluetoothErrorForState(state, this.options.hciDeviceId)
      if (this.phase === 'starting') this.failStart(error)
      else if (state !== 'poweredOff') this.emit('error', error)
      // A running source waits through poweredOff: scanning resumes on poweredOn, unless the
      // adapter never comes back (unplugged): then a fatal error after adapterLostMs.
      else if (this.phase === 'running') this.watchForLoss()
    }
  }

  private watchForLoss(): void {
    const limit = this.options.adapterLostMs
    if (limit === 0 || this.cancelLost !== undefined) return
    this.cancelLost = this.options.clock.setTimeout(() => {
      this.cancelLost = undefined
      if (this.phase === 'running' && this.lastState !== 'poweredOn') {
        this.emit('error', adapterLostError(this.options.hciDeviceId, limit, this.control?.lastSocketError?.code))
      }
    }, limit)
  }

  /**
   * noble's scanStart: when it says the controller now filters duplicates although duplicates
   * were asked for, another program (bluetoothd's discovery, `bluetoothctl scan on`, hcitool)
   * re-enabled scanning with filtering: each beacon would be reported once and then flap gone.
   */
  private readonly onScanStart = (filterDuplicates?: boolean): void => {
    const noble = this.noble
    if (this.phase !== 'running' || filterDuplicates !== true || noble === undefined) return
    if (combinedScan(noble, this.wants).allowDuplicates) this.scan.filteringForced()
  }

  /**
   * Scanning stopped without our asking: another program (bluetoothd, hcitool) or the
   * controller.
   */
  private readonly onScanStop = (): void => this.scan.stoppedElsewhere()

  /**
   * The controller was reset under noble: scanning is off although noble's state did not
   * change.
   */
  private readonly onReset = (): void => {
    if (this.phase !== 'stopped' && this.noble?.state === 'poweredOn') this.scan.controllerReset()
  }

  private readonly onDiscover = (peripheral: NoblePeripheralLike): void => {
    const now = this.options.clock.now()
    this.scan.heard(now)
    this.pruner.heardPeripheral(peripheral.id)
    if (!matchesServices(this.options.serviceUuids, peripheral)) return
    this.counters.advertisements++
    const packet = this.control?.reports?.current
    const facts = packet !== undefined && packet.address === peripheral.address ? packet : undefined
    this.emit('advertisement', advertisementFromNoble(peripheral, this.reported, now, facts))
  }

  private readonly onNobleWarning = (message: string): void => {
    this.emit('warning', `noble: ${String(message)}`)
  }

  private prune(noble: NobleLike): void {
    const result = this.pruner.prune(noble)
    this.counters.prunedPeripherals += result.peripherals
    this.counters.prunedAddresses += result.discoveries
  }
}
