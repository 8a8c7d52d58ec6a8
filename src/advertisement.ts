/**
 * The one shape every source produces: a snapshot of one received advertisement.
 * Sources never hand out objects of the BLE stack; decoding never sees them.
 */

/** One Bluetooth LE advertisement (or advertisement merged with its scan response). */
export interface Advertisement {
  /** Lower-case `aa:bb:cc:dd:ee:ff`. */
  address: string
  addressType?: 'public' | 'random' | 'unknown'
  /** dBm. */
  rssi: number
  /** Milliseconds (Unix epoch for live sources, the recording's clock for replays). */
  timestamp: number
  connectable?: boolean
  localName?: string
  txPowerLevel?: number
  /** Starts with the 2-byte company id, little-endian, as noble delivers it. */
  manufacturerData?: Uint8Array
  /** 16-bit service data; `uuid` as noble reports it (`"81e7"` for on-air `E7 81`), `data` without the uuid. */
  serviceData?: ServiceData[]
  /**
   * Which adapter heard it (e.g. `hci1`), when a scanner is fed by several
   * (`CombinedSource` sets it). Absent from single-adapter sources, so their beacons carry no
   * per-adapter state.
   */
  adapter?: string
}

/** One service-data element of an advertisement. */
export interface ServiceData {
  uuid: string
  data: Uint8Array
}

/** The optional first line of a recording. Extra members (site, tool, notes) are kept as written. */
export interface RecordingHeader {
  format: 'beaconkit-advertisements'
  version: 1
  [key: string]: unknown
}

/** What one line of a JSONL recording holds. */
export type ParsedLine =
  | { kind: 'advertisement'; advertisement: Advertisement }
  | { kind: 'header'; header: RecordingHeader }
  | { kind: 'blank' }
  | { kind: 'malformed'; reason: string }

/**
 * The latest time a line may carry: the end of JavaScript's Date range (year 275760). A line
 * outside [0, MAX_TIMESTAMP] is corrupt (a `t` of 1e300 or −5): it would throw time off by
 * more than any recording spans, so it is refused as malformed.
 */
export const MAX_TIMESTAMP = 8.64e15

const ADDRESS = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i
const HEX = /^(?:[0-9a-f]{2})*$/i
const ADDRESS_TYPES = new Set(['public', 'random', 'unknown'])

function hexToBytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex, 'hex'))
}

function bytesToHex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * Parses one line of the JSONL recording format (docs/recordings.md). Never throws: a line
 * that is not a usable advertisement comes back as `malformed` with a reason a person can act
 * on. Unknown keys are ignored; optional keys of the wrong type make the line malformed
 * rather than being silently dropped, because a recording that lies about a field is corrupt.
 */
