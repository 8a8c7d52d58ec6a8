/**
 * ESPresense messages: a device report on `<base>/devices/<id>/<room>` (JSON: `id`, `mac`,
 * `rssi` (filtered), `rssi@1m`, `distance`, …), a node's availability on
 * `<base>/rooms/<room>/status` (`online` / `offline`, retained). The room id is the node: it
 * becomes the gateway id. ESPresense sends no advertisement bytes; an `iBeacon:<uuid>-<major>-<minor>`
 * id is rebuilt into the iBeacon frame (ibeacon.ts), every other id counts by its `mac` only.
 * A room's status is its MQTT last will.
 * Sources: ESPresense/ESPresense src/main.cpp, src/BleFingerprint.cpp, src/string_utils.cpp;
 * ESPresense/ESPresense.com configuration/mqtt.md (facts and fixtures: test/inputs/fixtures.ts).
 */
import type { InputFormat } from './format.js'
import { ibeaconManufacturerData, uint16, uuidHex } from './ibeacon.js'
import type { ForeignAdvertisement, ForeignMessage, ForeignParser } from './message.js'
import { availability, isNodeId, jsonObject, levelsUnder, rssiOf } from './message-checks.js'

/** ESPresense's `mac`: 12 hex digits, no colons (lower-case in its code; either accepted). */
const MAC12 = /^[0-9a-f]{12}$/i
/** `iBeacon:<uuid>-<major>-<minor>`: the uuid dashed (4.x) or not (1.x), major and minor decimal. */
const IBEACON_ID = /^iBeacon:([0-9a-fA-F-]{32,36})-(\d{1,5})-(\d{1,5})$/

function colonMac(mac12: string): string {
  return mac12.toLowerCase().replace(/(..)(?!$)/g, '$1:')
}

/** An iBeacon frame for an `iBeacon:` id, or undefined for any other id. */
function ibeaconOf(id: unknown, power: unknown): Uint8Array | undefined {
  if (typeof id !== 'string') return undefined
  const m = IBEACON_ID.exec(id)
  if (m === null) return undefined
  const uuid = uuidHex(m[1] as string)
  const major = uint16(m[2])
  const minor = uint16(m[3])
  if (uuid === undefined || major === undefined || minor === undefined) return undefined
  return ibeaconManufacturerData(uuid, major, minor, power)
}

function deviceMessage(node: string, o: Record<string, unknown>): ForeignMessage {
  const rssi = rssiOf(o.rssi)
  if (rssi === undefined || rssi === 'absurd') return { kind: 'rejected', reason: 'absurd_rssi' }
  if (typeof o.mac !== 'string' || !MAC12.test(o.mac)) return { kind: 'rejected', reason: 'bad_address' }
  // The filtered RSSI comes with two decimals; the scanner smooths again, so a whole dBm loses nothing.
  const adv: ForeignAdvertisement = { address: colonMac(o.mac), rssi: Math.round(rssi) }
  if (typeof o.name === 'string' && o.name.length <= 248) adv.localName = o.name
  const ibeacon = ibeaconOf(o.id, o['rssi@1m'])
  if (ibeacon === undefined) return { kind: 'advertisement', node, advertisement: adv, carries: 'address' }
  adv.manufacturerData = ibeacon
  return { kind: 'advertisement', node, advertisement: adv, carries: 'ibeacon' }
}

/** The parser for ESPresense messages under `base` (`espresense` by default). */
export function espresenseParser(base: string): ForeignParser {
  return (topic, payload) => {
    const levels = levelsUnder(topic, base)
    if (levels === undefined) return { kind: 'ignored' }
    const [kind, first, second] = levels
    if (kind === 'rooms' && levels.length === 3 && second === 'status') {
      if (first === undefined || !isNodeId(first)) return { kind: 'rejected', reason: 'bad_node' }
      const online = availability(payload)
      return online === undefined ? { kind: 'rejected', reason: 'malformed' } : { kind: 'status', node: first, online }
    }
    // Sub-reports (`.../<room>/battery`) and telemetry carry no sighting.
    if (kind !== 'devices' || levels.length !== 3) return { kind: 'ignored' }
    if (second === undefined || !isNodeId(second)) return { kind: 'rejected', reason: 'bad_node' }
    const o = jsonObject(payload)
    return o === undefined ? { kind: 'rejected', reason: 'malformed' } : deviceMessage(second, o)
  }
}

/** The topic filters an ESPresense input subscribes to. */
export function espresenseFilters(base: string): string[] {
  return [`${base}/devices/+/+`, `${base}/rooms/+/status`]
}

/** ESPresense as an input format (formats.ts). */
export const espresense: InputFormat<'espresense'> = {
  name: 'espresense',
  title: 'ESPresense',
  usage: 'espresense',
  defaultBase: 'espresense',
  nodeNoun: 'room',
  liveness: 'will',
  filters: espresenseFilters,
  parser: espresenseParser,
  // An iBeacon is all ESPresense can give (it sends no bytes): only address-only devices are worth a word.
  limitNote: (node, carries) =>
    carries === 'address'
      ? `ESPresense room ${node} reports devices other than iBeacons by address only (ESPresense sends no ` +
        'advertisement bytes): they count for presence and rooms under their address; iBeacons by beaconID'
      : undefined,
}
