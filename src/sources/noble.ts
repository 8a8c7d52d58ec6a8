/**
 * Live advertisements from a Bluetooth adapter through @abandonware/noble.
 *
 * noble is loaded inside `start()` only (see noble-load.ts), so importing beaconkit never
 * opens a Bluetooth socket. Around noble this class adds what long-running gateways need and
 * noble leaves to every application: scanning that comes back after the adapter is powered
 * off and on or reset, a watchdog for scans that stall silently, bounded memory when
 * thousands of random addresses pass by, and snapshots instead of noble's mutable objects.
 */

import { EventEmitter } from 'eventemitter3'
import type { CancelTimer, Clock } from '../clock.js'
import type { AdapterState, AdvertisementSource, AdvertisementSourceEvents } from './source.js'
import { advertisementFromNoble } from './noble-advertisement.js'
import { bluetoothErrorForState, bluetoothErrorFrom } from './noble-errors.js'
import { BluetoothUnavailableError } from '../errors.js'
import { loadNoble } from './noble-load.js'
import { resolveNobleOptions } from './noble-options.js'
import type { NobleSourceOptions, ResolvedNobleOptions } from './noble-options.js'
import { NoblePruner } from './noble-prune.js'
import { ScanWatchdog } from './scan-watchdog.js'
import type { NobleLike, NoblePeripheralLike } from './noble-types.js'

export type { NobleSourceOptions } from './noble-options.js'

/** Counters of a {@link NobleSource}, for diagnostics and tests. */
export interface NobleSourceStats {
  /** Advertisements emitted. */
  advertisements: number
  /** Scans restarted because no advertisement arrived for `watchdogMs`. */
  watchdogRestarts: number
  /** Scans restarted after the adapter came back or another program stopped scanning. */
  resumes: number
  /** Peripheral ids forgotten by pruning. */
  prunedPeripherals: number
  /** Addresses forgotten from noble's GAP layer by pruning. */
  prunedAddresses: number
}

const ADAPTER_STATES: readonly string[] = ['unknown', 'resetting', 'unsupported', 'unauthorized', 'poweredOff', 'poweredOn']
/** Pause before resuming a scan that another program stopped, so two programs cannot ping-pong at full speed. */
const RESUME_DELAY_MS = 1000

type Phase = 'stopped' | 'starting' | 'running'

/**
 * Sources attached to each noble instance (one per adapter): the last one to stop turns
 * scanning off, so two sources on one adapter do not stop each other's scan.
 */
