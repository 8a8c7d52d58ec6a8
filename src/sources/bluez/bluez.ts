/**
 * Live advertisements through BlueZ (bluetoothd) over D-Bus: the way to scan on gateways that
 * cannot give Node raw HCI access or must keep bluetoothd running for other programs.
 *
 * What it asks of bluetoothd (discovery.ts): `Adapter1.SetDiscoveryFilter({ Transport: 'le',
 * DuplicateData: true })` and `StartDiscovery`. The discovery session belongs to our bus
 * connection: bluetoothd ends it when the connection closes, so stop() only closes the
 * connection, and a crashed gateway leaves nothing behind. What it listens to: ObjectManager's
 * InterfacesAdded/InterfacesRemoved (devices, and the adapter itself appearing and disappearing
 * when a dongle is unplugged), PropertiesChanged on Device1 (advertisements, see devices.ts) and
 * on Adapter1 (Powered), and the bus's NameOwnerChanged for org.bluez (bluetoothd restarting).
 * After each of those the source re-reads bluetoothd's objects and resumes discovery by itself,
 * emitting `state` poweredOff/poweredOn on the way. Where bluetoothd offers it, a passive
 * advertisement monitor for the beacon frames is registered too (monitor.ts: it turns the
 * controller's duplicate filter off, which discovery alone leaves on).
 */

import { EventEmitter } from 'eventemitter3'
import type { Advertisement } from '../../advertisement.js'
import type { Clock } from '../../clock.js'
import { BluetoothUnavailableError } from '../../errors.js'
import type { AdapterState, AdvertisementSource, AdvertisementSourceEvents } from '../source.js'
import { connectBus } from './dbus.js'
import type { DbusConnection, DbusMessage } from './dbus.js'
import { BluezDevices, managedInterfaces } from './devices.js'
import { bluezBusLost, bluezErrorFrom, bluezNoAdapter, bluezNotRunning, bluezPoweredOffMessage } from './errors.js'
import { resolveBluezOptions } from './options.js'
import type { BluezSourceOptions, ResolvedBluezOptions } from './options.js'
import { exportMonitor, MONITOR_MANAGER, MonitorRegistration } from './monitor.js'
import { ADAPTER, BLUEZ, classify, DEVICE, OBJECT_MANAGER } from './signals.js'
import { addMatches, adapterNames, nameOwner, startDiscovery } from './discovery.js'
import type { BluezSourceStats } from './stats.js'
import { propertyMap, variantBoolean } from './values.js'

export type { BluezSourceOptions } from './options.js'

type Phase = 'stopped' | 'starting' | 'running'
/** What bringing the adapter up found. */
type Outcome = { kind: 'up' } | { kind: 'absent'; adapters: string[] } | { kind: 'off' }

/**
 * An {@link AdvertisementSource} scanning through BlueZ over D-Bus (Linux). Needs the optional
 * peer dependency `@homebridge/dbus-native` and a running bluetoothd.
 *
 * ```ts
 * const source = new BluezSource({ adapter: 'hci1' })
 * source.on('advertisement', (adv) => console.log(adv.address, adv.rssi))
 * await source.start() // throws BluetoothUnavailableError with a fix-it message
 * ```
 */
export class BluezSource extends EventEmitter<AdvertisementSourceEvents> implements AdvertisementSource {
  /** The clock timestamps run on, when one was passed in the options. */
  readonly clock?: Clock
  private readonly options: ResolvedBluezOptions
  private readonly devices = new BluezDevices()
  private readonly counters = { advertisements: 0, resumes: 0 }
  private bus: DbusConnection | undefined
  private phase: Phase = 'stopped'
  /** Bumped by every stop(), so work of an older run knows it was cancelled. */
  private generation = 0
  private starting: Promise<void> | undefined
  /** bluetoothd's unique bus name; signals from anyone else are ignored. */
  private owner: string | undefined
  private up = false
  private wasUp = false
  private lastState: AdapterState | undefined
  private syncing = false
  private syncAgain = false
  private readonly monitor: MonitorRegistration

