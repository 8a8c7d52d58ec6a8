/**
 * One noble `discover` event → one immutable `Advertisement` snapshot.
 *
 * Why a snapshot: noble mutates the same `peripheral` and `peripheral.advertisement`
 * objects for every packet of an address, so holding them would change data after the fact.
 *
 * Why the `reported` set (stale data): in noble 1.9.2-26, lib/hci-socket/gap.js
 * `parseServices()` starts from the address's previous advertisement object
 * (`this._discoveries[address].advertisement`). For every packet that is not a scan response
 * it resets `serviceData`, `serviceUuids` and `serviceSolicitationUuids` to fresh arrays, but it
 * never clears `manufacturerData`, `localName` or `txPowerLevel`. So a beacon that alternates
 * an iBeacon packet (0xFF manufacturer data) with a 0x16 service-data packet is reported, for
 * the service-data packet, with the iBeacon bytes of the earlier packet: decoding would
 * resurrect an old reading with a new timestamp and RSSI.
 *
 * The tell: for every 0xFF structure it parses, gap.js assigns
 * `advertisement.manufacturerData = bytes` where `bytes = eir.slice(i + 2).slice(0, length - 1)`,
 * a new Buffer object per parsed packet (and `eir` itself is a fresh slice of each HCI event).
 * lib/noble.js `onDiscover` then copies that same reference onto `peripheral.advertisement`.
 * A manufacturer-data Buffer we have already reported therefore comes from an earlier packet;
 * a Buffer we have not seen comes from this one. The same holds for each service-data entry:
 * gap.js pushes a new `{ uuid, data }` object per parsed 0x16/0x20/0x21 structure, and a scan
 * response appends to the previous packet's list (an advertisement lost on air leaves the
 * older, already reported entries in front). A WeakSet keyed by those objects costs nothing
 * per address and lets the garbage collector drop them with noble's own references.
 */

import type { Advertisement, ServiceData } from '../../advertisement.js'
import type { PacketFacts } from './reports.js'
import type { NoblePeripheralLike, NobleServiceData } from './types.js'

/** RSSI value HCI uses for "not available"; used when noble hands over something non-numeric. */
const RSSI_UNAVAILABLE = 127

/**
 * Snapshot of one noble `discover` event.
 *
 * @param peripheral - noble's `Peripheral` (only read, never kept).
 * @param reported - noble objects (manufacturer-data Buffers, service-data entries) already
 *   reported; updated in place. Pass the same set for every event of one noble instance.
 * @param now - the event's timestamp in ms.
 * @param facts - what the packet behind this report really carried (reports.ts), when
 *   known: its PDU type decides `connectable`, and a local name or TX power it did not carry
 *   is noble's leftover from an earlier packet and left out.
 * @returns A self-contained `Advertisement` whose buffers are copies. Manufacturer data and
 *   service data that noble kept from an earlier packet are left out.
 */
export function advertisementFromNoble(
  peripheral: NoblePeripheralLike,
  reported: WeakSet<object>,
  now: number,
  facts?: PacketFacts,
): Advertisement {
  const address = String(peripheral.address || peripheral.id || '').toLowerCase()
  const rssi =
    typeof peripheral.rssi === 'number' && Number.isFinite(peripheral.rssi) ? peripheral.rssi : RSSI_UNAVAILABLE
  const adv: Advertisement = { address, rssi, timestamp: now }

  const addressType = peripheral.addressType
  if (addressType === 'public' || addressType === 'random') adv.addressType = addressType
  else if (addressType !== undefined) adv.addressType = 'unknown'
  const connectable = facts?.connectable ?? peripheral.connectable
  if (typeof connectable === 'boolean') adv.connectable = connectable

  const source = peripheral.advertisement
  if (source === undefined || source === null) return adv
  if (typeof source.localName === 'string' && (facts?.localName ?? true)) adv.localName = source.localName
  const tx = source.txPowerLevel
  if (typeof tx === 'number' && Number.isFinite(tx) && (facts?.txPowerLevel ?? true)) adv.txPowerLevel = tx

  const manufacturerData = source.manufacturerData
  if (manufacturerData instanceof Uint8Array && !reported.has(manufacturerData)) {
    reported.add(manufacturerData)
    adv.manufacturerData = new Uint8Array(manufacturerData)
  }

  const serviceData = freshServiceData(source.serviceData, reported)
  if (serviceData.length > 0) adv.serviceData = serviceData
  return adv
}

function freshServiceData(list: NobleServiceData[] | undefined, reported: WeakSet<object>): ServiceData[] {
  const out: ServiceData[] = []
  if (!Array.isArray(list)) return out
  for (const entry of list) {
    if (entry === null || typeof entry !== 'object' || reported.has(entry)) continue
    if (typeof entry.uuid !== 'string' || !(entry.data instanceof Uint8Array)) continue
    reported.add(entry)
    out.push({ uuid: entry.uuid.toLowerCase(), data: new Uint8Array(entry.data) })
  }
  return out
}
