/**
 * OpenMQTTGateway and Theengs Gateway messages (one vocabulary: Theengs Gateway publishes OMG's
 * topics and JSON). Device messages on `<base>/<gateway>/BTtoMQTT/<id>`, availability on
 * `<base>/<gateway>/LWT` (`online` / `offline`, retained: the gateway's last will). Two registry
 * entries, one format: `omg` and `theengs` differ only in name and title. Sources:
 * 1technophile/OpenMQTTGateway main/User_config.h, main/ZgatewayBT.cpp, docs/use/ble.md;
 * theengs/gateway TheengsGateway/ble_gateway.py, docs/use/use.md (facts and fixtures:
 * test/inputs/fixtures.ts).
 */
import type { ServiceData } from '../advertisement.js'
import type { InputFormat } from './format.js'
import { ibeaconManufacturerData, uint16, uuidHex } from './ibeacon.js'
import type { ForeignAdvertisement, ForeignMessage, ForeignParser } from './message.js'
import { availability, isNodeId, jsonObject, levelsUnder, rssiOf } from './message-checks.js'

/** A MAC with colons in either case (OMG's docs show both; the case is NimBLE's, not settled). */
const MAC = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i
const HEX = /^(?:[0-9a-f]{2})+$/i
/** Longest AD payload of an extended advertisement; beyond it the field is not a payload. */
const MAX_AD_BYTES = 255
/** Longest local name an advertisement can carry (with a scan response). */
const MAX_NAME = 248

function bytes(value: unknown): Uint8Array | undefined {
  return typeof value === 'string' && value.length <= 2 * MAX_AD_BYTES && HEX.test(value)
    ? Uint8Array.from(Buffer.from(value, 'hex'))
    : undefined
}

/**
 * A service-data uuid in the form the decoder selects on: OMG's `0xfdcd` and Theengs' `feaa`
 * become `fdcd` / `feaa`; a 128-bit uuid stays dashed, lower-cased (the decoder maps the base
 * form onto the 16-bit one).
 */
export function serviceUuid(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined
  const text = value.toLowerCase()
  const short = text.startsWith('0x') ? text.slice(2) : text
  if (/^[0-9a-f]{4}$/.test(short)) return short
  if (/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(text)) return text
  return undefined
}

/**
 * An iBeacon rebuilt from OMG's decoded keys (`model_id` IBEACON, `uuid`, `major`, `minor`,
 * `txpower`), or undefined.
 */
function decodedIBeacon(o: Record<string, unknown>): Uint8Array | undefined {
  if (o.model_id !== 'IBEACON' || typeof o.uuid !== 'string') return undefined
  const uuid = uuidHex(o.uuid)
  const major = uint16(o.major)
  const minor = uint16(o.minor)
  if (uuid === undefined || major === undefined || minor === undefined) return undefined
  return ibeaconManufacturerData(uuid, major, minor, o.txpower)
}

/** A device message's JSON as an advertisement heard by `node`. */
function deviceMessage(node: string, o: Record<string, unknown>): ForeignMessage {
  const rssi = rssiOf(o.rssi)
  // A tracker timeout (`state: offline`), a read/write result, the gateway's own BT state: no sighting.
  if (rssi === undefined) return { kind: 'ignored' }
  // Theengs Gateway names the address `mac` when it has one besides `id`.
  const address = typeof o.mac === 'string' ? o.mac : o.id
  if (typeof address !== 'string' || !MAC.test(address)) return { kind: 'rejected', reason: 'bad_address' }
  if (rssi === 'absurd') return { kind: 'rejected', reason: 'absurd_rssi' }
  const adv: ForeignAdvertisement = { address: address.toLowerCase(), rssi }
  if (o.mac_type === 0) adv.addressType = 'public'
  else if (o.mac_type === 1) adv.addressType = 'random'
  if (typeof o.name === 'string' && o.name.length <= MAX_NAME) adv.localName = o.name
  let carries: 'raw' | 'ibeacon' | 'address' = 'address'
  const md = bytes(o.manufacturerdata)
  // At least the 2-byte company id; company id first, little-endian, as on the air.
  if (md !== undefined && md.length >= 2) {
    adv.manufacturerData = md
    carries = 'raw'
  }
  const sd = bytes(o.servicedata)
  const uuid = serviceUuid(o.servicedatauuid)
  if (sd !== undefined && uuid !== undefined) {
    // One message per service-data element (OMG procBLETask): each carries one pair.
    const element: ServiceData = { uuid, data: sd }
    adv.serviceData = [element]
    carries = 'raw'
  }
  if (carries === 'address') {
    const ibeacon = decodedIBeacon(o)
    if (ibeacon !== undefined) {
      adv.manufacturerData = ibeacon
      carries = 'ibeacon'
    }
  }
  return { kind: 'advertisement', node, advertisement: adv, carries }
}

/** The parser for OMG / Theengs messages under `base` (`home` by default for both). */
export function omgParser(base: string): ForeignParser {
  return (topic, payload) => {
    const levels = levelsUnder(topic, base)
    if (levels === undefined) return { kind: 'ignored' }
    const [node, what] = levels
    const isDevice = levels.length === 3 && what === 'BTtoMQTT'
    const isLwt = levels.length === 2 && what === 'LWT'
    if (!isDevice && !isLwt) return { kind: 'ignored' }
    if (node === undefined || !isNodeId(node)) return { kind: 'rejected', reason: 'bad_node' }
    if (isLwt) {
      const online = availability(payload)
      return online === undefined ? { kind: 'rejected', reason: 'malformed' } : { kind: 'status', node, online }
    }
    const o = jsonObject(payload)
    return o === undefined ? { kind: 'rejected', reason: 'malformed' } : deviceMessage(node, o)
  }
}

/** The topic filters an OMG / Theengs input subscribes to. */
export function omgFilters(base: string): string[] {
  return [`${base}/+/BTtoMQTT/+`, `${base}/+/LWT`]
}

/**
 * The OMG format under a name: `omg` and `theengs` are the same topics and JSON, told apart
 * only in what the user reads.
 */
function omgFormat<Name extends string>(name: Name, title: string): InputFormat<Name> {
  return {
    name,
    title,
    usage: `${name}[:<base>]`,
    defaultBase: 'home',
    nodeNoun: 'node',
    liveness: 'will',
    filters: omgFilters,
    parser: omgParser,
    // Even an iBeacon rebuilt from decoded keys lacks vendor frames, sensors and private broadcasts.
    limitNote: (node) =>
      `${title} node ${node} publishes no advertisement data: its devices count by address (presence and ` +
      'rooms), decoded iBeacons by beaconID; turn on raw data (OpenMQTTGateway {"pubadvdata":true}, Theengs ' +
      'Gateway --publish_advdata 1) to decode every beacon, sensor values and private broadcasts',
  }
}

/** OpenMQTTGateway as an input format (formats.ts). */
export const omg = omgFormat('omg', 'OpenMQTTGateway')

/** Theengs Gateway: OpenMQTTGateway's format under its own name (formats.ts). */
export const theengs = omgFormat('theengs', 'Theengs Gateway')