  /** @throws InvalidOptionError (`invalid_option`) naming the bad option. */
  constructor(options: BluezSourceOptions = {}) {
    super()
    this.options = resolveBluezOptions(options)
    if (this.options.clockGiven) this.clock = this.options.clock
    this.monitor = new MonitorRegistration(this.options.adapter, this.options.adapterPath, (message) =>
      this.emit('warning', message),
    )
  }

  /** A copy of the counters. */
  get stats(): BluezSourceStats {
    return { ...this.counters, devices: this.devices.size, monitoring: this.monitor.registered }
  }

  /**
   * Connects to the bus, checks bluetoothd and the adapter, and starts discovery; resolves once
   * bluetoothd accepted it. Calling it again while running does nothing.
   *
   * @throws BluetoothUnavailableError — `not_installed`, `bluez_not_running`, `no_adapter`,
   *   `permission_denied`, `powered_off` or `start_failed`; the message says what to do.
   */
  start(): Promise<void> {
    if (this.phase === 'running') return Promise.resolve()
    if (this.starting !== undefined) return this.starting
    this.phase = 'starting'
    const starting = this.run(this.generation).finally(() => {
      if (this.starting === starting) this.starting = undefined
    })
    this.starting = starting
    return starting
  }

  /**
   * Ends discovery (by closing our bus connection); safe to call twice, and `start()` works
   * again afterwards.
   */
  async stop(): Promise<void> {
    this.generation++
    // A start() right after this one starts afresh instead of joining the cancelled one.
    this.starting = undefined
    this.teardown()
  }

  private teardown(): void {
    this.phase = 'stopped'
    this.up = this.wasUp = false
    // A resync of the cancelled run may still be awaiting a call: it ends by itself, and must not
    // block the next run's.
    this.syncing = this.syncAgain = false
    this.monitor.reset()
    this.owner = undefined
    this.lastState = undefined
    this.devices.clear()
    const bus = this.bus
    this.bus = undefined
    bus?.close()
  }

  private fail(error: unknown): BluetoothUnavailableError {
    return bluezErrorFrom(error, this.options.adapter, this.options.busAddress)
  }

  private async run(generation: number): Promise<void> {
    let bus: DbusConnection
    try {
      bus = await connectBus(this.options.busAddress, this.options.callTimeoutMs)
    } catch (error) {
      // A start() cancelled by stop() resolves: the caller asked for the stop.
      if (this.generation !== generation) return
      this.phase = 'stopped'
      throw this.fail(error)
    }
    if (this.generation !== generation) {
      bus.close()
      return
    }
    this.bus = bus
    bus.onSignal((message) => this.onSignal(message, generation))
    bus.onClose((error) => this.onBusClosed(error, generation))
    if (this.options.monitor) exportMonitor(bus)
    try {
      await addMatches(bus, this.options.adapterPath)
      this.owner = await nameOwner(bus)
      if (this.owner === undefined) throw bluezNotRunning()
      const outcome = await this.bringUp(bus)
      if (outcome.kind === 'absent') throw bluezNoAdapter(this.options.adapter, outcome.adapters)
      if (outcome.kind === 'off')
        throw new BluetoothUnavailableError('powered_off', bluezPoweredOffMessage(this.options.adapter))
    } catch (error) {
      if (this.generation !== generation) return
      this.teardown()
      throw this.fail(error)
    }
    if (this.generation === generation) this.phase = 'running'
  }

