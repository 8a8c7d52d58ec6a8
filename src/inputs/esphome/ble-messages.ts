/**
 * The two ways a Bluetooth proxy streams what it hears (api.proto): batches of raw
 * advertisements (`BluetoothLERawAdvertisementsResponse`, id 93, API 1.9 and later, asked for
 * with the RAW_ADVERTISEMENTS subscription flag) and one parsed advertisement per message
 * (`BluetoothLEAdvertisementResponse`, id 67, older proxies). Bounded: a batch keeps at most
 * {@link MAX_BATCH} advertisements and each AD payload at most {@link MAX_AD_BYTES} bytes.
 */
import { ProtoReader, ProtoWriter, WIRE_LEN } from './protobuf.js'

/**
 * Most advertisements kept from one batch. The firmware sends up to
 * `BLUETOOTH_PROXY_ADVERTISEMENT_BATCH_SIZE` (16 in current ESPHome; older ones a scan result
 * buffer's worth); anything past 64 is not a proxy's batch and is dropped (counted).
 */
export const MAX_BATCH = 64

/**
 * A raw AD payload is advertisement + scan response (31 + 31 legacy: api.proto `fixed_array_size` 62);
 * 255 allows extended ones.
 */
export const MAX_AD_BYTES = 255

/** One raw advertisement of a batch. */
export interface RawAdvertisement {
  /** The 48-bit address, most significant byte first as printed (esp32_ble `ble_addr_to_uint64`). */
  address: number
  rssi: number
  /** `esp_ble_addr_type_t`: 0 public, 1 random, 2 and 3 resolvable (public / random identity). */
  addressType: number
  /** AD structures of the advertisement followed by those of its scan response. */
  data: Uint8Array
}

/** A batch as decoded, and how many advertisements past {@link MAX_BATCH} were dropped. */
export interface RawBatch {
  advertisements: RawAdvertisement[]
  dropped: number
}

function rawAdvertisement(b: Uint8Array): RawAdvertisement | undefined {
  const out: RawAdvertisement = { address: 0, rssi: 0, addressType: 0, data: new Uint8Array(0) }
  const r = new ProtoReader(b)
  while (r.more()) {
    const { field, wire } = r.tag()
    if (field === 1 && wire === 0) out.address = r.varint()
    else if (field === 2 && wire === 0) out.rssi = r.sint32()
    else if (field === 3 && wire === 0) out.addressType = r.varint()
    else if (field === 4 && wire === WIRE_LEN) out.data = r.bytes()
    else r.skip(wire)
  }
  return out.data.length > MAX_AD_BYTES || out.address > 0xffffffffffff ? undefined : out
}

/** Decodes a BluetoothLERawAdvertisementsResponse. @throws ProtoError on bytes that are not one. */
export function decodeRawBatch(b: Uint8Array): RawBatch {
  const batch: RawBatch = { advertisements: [], dropped: 0 }
  const r = new ProtoReader(b)
  while (r.more()) {
    const { field, wire } = r.tag()
    if (field === 1 && wire === WIRE_LEN) {
      const item = r.bytes()
      const adv = batch.advertisements.length < MAX_BATCH ? rawAdvertisement(item) : undefined
      if (adv === undefined) batch.dropped++
      else batch.advertisements.push(adv)
    } else r.skip(wire)
  }
  return batch
}

/** Encodes a raw batch (the fake device's side). */
export function encodeRawBatch(advertisements: readonly RawAdvertisement[]): Uint8Array {
  const w = new ProtoWriter()
  for (const a of advertisements) {
    // address and rssi are `force`d in api.proto: written even when zero would be omitted; equal on the wire here.
    const item = new ProtoWriter().uint(1, a.address).sint32(2, a.rssi).uint(3, a.addressType).bytes(4, a.data)
    w.bytes(1, item.finish())
  }
  return w.finish()
}

/** A `BluetoothServiceData`: uuid text as the device writes it (`0x004C`, `0xFEAA`, or a dashed 128-bit uuid). */
export interface ParsedServiceData {
  uuid: string
  data: Uint8Array
}

/** One parsed advertisement of an older proxy. */
export interface ParsedAdvertisement {
  address: number
  /** The local name's bytes (api.proto `bytes name`). */
  name: Uint8Array
  rssi: number
  addressType: number
  serviceData: ParsedServiceData[]
  /** uuid is the company id as `0x004C`; data without it. */
  manufacturerData: ParsedServiceData[]
}

/** Most service or manufacturer data entries kept from one parsed advertisement (31 bytes hold fewer). */
const MAX_ENTRIES = 16

function serviceData(b: Uint8Array): ParsedServiceData | undefined {
  let uuid = ''
  let data: Uint8Array = new Uint8Array(0)
  let legacy: number[] | undefined
  const r = new ProtoReader(b)
  while (r.more()) {
    const { field, wire } = r.tag()
    if (field === 1 && wire === WIRE_LEN) uuid = r.string()
    else if (field === 3 && wire === WIRE_LEN) data = r.bytes()
    else if (field === 2 && wire === 0 && (legacy ??= []).length < MAX_AD_BYTES) legacy.push(r.varint() & 0xff)
    else r.skip(wire)
  }
  // api.proto: `legacy_data` (repeated uint32) was removed in API 1.7 for `data`; read both as aioesphomeapi does.
  if (data.length === 0 && legacy !== undefined) data = Uint8Array.from(legacy)
  return uuid.length > 40 || data.length > MAX_AD_BYTES ? undefined : { uuid, data }
}

/** Decodes a BluetoothLEAdvertisementResponse. @throws ProtoError on bytes that are not one. */
export function decodeParsedAdvertisement(b: Uint8Array): ParsedAdvertisement {
  const out: ParsedAdvertisement = {
    address: 0,
    name: new Uint8Array(0),
    rssi: 0,
    addressType: 0,
    serviceData: [],
    manufacturerData: [],
  }
  const r = new ProtoReader(b)
  while (r.more()) {
    const { field, wire } = r.tag()
    if (field === 1 && wire === 0) out.address = r.varint()
    else if (field === 2 && wire === WIRE_LEN) out.name = r.bytes().subarray(0, MAX_AD_BYTES)
    else if (field === 3 && wire === 0) out.rssi = r.sint32()
    else if (field === 7 && wire === 0) out.addressType = r.varint()
    else if ((field === 5 || field === 6) && wire === WIRE_LEN) {
      const list = field === 5 ? out.serviceData : out.manufacturerData
      const entry = serviceData(r.bytes())
      if (entry !== undefined && list.length < MAX_ENTRIES) list.push(entry)
    } else r.skip(wire)
  }
  return out
}

/** Encodes a parsed advertisement (the fake device's side). */
export function encodeParsedAdvertisement(a: ParsedAdvertisement): Uint8Array {
  const w = new ProtoWriter().uint(1, a.address).bytes(2, a.name).sint32(3, a.rssi)
  for (const s of a.serviceData) w.bytes(5, new ProtoWriter().string(1, s.uuid).bytes(3, s.data).finish())
  for (const m of a.manufacturerData) w.bytes(6, new ProtoWriter().string(1, m.uuid).bytes(3, m.data).finish())
  return w.uint(7, a.addressType).finish()
}
