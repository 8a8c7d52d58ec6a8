/**
 * A proxy's advertisements in beaconkit's shape, so the decoder and the keyring treat them like a
 * Pi's: the address as `aa:bb:cc:dd:ee:ff`, the address type, the RSSI, and the payload's fields
 * (raw batches carry the AD bytes; older proxies' parsed messages carry the fields, rebuilt here
 * into the form noble gives).
 */
import type { Advertisement, ServiceData } from '../../advertisement.js'
import { parseAdStructures } from '../../frames/ad-structures.js'
import type { ParsedAdvertisement, RawAdvertisement } from './ble-messages.js'

/** An RSSI a controller can report (dBm); others are not a measurement. */
const RSSI_MIN = -127
const RSSI_MAX = 20

/** A 48-bit address, most significant byte first (esp32_ble `ble_addr_to_uint64`). */
export function addressText(address: number): string {
  const h = address.toString(16).padStart(12, '0')
  return h.replace(/(..)(?!$)/g, '$1:')
}

/** esp_ble_addr_type_t: 0 public, 1 random, 2 RPA with public identity, 3 RPA with random identity. */
function addressType(t: number): Advertisement['addressType'] {
  if (t === 0) return 'public'
  if (t >= 1 && t <= 3) return 'random'
  return 'unknown'
}

function rssiOk(rssi: number): boolean {
  return rssi >= RSSI_MIN && rssi <= RSSI_MAX
}

/** A raw advertisement at `timestamp`, or undefined when its RSSI is not a measurement. */
export function fromRaw(a: RawAdvertisement, timestamp: number): Advertisement | undefined {
  if (!rssiOk(a.rssi)) return undefined
  return {
    address: addressText(a.address),
    addressType: addressType(a.addressType),
    rssi: a.rssi,
    timestamp,
    ...parseAdStructures(a.data),
  }
}

/** `0x004C` → 0x004c; undefined for text that is not a 16-bit id. */
function uuid16(text: string): number | undefined {
  const m = /^0x([0-9a-f]{4})$/i.exec(text)
  return m === null ? undefined : parseInt(m[1], 16)
}

/** The uuid in the decoder's form: `feaa` for 16-bit, dashed lower-case for 128-bit. */
function serviceUuid(text: string): string | undefined {
  const short = uuid16(text)
  if (short !== undefined) return short.toString(16).padStart(4, '0')
  return /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i.test(text) ? text.toLowerCase() : undefined
}

/** A parsed advertisement at `timestamp`, or undefined when its RSSI is not a measurement. */
export function fromParsed(a: ParsedAdvertisement, timestamp: number): Advertisement | undefined {
  if (!rssiOk(a.rssi) || a.address > 0xffffffffffff) return undefined
  const adv: Advertisement = {
    address: addressText(a.address),
    addressType: addressType(a.addressType),
    rssi: a.rssi,
    timestamp,
  }
  if (a.name.length > 0) adv.localName = Buffer.from(a.name).toString('utf8')
  const maker = a.manufacturerData[0]
  const company = maker === undefined ? undefined : uuid16(maker.uuid)
  if (maker !== undefined && company !== undefined) {
    // ESPHome splits the company id into `uuid`; the decoder wants it in front, little-endian, as on air.
    const bytes = new Uint8Array(2 + maker.data.length)
    bytes[0] = company & 0xff
    bytes[1] = company >> 8
    bytes.set(maker.data, 2)
    adv.manufacturerData = bytes
  }
  const services: ServiceData[] = []
  for (const s of a.serviceData) {
    const uuid = serviceUuid(s.uuid)
    if (uuid !== undefined) services.push({ uuid, data: Uint8Array.from(s.data) })
  }
  if (services.length > 0) adv.serviceData = services
  return adv
}