  /** Reads bluetoothd's objects; when the adapter is there and powered, (re)starts discovery. */
  private async bringUp(bus: DbusConnection): Promise<Outcome> {
    const path = this.options.adapterPath
    const [objects] = await bus.call(BLUEZ, '/', OBJECT_MANAGER, 'GetManagedObjects')
    const managed = managedInterfaces(objects)
    const adapter = managed.get(path)?.get(ADAPTER)
    if (adapter === undefined) {
      this.setDown()
      return { kind: 'absent', adapters: adapterNames(managed) }
    }
    if (variantBoolean(propertyMap(adapter).get('Powered')) !== true) {
      this.setDown()
      return { kind: 'off' }
    }
    await startDiscovery(bus, path)
    if (this.options.monitor) await this.monitor.ensure(bus, managed.get(path)?.has(MONITOR_MANAGER) === true)
    // Known devices only seed identities and last RSSI: their properties are bluetoothd's cache.
    const now = this.options.clock.now()
    for (const [objectPath, ifaces] of managed) {
      const device = ifaces.get(DEVICE)
      if (device !== undefined && objectPath.startsWith(`${path}/`)) this.devices.add(objectPath, device, now, false)
    }
    this.setUp()
    return { kind: 'up' }
  }

  /** Brings the adapter up again after an event that may have changed it; one at a time. */
  private resync(generation: number): void {
    if (this.syncing) {
      this.syncAgain = true
      return
    }
    this.syncing = true
    void (async () => {
      try {
        do {
          this.syncAgain = false
          const bus = this.bus
          if (bus === undefined || this.generation !== generation || this.owner === undefined) break
          try {
            await this.bringUp(bus)
          } catch (error) {
            if (this.generation !== generation) break
            const wrapped = this.fail(error)
            // Not ready: the adapter is powering down or up; its Powered change brings us back.
            this.setDown()
            if (wrapped.code !== 'powered_off') this.emit('error', wrapped)
          }
        } while (this.syncAgain && this.generation === generation)
      } finally {
        if (this.generation === generation) this.syncing = false
      }
    })()
  }

  private setUp(): void {
    if (!this.up && this.wasUp) this.counters.resumes++
    this.up = this.wasUp = true
    this.emitState('poweredOn')
  }

  private setDown(): void {
    this.up = false
    this.emitState('poweredOff')
  }

  private emitState(state: AdapterState): void {
    if (state === this.lastState) return
    this.lastState = state
    this.emit('state', state)
  }

  private adapterLost(why: string): void {
    this.devices.clear()
    // bluetoothd drops a monitor with its adapter (or with itself): register again when it is back.
    this.monitor.lost()
    const wasUp = this.up
    this.setDown()
    if (wasUp) this.emit('warning', `${why}; discovery resumes by itself when it is back.`)
  }

  private onBusClosed(error: Error | undefined, generation: number): void {
    // While starting, the failed calls reject start() instead.
    if (this.generation !== generation || this.phase !== 'running') return
    const cause = error ?? new Error('the D-Bus system bus closed the connection')
    this.generation++
    this.teardown()
    this.emit('state', 'unknown')
    this.emit('error', bluezBusLost(cause))
  }

  private onSignal(message: DbusMessage, generation: number): void {
    if (this.generation !== generation || this.phase === 'stopped') return
    const event = classify(message, this.options.adapterPath, this.owner)
    if (event === undefined) return
    const now = this.options.clock.now()
    switch (event.kind) {
      case 'owner':
        this.owner = event.owner
        if (event.owner === undefined) this.adapterLost('bluetoothd left the D-Bus bus (stopped or restarting)')
        else this.resync(generation)
        return
      case 'adapterAdded':
        return this.resync(generation)
      case 'adapterRemoved':
        return this.adapterLost(`Bluetooth adapter ${this.options.adapter} disappeared (unplugged?)`)
      case 'powered':
        if (event.on) this.resync(generation)
        else this.adapterLost(`${this.options.adapter} was powered off`)
        return
      case 'deviceAdded':
        return this.deliver(this.devices.add(event.path, event.properties, now, true))
      case 'deviceChanged':
        return this.deliver(this.devices.changed(event.path, event.changed, now, event.invalidated))
      case 'deviceRemoved':
        return this.devices.remove(event.path)
    }
  }

  private deliver(adv: Advertisement | undefined): void {
    if (adv === undefined) return
    this.counters.advertisements++
    this.emit('advertisement', adv)
  }
}
