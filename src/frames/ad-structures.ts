/**
 * The AD structures of an advertisement's payload (Core spec Vol 3 Part C 11: a length byte,
 * a type byte, length − 1 bytes of data, repeated), read into the fields of an
 * {@link Advertisement} as noble reports them. Sources that receive raw payloads (an ESPHome
 * proxy's raw advertisements) use it, so their advertisements decode like a local adapter's.
 * Hostile bytes: a structure running past the end ends the payload, as noble's gap.js does.
 */
import type { Advertisement, ServiceData } from '../advertisement.js'

/** The fields an AD payload fills. */
export type AdFields = Pick<Advertisement, 'localName' | 'txPowerLevel' | 'manufacturerData' | 'serviceData'>

/** AD types (Assigned Numbers 2.3). */
const SHORT_NAME = 0x08
const COMPLETE_NAME = 0x09
const TX_POWER = 0x0a
const SERVICE_DATA_16 = 0x16
const SERVICE_DATA_128 = 0x21
const MANUFACTURER_DATA = 0xff

const hex = (b: Uint8Array): string => Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex')

/** A 128-bit uuid sent least significant byte first, as the dashed lower-case text. */
function uuid128(le: Uint8Array): string {
  const h = hex(Uint8Array.from(le).reverse())
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

/**
 * Reads AD structures. The first manufacturer data element is kept (an {@link Advertisement}
 * holds one; beacons send one); every 16- and 128-bit service data element is kept, its uuid as
 * noble reports it (`feaa` for on-air `AA FE`). A complete name wins over a shortened one.
 */
export function parseAdStructures(payload: Uint8Array): AdFields {
  const out: AdFields = {}
  const services: ServiceData[] = []
  let shortName: string | undefined
  for (let i = 0; i < payload.length;) {
    const length = payload[i]
    if (length === 0) break // the rest is padding (a zero length ends significant data)
    if (i + 1 + length > payload.length) break
    const type = payload[i + 1]
    const data = payload.subarray(i + 2, i + 1 + length)
    if (type === MANUFACTURER_DATA && data.length >= 2 && out.manufacturerData === undefined)
      out.manufacturerData = Uint8Array.from(data)
    else if (type === SERVICE_DATA_16 && data.length >= 2)
      services.push({ uuid: hex(Uint8Array.of(data[1], data[0])), data: Uint8Array.from(data.subarray(2)) })
    else if (type === SERVICE_DATA_128 && data.length >= 16)
      services.push({ uuid: uuid128(data.subarray(0, 16)), data: Uint8Array.from(data.subarray(16)) })
    else if (type === COMPLETE_NAME) out.localName = Buffer.from(data).toString('utf8')
    else if (type === SHORT_NAME) shortName = Buffer.from(data).toString('utf8')
    else if (type === TX_POWER && data.length >= 1) out.txPowerLevel = (data[0] << 24) >> 24
    i += 1 + length
  }
  if (out.localName === undefined && shortName !== undefined) out.localName = shortName
  if (services.length > 0) out.serviceData = services
  return out
}
