/**
 * What one foreign node's MqttPublisher listens to: its BeaconScanner's beacons and its
 * address-only devices (address-table.ts) as one gateway's view. The scanner's tick drives
 * `updated`; the address table's devices ride along in it, so the RSSI batch holds both.
 */
import { EventEmitter } from 'eventemitter3'
import type { Clock } from '../clock.js'
import type { PublisherEventSource } from '../mqtt/publisher-types.js'
import type { Beacon } from '../reading.js'
import type { BeaconScanner } from '../scanner/scanner.js'
import { AddressTable } from './address-table.js'

interface NodeEvents {
  found: [Beacon]
  gone: [Beacon]
  updated: [Beacon[]]
}

/** A node's scanner and address table as one event source (see the file comment). */
export class NodeBeacons extends EventEmitter<NodeEvents> implements PublisherEventSource {
  readonly clock: Clock
  /** Both sources' snapshots carry packet totals (`packetsHeard`). */
  readonly countsPackets = true
  readonly addresses: AddressTable
  readonly #detach: () => void

  constructor(
    readonly scanner: BeaconScanner,
    goneTimeoutMs: number | undefined,
  ) {
    super()
    this.clock = scanner.clock
    this.addresses = new AddressTable(scanner.clock, goneTimeoutMs, {
      found: (b) => this.emit('found', b),
      gone: (b) => this.emit('gone', b),
    })
    const found = (b: Beacon): void => void this.emit('found', b)
    const gone = (b: Beacon): void => void this.emit('gone', b)
    const updated = (bs: Beacon[]): void => {
      const more = this.addresses.beacons()
      this.emit('updated', more.length === 0 ? bs : [...bs, ...more])
    }
    scanner.on('found', found)
    scanner.on('gone', gone)
    scanner.on('updated', updated)
    this.#detach = () => {
      scanner.off('found', found)
      scanner.off('gone', gone)
      scanner.off('updated', updated)
    }
  }

  /** Every beacon in range: decoded ones first, then address-only devices. */
  beacons(): Beacon[] {
    const more = this.addresses.beacons()
    const decoded = this.scanner.beacons()
    return more.length === 0 ? decoded : [...decoded, ...more]
  }

  /** Starts the scanner and the address table. */
  async start(): Promise<void> {
    this.addresses.start()
    await this.scanner.start()
  }

  /** Stops both and lets go of the scanner's events. */
  async stop(): Promise<void> {
    this.#detach()
    this.addresses.stop()
    await this.scanner.stop()
  }
}
