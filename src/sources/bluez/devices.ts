/**
 * BlueZ's Device1 objects → Advertisement snapshots.
 *
 * Why only the keys of each signal: bluetoothd keeps one Device1 object per address and
 * merges what it hears into it. ManufacturerData and ServiceData are dictionaries keyed by
 * company id / uuid that keep an entry until the same key is heard again (with
 * `DuplicateData: true` bluetoothd clears them before each report that carries that kind of
 * data, but a report without manufacturer data leaves the old entry in place). Reading the
 * object's properties would therefore resurrect an old reading with a new RSSI and
 * timestamp, the very defect noble has (see advertisement.ts). A PropertiesChanged
 * signal, on the other hand, lists exactly what the report just received changed: that, plus
 * the device's identity and last RSSI, is one advertisement.
 *
 * Why nothing is emitted for the devices GetManagedObjects lists at start: their properties
 * are bluetoothd's cache (up to the temporary-device timeout, 30 s by default, or forever for
 * paired devices), not something heard now. They only seed the address, address type and last
 * RSSI. InterfacesAdded with an RSSI, in contrast, is a device bluetoothd has just heard.
 */

import type { Advertisement, ServiceData } from '../../advertisement.js'
import { dictEntries, propertyMap, variantBytes, variantDict, variantInteger, variantString } from './values.js'

/**
 * RSSI value HCI uses for "not available" (as the noble source does): a data-only signal from a device never
 * heard with an RSSI.
 */
const RSSI_UNAVAILABLE = 127
const DEVICE_PATH = /\/dev_([0-9A-Fa-f]{2}(?:_[0-9A-Fa-f]{2}){5})$/
/** The Bluetooth base uuid: `0000xxxx-0000-1000-8000-00805f9b34fb` is the 16-bit uuid xxxx. */
const BASE_UUID_TAIL = '00001000800000805f9b34fb'

interface Device {
  address: string
  addressType?: 'public' | 'random'
  rssi?: number
}

/**
 * A service-data uuid as noble reports it: 16- and 32-bit uuids short (`"feaa"`, `"81e7"`),
 * others as 32 hex digits without dashes.
 */
export function shortUuid(uuid: string): string {
  const hex = uuid.replace(/-/g, '').toLowerCase()
  if (hex.length !== 32 || !hex.endsWith(BASE_UUID_TAIL)) return hex
  return hex.startsWith('0000') ? hex.slice(4, 8) : hex.slice(0, 8)
}

/**
 * BlueZ's ManufacturerData `{companyId: bytes}`: the first entry, as the advertisement's bytes (company id
 * little-endian first).
 */
function manufacturerData(raw: unknown): Uint8Array | undefined {
  for (const [key, value] of variantDict(raw) ?? []) {
    const bytes = variantBytes(value)
    if (typeof key !== 'number' || !Number.isInteger(key) || key < 0 || key > 0xffff || bytes === undefined) continue
    const out = new Uint8Array(bytes.length + 2)
    out[0] = key & 0xff
    out[1] = key >> 8
    out.set(bytes, 2)
    return out
  }
  return undefined
}

function serviceData(raw: unknown): ServiceData[] | undefined {
  const out: ServiceData[] = []
  for (const [key, value] of variantDict(raw) ?? []) {
    const data = variantBytes(value)
    if (typeof key === 'string' && data !== undefined) out.push({ uuid: shortUuid(key), data })
  }
  return out.length > 0 ? out : undefined
}

function addressFromPath(path: string): string | undefined {
  const m = DEVICE_PATH.exec(path)
  return m === null ? undefined : m[1].replace(/_/g, ':').toLowerCase()
}

/**
 * The Device1 objects of one adapter, by object path. Bounded by bluetoothd, which removes devices it stops
 * hearing.
 */
export class BluezDevices {
  private readonly devices = new Map<string, Device>()

  /** Devices known now. */
  get size(): number {
    return this.devices.size
  }

  /** Forgets every device (the adapter or bluetoothd went away). */
  clear(): void {
    this.devices.clear()
  }

  /** A device object disappeared. */
  remove(path: string): void {
    this.devices.delete(path)
  }

  /**
   * A Device1 object's full property set (GetManagedObjects or InterfacesAdded): updates the
   * identity; returns an advertisement only when `heardNow` and the object carries an RSSI.
   */
  add(path: string, rawProperties: unknown, now: number, heardNow: boolean): Advertisement | undefined {
    const props = propertyMap(rawProperties)
    const device = this.identity(path, props)
    if (device === undefined) return undefined
    const rssi = variantInteger(props.get('RSSI'))
    // A cached RSSI only fills a gap: a signal may already have brought a fresher one.
    if (rssi !== undefined && (heardNow || device.rssi === undefined)) device.rssi = rssi
    if (!heardNow || rssi === undefined) return undefined
    return this.snapshot(device, props, now)
  }

  /**
   * A PropertiesChanged on Device1: an advertisement when the signal carries RSSI and/or data,
   * built from the changed keys only plus the last RSSI (forgotten when the signal invalidates it).
   */
  changed(
    path: string,
    rawChanged: unknown,
    now: number,
    invalidated: readonly string[] = [],
  ): Advertisement | undefined {
    const props = propertyMap(rawChanged)
    const device = this.identity(path, props)
    if (device === undefined) return undefined
    // No longer heard: a later data-only signal must not borrow the old RSSI.
    if (invalidated.includes('RSSI')) device.rssi = undefined
    const rssi = variantInteger(props.get('RSSI'))
    if (rssi !== undefined) device.rssi = rssi
    if (rssi === undefined && !props.has('ManufacturerData') && !props.has('ServiceData')) return undefined
    return this.snapshot(device, props, now)
  }

  private identity(path: string, props: Map<string, unknown>): Device | undefined {
    let device = this.devices.get(path)
    if (device === undefined) {
      const address = (variantString(props.get('Address')) ?? addressFromPath(path))?.toLowerCase()
      if (address === undefined || !/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/.test(address)) return undefined
      device = { address }
      this.devices.set(path, device)
    }
    const type = variantString(props.get('AddressType'))
    if (type === 'public' || type === 'random') device.addressType = type
    return device
  }

  private snapshot(device: Device, props: Map<string, unknown>, now: number): Advertisement {
    const adv: Advertisement = { address: device.address, rssi: device.rssi ?? RSSI_UNAVAILABLE, timestamp: now }
    if (device.addressType !== undefined) adv.addressType = device.addressType
    const name = variantString(props.get('Name'))
    if (name !== undefined) adv.localName = name
    const txPower = variantInteger(props.get('TxPower'))
    if (txPower !== undefined) adv.txPowerLevel = txPower
    const mfr = manufacturerData(props.get('ManufacturerData'))
    if (mfr !== undefined) adv.manufacturerData = mfr
    const sd = serviceData(props.get('ServiceData'))
    if (sd !== undefined) adv.serviceData = sd
    return adv
  }
}

/** The Device1 and Adapter1 property sets of a GetManagedObjects reply, by object path. */
export function managedInterfaces(reply: unknown): Map<string, Map<string, unknown>> {
  const out = new Map<string, Map<string, unknown>>()
  for (const [path, ifaces] of dictEntries(reply)) {
    if (typeof path !== 'string') continue
    const byInterface = new Map<string, unknown>()
    for (const [name, props] of dictEntries(ifaces)) if (typeof name === 'string') byInterface.set(name, props)
    out.set(path, byInterface)
  }
  return out
}
