/**
 * The options of the commands that show beacons (`scan`, `replay`, `simulate`): output, keys,
 * filters, upload, and the MQTT, map and metrics options beside them, read and checked.
 */

import { beaconIdOf } from '../frames/ibeacon.js'
import { readBeaconNames } from '../positioning/beacon-names.js'
import { bool, fail, number, parseLog, quote, str, strs } from './arg-values.js'
import type { Values } from './arg-values.js'
import type { FilterFlags, UploadFlags, ViewFlags } from './command-line.js'
import { parseHttp, parseMetrics } from './listen-args.js'
import { parseMqtt } from './mqtt-args.js'

const SERIAL = /^[0-9a-f]{12}$/i
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i

/** Canonical upper-case 8-4-4-4-12, the form readings carry. */
function canonicalUuid(text: string): string {
  const hex = text.replace(/-/g, '').toUpperCase()
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

function parseFilter(values: Values, command: string): FilterFlags {
  const filter: FilterFlags = {}
  const serials = strs(values, 'serial')
  for (const s of serials) {
    if (!SERIAL.test(s))
      fail('serial', `--serial takes a 12-digit hex serial number such as 0117C5456A36, not ${quote(s)}`, command)
  }
  if (serials.length > 0) filter.serialNumbers = serials.map((s) => s.toUpperCase())
  const uuids = strs(values, 'uuid')
  for (const u of uuids) {
    if (!UUID.test(u))
      fail(
        'uuid',
        `--uuid takes a proximity UUID such as E2C56DB5-DFFB-48D2-B060-D0F5A71096E0, not ${quote(u)}`,
        command,
      )
  }
  if (uuids.length > 0) filter.proximityUUIDs = uuids.map(canonicalUuid)
  const ids = strs(values, 'beacon-id')
  const beaconIDs: string[] = []
  for (const id of ids) {
    const parts = id.split('|')
    const valid =
      parts.length === 3 &&
      UUID.test(parts[0]) &&
      parts.slice(1).every((p) => /^\d{1,5}$/.test(p) && Number(p) <= 65535)
    if (!valid)
      fail(
        'beacon-id',
        `--beacon-id takes UUID|major|minor, e.g. 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|1|2' (quote ` +
          `the |), not ${quote(id)}`,
        command,
      )
    beaconIDs.push(beaconIdOf(canonicalUuid(parts[0]), Number(parts[1]), Number(parts[2])))
  }
  if (beaconIDs.length > 0) filter.beaconIDs = beaconIDs
  const minRssi = number(values, 'min-rssi', command, {
    integer: true,
    min: -127,
    max: 20,
    what: 'a whole number of dBm between -127 and 20',
  })
  if (minRssi !== undefined) filter.minRssi = minRssi
  if (bool(values, 'verified-only')) filter.verifiedOnly = true
  return filter
}

function parseUpload(values: Values, command: string): UploadFlags | undefined {
  const cloudUrl = str(values, 'cloud-url')
  const email = str(values, 'email')
  const passwordFile = str(values, 'password-file')
  // Only a config file or the environment sets the password itself; a file given wins.
  const password = passwordFile === undefined ? str(values, 'password') : undefined
  const queueDir = str(values, 'queue-dir')
  if (!bool(values, 'upload')) {
    const stray = (['cloud-url', 'email', 'password-file', 'password', 'queue-dir'] as const).find(
      (n) => str(values, n) !== undefined,
    )
    if (stray !== undefined)
      fail(stray, `--${stray} only takes effect with --upload; add --upload to send data to the cloud`, command)
    return undefined
  }
  if (cloudUrl === undefined)
    fail(
      'cloud-url',
      '--upload needs --cloud-url <url> (the account interface, e.g. from `beaconkit emulate`)',
      command,
    )
  let url: URL
  try {
    url = new URL(cloudUrl)
  } catch {
    fail('cloud-url', `--cloud-url must be an http(s) URL, not ${quote(cloudUrl)}`, command)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    fail('cloud-url', `--cloud-url must be an http(s) URL, not ${quote(cloudUrl)}`, command)
  if (email === undefined) fail('email', '--upload needs --email <account e-mail>', command)
  if (passwordFile === undefined && password === undefined) {
    fail(
      'password-file',
      '--upload needs --password-file <file> holding the account password (a file, so the password ' +
        'stays out of the process list)',
      command,
    )
  }
  const upload: UploadFlags = { cloudUrl, email, ...(passwordFile === undefined ? { password } : { passwordFile }) }
  if (queueDir !== undefined) upload.queueDir = queueDir
  return upload
}

/** The options of the commands that show beacons: output, keys, filters, upload. */
export function parseView(values: Values, command: string): ViewFlags {
  const view: ViewFlags = {
    json: bool(values, 'json'),
    keys: strs(values, 'key'),
    filter: parseFilter(values, command),
  }
  const keysFile = str(values, 'keys-file')
  if (keysFile !== undefined) view.keysFile = keysFile
  const upload = parseUpload(values, command)
  if (upload !== undefined) view.upload = upload
  const mqtt = parseMqtt(values, command)
  // Names come only from a config file's `beacons:` (as JSON text the configuration layer wrote); they name
  // Home Assistant's devices.
  const names = str(values, 'beacon-names-json')
  if (mqtt !== undefined && names !== undefined) mqtt.beaconNames = readBeaconNames(JSON.parse(names) as unknown)
  if (mqtt !== undefined) view.mqtt = mqtt
  const http = parseHttp(values, command)
  if (http !== undefined) view.http = http
  const metrics = parseMetrics(values, command)
  if (metrics !== undefined) view.metrics = metrics
  const log = parseLog(values, command)
  if (log !== undefined) view.log = log
  return view
}