export function parseAdvertisementLine(line: string): ParsedLine {
  const text = line.trim()
  if (text === '') return { kind: 'blank' }
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return { kind: 'malformed', reason: 'not valid JSON' }
  }
  if (!isRecord(value)) return { kind: 'malformed', reason: 'not a JSON object' }
  if (value.format !== undefined) {
    if (value.format !== 'beaconkit-advertisements')
      return { kind: 'malformed', reason: `unknown format ${JSON.stringify(value.format)}` }
    if (value.version !== 1)
      return {
        kind: 'malformed',
        reason: `unsupported version ${JSON.stringify(value.version)} (this reader knows version 1)`,
      }
    return { kind: 'header', header: value as RecordingHeader }
  }
  const { t, address, rssi } = value
  if (typeof t !== 'number' || !Number.isFinite(t))
    return { kind: 'malformed', reason: '"t" must be a number of milliseconds' }
  if (t < 0 || t > MAX_TIMESTAMP)
    return {
      kind: 'malformed',
      reason: `"t" must be between 0 and ${MAX_TIMESTAMP} ms (the Date range); ${t} is not a time`,
    }
  if (typeof address !== 'string' || !ADDRESS.test(address))
    return { kind: 'malformed', reason: '"address" must look like aa:bb:cc:dd:ee:ff' }
  if (typeof rssi !== 'number' || !Number.isFinite(rssi))
    return { kind: 'malformed', reason: '"rssi" must be a number (dBm)' }
  const adv: Advertisement = { address: address.toLowerCase(), rssi, timestamp: t }
  if (value.addressType !== undefined) {
    if (typeof value.addressType !== 'string' || !ADDRESS_TYPES.has(value.addressType))
      return { kind: 'malformed', reason: '"addressType" must be public, random or unknown' }
    adv.addressType = value.addressType as Advertisement['addressType']
  }
  if (value.connectable !== undefined) {
    if (typeof value.connectable !== 'boolean')
      return { kind: 'malformed', reason: '"connectable" must be true or false' }
    adv.connectable = value.connectable
  }
  if (value.localName !== undefined) {
    if (typeof value.localName !== 'string') return { kind: 'malformed', reason: '"localName" must be a string' }
    adv.localName = value.localName
  }
  if (value.txPowerLevel !== undefined) {
    if (typeof value.txPowerLevel !== 'number' || !Number.isFinite(value.txPowerLevel))
      return { kind: 'malformed', reason: '"txPowerLevel" must be a number' }
    adv.txPowerLevel = value.txPowerLevel
  }
  if (value.manufacturerData !== undefined) {
    if (typeof value.manufacturerData !== 'string' || !HEX.test(value.manufacturerData))
      return { kind: 'malformed', reason: '"manufacturerData" must be an even number of hex digits' }
    adv.manufacturerData = hexToBytes(value.manufacturerData)
  }
  if (value.serviceData !== undefined) {
    if (!Array.isArray(value.serviceData))
      return { kind: 'malformed', reason: '"serviceData" must be an array of {uuid, data}' }
    const list: ServiceData[] = []
    for (const item of value.serviceData as unknown[]) {
      if (!isRecord(item) || typeof item.uuid !== 'string' || typeof item.data !== 'string' || !HEX.test(item.data)) {
        return { kind: 'malformed', reason: '"serviceData" entries must be {"uuid": string, "data": hex}' }
      }
      list.push({ uuid: item.uuid.toLowerCase(), data: hexToBytes(item.data) })
    }
    adv.serviceData = list
  }
  if (value.adapter !== undefined) {
    if (typeof value.adapter !== 'string' || value.adapter === '')
      return { kind: 'malformed', reason: '"adapter" must be a non-empty string such as "hci0"' }
    adv.adapter = value.adapter
  }
  return { kind: 'advertisement', advertisement: adv }
}

/** One JSONL line (without the newline) for an advertisement; byte fields as lower-case hex. */
export function formatAdvertisementLine(adv: Advertisement): string {
  const out: Record<string, unknown> = { t: adv.timestamp, address: adv.address, rssi: adv.rssi }
  if (adv.addressType !== undefined) out.addressType = adv.addressType
  if (adv.connectable !== undefined) out.connectable = adv.connectable
  if (adv.localName !== undefined) out.localName = adv.localName
  if (adv.txPowerLevel !== undefined) out.txPowerLevel = adv.txPowerLevel
  if (adv.manufacturerData !== undefined) out.manufacturerData = bytesToHex(adv.manufacturerData)
  if (adv.serviceData !== undefined)
    out.serviceData = adv.serviceData.map((s) => ({ uuid: s.uuid, data: bytesToHex(s.data) }))
  if (adv.adapter !== undefined) out.adapter = adv.adapter
  return JSON.stringify(out)
}

/** The header line (without the newline) that starts a recording; `extra` members are written after the fixed ones. */
export function formatRecordingHeader(extra: Record<string, unknown> = {}): string {
  const { format: _format, version: _version, ...rest } = extra
  return JSON.stringify({ format: 'beaconkit-advertisements', version: 1, ...rest })
}
