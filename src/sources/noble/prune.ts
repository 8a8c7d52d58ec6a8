/**
 * Keeps noble's per-address bookkeeping bounded.
 *
 * noble 1.9.2 never forgets an address it has heard. Phones rotate random resolvable
 * addresses every few minutes, so a gateway in a busy place accumulates one entry per address
 * in each of these maps (found by reading the source) until the process runs out of memory:
 *
 * - lib/noble.js: `_peripherals`, `_services`, `_characteristics`, `_descriptors` and
 *   `_discoveredPeripheralUUids`, keyed by peripheral id (address without colons);
 * - lib/hci-socket/bindings.js: `_addresses`, `_addresseTypes`, `_connectable`, `scannable`,
 *   keyed by peripheral id;
 * - lib/hci-socket/gap.js: `_discoveries`, keyed by `aa:bb:..` address, holding the merged
 *   advertisement and a per-address packet `count`.
 *
 * (hci.js keeps only per-connection-handle state, and bindings' `_handles`, `_gatts`,
 * `_aclStreams`, `_signalings` are per connection: beaconkit never connects, and a connected
 * peripheral is never pruned.)
 *
 * Liveness comes from noble itself, so nothing is added to the per-packet path: an address
 * is silent when its GAP packet `count` did not change between two prune passes, and a
 * peripheral id is silent when no `discover` reported it since the last pass. Forgetting an
 * address only makes noble treat its next packet as a first sighting, which is what noble
 * does after every restart anyway.
 */

import type { NobleLike } from './types.js'

/** What a pass removed. */
export interface PruneResult {
  /** Peripheral ids removed from noble's and the bindings' maps. */
  peripherals: number
  /** Addresses removed from the GAP layer's `_discoveries`. */
  discoveries: number
}

/** Per-instance memory between passes; bounded by the size of noble's own maps. */
export class NoblePruner {
  /** GAP packet counts seen at the previous pass, by address. */
  private counts = new Map<string, number>()
  /** Peripheral ids reported by `discover` since the previous pass. */
  private heard = new Set<string>()

  /** Call for every `discover` (cheap: one Set insert). */
  heardPeripheral(id: string | undefined): void {
    if (id !== undefined) this.heard.add(id)
  }

  /** Removes every address and peripheral silent since the previous pass. */
  prune(noble: NobleLike): PruneResult {
    const result: PruneResult = { peripherals: 0, discoveries: 0 }
    const bindings = noble._bindings
    const discoveries = bindings?._gap?._discoveries
    const nextCounts = new Map<string, number>()

    if (discoveries !== undefined) {
      for (const address of Object.keys(discoveries)) {
        const id = peripheralIdOf(address)
        const count = discoveries[address]?.count ?? 0
        const silent = this.counts.get(address) === count
        if (silent && !isConnected(noble, id)) {
          delete discoveries[address]
          result.discoveries++
        } else {
          nextCounts.set(address, count)
        }
      }
    }

    const peripherals = noble._peripherals
    if (peripherals !== undefined) {
      for (const id of Object.keys(peripherals)) {
        if (this.heard.has(id) || isConnected(noble, id)) continue
        // Keep the id while its GAP entry is alive: it may be waiting for a scan response.
        const address = peripherals[id]?.address
        if (discoveries !== undefined && typeof address === 'string' && discoveries[address] !== undefined) continue
        forgetPeripheral(noble, id)
        result.peripherals++
      }
    }

    this.counts = nextCounts
    this.heard = new Set()
    return result
  }
}

/** The peripheral id noble's HCI bindings derive from an address. */
function peripheralIdOf(address: string): string {
  return address.split(':').join('')
}

/** Connected, connecting or disconnecting peripherals hold GATT state that must stay. */
function isConnected(noble: NobleLike, id: string): boolean {
  const state = noble._peripherals?.[id]?.state
  if (state !== undefined && state !== 'disconnected') return true
  const bindings = noble._bindings
  return bindings?._handles?.[id] !== undefined || bindings?._pendingConnectionUuid === id
}

function forgetPeripheral(noble: NobleLike, id: string): void {
  delete noble._peripherals?.[id]
  delete noble._services?.[id]
  delete noble._characteristics?.[id]
  delete noble._descriptors?.[id]
  delete noble._discoveredPeripheralUUids?.[id]
  const bindings = noble._bindings
  if (bindings === undefined) return
  delete bindings._addresses?.[id]
  delete bindings._addresseTypes?.[id]
  delete bindings._connectable?.[id]
  delete bindings.scannable?.[id]
}
