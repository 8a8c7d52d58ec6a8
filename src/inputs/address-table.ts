/**
 * Presence by address: what a foreign node reports without advertisement bytes (an ESPresense
 * device that is not an iBeacon, an OpenMQTTGateway node without `pubadvdata`) has no frame for
 * the decoder, so a BeaconScanner would drop it. Such a device is still a presence in a room: it
 * is kept in a range table of its own — the scanner's table, with the same smoothing, gone
 * timeout and tick — under its address as id, and published beside the node's decoded beacons
 * (node-beacons.ts).
 */
import type { Advertisement } from '../advertisement.js'
import type { Clock } from '../clock.js'
import { RangeTable } from '../range/range-table.js'
import type { Beacon } from '../reading.js'
import { resolveScannerOptions } from '../scanner/options.js'

/** Callbacks of an {@link AddressTable}: what a scanner would emit. */
export interface AddressTableEvents {
  found(beacon: Beacon): void
  gone(beacon: Beacon): void
}

/** A range table fed with address-only sightings (see the file comment). */
export class AddressTable {
  readonly #table: RangeTable
  #running = false

  constructor(clock: Clock, goneTimeoutMs: number | undefined, events: AddressTableEvents) {
    const { table } = resolveScannerOptions(goneTimeoutMs === undefined ? {} : { goneTimeoutMs })
    this.#table = new RangeTable(
      { ...table, clock },
      {
        found: (b) => events.found(b),
        gone: (b) => events.gone(b),
        changed: () => undefined,
        // The node's scanner ticks; its `updated` carries these beacons too (node-beacons.ts).
        updated: () => undefined,
        released: () => undefined,
        wantsChanged: () => false,
        wantsUpdated: () => false,
      },
    )
  }

  /** Starts the table's expiry. */
  start(): void {
    if (this.#running) return
    this.#running = true
    this.#table.start()
  }

  /** Stops it and forgets every address, without `gone`. */
  stop(): void {
    this.#running = false
    this.#table.stop()
  }

  /** Devices tracked now (reported or not). */
  get size(): number {
    return this.#table.size
  }

  /** One address-only sighting. */
  ingest(adv: Advertisement): void {
    if (!this.#running) return
    this.#table.ingest({ address: adv.address, timestamp: adv.timestamp, rssi: adv.rssi, frames: [] })
  }

  /** The devices in range, as Beacons (id: the address). */
  beacons(): Beacon[] {
    return this.#table.beacons()
  }
}