const users = new WeakMap<NobleLike, Set<NobleSource>>()

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
  private readonly reported = new WeakSet<object>()
  private readonly pruner = new NoblePruner()
  private readonly counters: NobleSourceStats = {
    advertisements: 0,
    watchdogRestarts: 0,
    resumes: 0,
    prunedPeripherals: 0,
    prunedAddresses: 0,
  }

  private noble: NobleLike | undefined
  private attached = false
  private phase: Phase = 'stopped'
  /** Bumped by every stop(), so a start() still loading noble knows it was cancelled. */
  private generation = 0
  private starting: Promise<void> | undefined
  private settleStart: ((error?: Error) => void) | undefined
  private scanning = false
  private lastState: AdapterState | undefined
  private readonly watchdog: ScanWatchdog
  private cancelPrune: CancelTimer | undefined
  private cancelStartTimeout: CancelTimer | undefined
  private cancelResume: CancelTimer | undefined

  /** @throws InvalidOptionError (`invalid_option`) naming the bad option. */
  constructor(options: NobleSourceOptions = {}) {
    super()
    this.options = resolveNobleOptions(options)
    if (this.options.clockGiven) this.clock = this.options.clock
    this.watchdog = new ScanWatchdog(this.options.clock, this.options.watchdogMs, (silent) => this.onStall(silent))
  }

  /** A copy of the counters. */
  get stats(): NobleSourceStats {
    return { ...this.counters }
  }

  /** `hci<n>` when an adapter number was given: names this source's advertisements in a CombinedSource. */
  get adapter(): string | undefined {
    return this.options.hciDeviceId === undefined ? undefined : `hci${this.options.hciDeviceId}`
  }

  /**
   * Loads noble, waits for the adapter to be powered on and starts scanning; resolves once
   * the controller confirmed scanning. Calling it again while running does nothing.
   *
   * @throws BluetoothUnavailableError — `not_installed`, `unsupported`, `no_adapter`,
   *   `permission_denied`, `unauthorized`, `powered_off` or `start_failed`; the message says what to do.
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

  /** Stops scanning and detaches from noble; safe to call twice, and `start()` works again afterwards. */
  async stop(): Promise<void> {
    this.generation++
    this.teardown()
    // A start() still waiting for the adapter resolves: the caller asked for the stop.
    this.settleStart?.()
    this.settleStart = undefined
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
    this.attach(noble)

    const started = new Promise<void>((resolve, reject) => {
      this.settleStart = (error?: Error) => (error === undefined ? resolve() : reject(error))
    })
    const timeout = this.options.startTimeoutMs
    if (timeout > 0) {
      this.cancelStartTimeout = this.options.clock.setTimeout(() => {
        const state = this.lastState ?? 'unknown'
        this.failStart(
          new BluetoothUnavailableError(
            'start_failed',
            `Scanning did not start within ${timeout} ms (adapter state '${state}'). Check the adapter with \`hciconfig\`; ` +
              'if bluetoothd is busy with it, restart it (`sudo systemctl restart bluetooth`), or pick another adapter with hciDeviceId.',
          ),
        )
      }, timeout)
    }
    this.onStateChange(noble.state)
    return started
  }

  private failStart(error: Error): void {
    const settle = this.settleStart
    this.settleStart = undefined
    this.teardown()
    settle?.(error)
  }

  private attach(noble: NobleLike): void {
    this.attached = true
    let sharing = users.get(noble)
    if (sharing === undefined) users.set(noble, (sharing = new Set()))
    sharing.add(this)
    noble.on('stateChange', this.onStateChange)
    noble.on('discover', this.onDiscover)
    noble.on('scanStart', this.onScanStart)
    noble.on('scanStop', this.onScanStop)
    noble.on('warning', this.onNobleWarning)
  }

  /** Everything start() set up, undone; scanning stops unless another source shares the adapter. */
  private teardown(): void {
    this.phase = 'stopped'
    this.scanning = false
    this.watchdog.stop()
    this.cancelPrune?.()
    this.cancelStartTimeout?.()
    this.cancelResume?.()
    this.cancelPrune = this.cancelStartTimeout = this.cancelResume = undefined
    const noble = this.noble
    if (noble === undefined || !this.attached) return
    this.attached = false
    noble.removeListener('stateChange', this.onStateChange)
    noble.removeListener('discover', this.onDiscover)
    noble.removeListener('scanStart', this.onScanStart)
    noble.removeListener('scanStop', this.onScanStop)
    noble.removeListener('warning', this.onNobleWarning)
    const sharing = users.get(noble)
    sharing?.delete(this)
    // Another source on the same adapter keeps its scan.
    if (sharing !== undefined && sharing.size > 0) return
    try {
      noble.stopScanning()
    } catch {
      // An adapter that is down is not scanning either.
    }
  }

  /** Asks noble to (re)start scanning; noble's GAP layer sends disable, parameters, enable. */
  private requestScan(): void {
    const noble = this.noble
    if (noble === undefined || noble.state !== 'poweredOn') return
    try {
      noble.startScanning(this.options.serviceUuids, this.options.allowDuplicates)
    } catch (error) {
      const wrapped = bluetoothErrorFrom(error, this.options.hciDeviceId)
      if (this.phase === 'starting') this.failStart(wrapped)
      else this.emit('error', wrapped)
    }
  }

  private readonly onStateChange = (raw: string): void => {
    const state = (ADAPTER_STATES.includes(raw) ? raw : 'unknown') as AdapterState
    if (state !== this.lastState) {
      this.lastState = state
      this.emit('state', state)
    }
    if (state === 'poweredOn') {
      if (!this.scanning) this.requestScan()
      return
    }
    this.scanning = false
    this.watchdog.stop()
    if (state === 'unsupported' || state === 'unauthorized' || state === 'poweredOff') {
      const error = bluetoothErrorForState(state, this.options.hciDeviceId)
      if (this.phase === 'starting') this.failStart(error)
      else if (state !== 'poweredOff') this.emit('error', error)
      // A running source waits through poweredOff: scanning resumes on poweredOn.
    }
  }

  private readonly onScanStart = (): void => {
    const resumed = this.phase === 'running' && !this.scanning
    this.scanning = true
    if (resumed) this.counters.resumes++
    if (this.phase === 'starting') {
      this.phase = 'running'
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
    this.watchdog.start()
  }

  /** Scanning stopped without our asking: another program (bluetoothd, hcitool) or the controller. */
  private readonly onScanStop = (): void => {
    if (this.phase !== 'running' || !this.scanning) return
    this.scanning = false
    this.watchdog.stop()
    this.emit('warning', 'Scanning was stopped outside beaconkit (another program using the adapter?); resuming.')
    this.cancelResume?.()
    this.cancelResume = this.options.clock.setTimeout(() => {
      this.cancelResume = undefined
      if (this.phase === 'running' && !this.scanning) this.requestScan()
    }, RESUME_DELAY_MS)
  }

  private readonly onDiscover = (peripheral: NoblePeripheralLike): void => {
    const now = this.options.clock.now()
    this.watchdog.heard(now)
    this.pruner.heardPeripheral(peripheral.id)
    this.counters.advertisements++
    this.emit('advertisement', advertisementFromNoble(peripheral, this.reported, now))
  }

  private readonly onNobleWarning = (message: string): void => {
    this.emit('warning', `noble: ${String(message)}`)
  }

  /** The watchdog saw `silent` ms without an advertisement while scanning. */
  private onStall(silent: number): void {
    if (this.phase !== 'running' || !this.scanning) return
    this.counters.watchdogRestarts++
    this.emit(
      'warning',
      `No advertisement for ${Math.round(silent / 1000)} s while scanning; restarting the scan ` +
        '(adapters stall silently; if this repeats with beacons in range, see docs/troubleshooting.md).',
    )
    this.requestScan()
  }

  private prune(noble: NobleLike): void {
    const result = this.pruner.prune(noble)
    this.counters.prunedPeripherals += result.peripherals
    this.counters.prunedAddresses += result.discoveries
  }
}
