/**
 * The options of the commands that show beacons (`scan`, `replay`, `simulate`): output, keys,
 * filters, upload, and the MQTT, map and metrics options beside them, read and checked.
 */

import { beaconIdOf } from '../frames/ibeacon.js'
import { readBeaconNames } from '../positioning/beacon-names.js'
import { bool, fail, number, parseLog, quote, str, strs } from './arg-values.js'
import type { Values } from './arg-values.js'
import type { BeaconkitConfig } from '../config/load-config.js'
import { decideGateway } from '../gateway/settings/gateway.js'
import type { FilterFlags, ViewFlags } from './command-line.js'
import { decided } from './decided.js'
import { listenModel } from './listen-args.js'
import { mqttModel } from './mqtt-args.js'

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

/** `--upload` and its companions as the model's `upload` (undefined: none given). */
function uploadModel(values: Values): BeaconkitConfig['upload'] {
  const text = (name: string): string | undefined => str(values, name)
  const upload = {
    ...(bool(values, 'upload') ? { enabled: true } : {}),
    ...given('cloudUrl', text('cloud-url')),
    ...given('email', text('email')),
    ...given('passwordFile', text('password-file')),
    // Only a config file or the environment sets the password itself; a file given wins.
    ...given('password', text('password')),
    ...given('queueDir', text('queue-dir')),
  }
  return Object.keys(upload).length === 0 ? undefined : upload
}

/** `{ [key]: value }` when the value is there, `{}` otherwise. */
function given<K extends string, V>(key: K, value: V | undefined): { [Q in K]?: V } {
  return (value === undefined ? {} : { [key]: value }) as { [Q in K]?: V }
}

/**
 * The options of the commands that show beacons: output, keys, filters, upload, MQTT, the map and
 * the metrics, read into the gateway's model and decided by the composition root's mapping.
 */
export function parseView(values: Values, command: string): ViewFlags {
  const filter = parseFilter(values, command)
  const { gateway, mqtt } = mqttModel(values, command)
  const upload = uploadModel(values)
  const http = listenModel(values, 'http')
  const metrics = listenModel(values, 'metrics')
  // Names come only from a config file's `beacons:` (as JSON text the configuration layer wrote); they name
  // Home Assistant's devices.
  const names = str(values, 'beacon-names-json')
  const model: BeaconkitConfig = {
    filters: filter,
    ...(gateway === undefined ? {} : { gateway }),
    ...(mqtt === undefined ? {} : { mqtt }),
    ...(upload === undefined ? {} : { upload }),
    ...(http === undefined ? {} : { http }),
    ...(metrics === undefined ? {} : { metrics }),
    ...(names === undefined ? {} : { beacons: readBeaconNames(JSON.parse(names) as unknown) }),
  }
  const settings = decided(command, (problems) => decideGateway(model, problems))
  const view: ViewFlags = { json: bool(values, 'json'), keys: strs(values, 'key'), filter }
  const keysFile = str(values, 'keys-file')
  if (keysFile !== undefined) view.keysFile = keysFile
  const irkFile = str(values, 'irk-file')
  if (irkFile !== undefined) view.irkFile = irkFile
  if (settings.upload !== undefined) view.upload = settings.upload
  if (settings.mqtt !== undefined) {
    // The host name stays the composition root's default (a parsed command line holds what was given).
    const { gatewayId, ...mqtt } = settings.mqtt
    view.mqtt = gateway === undefined ? mqtt : { ...mqtt, gatewayId }
  }
  if (settings.http !== undefined) view.http = settings.http
  if (settings.metrics !== undefined) view.metrics = settings.metrics
  const log = parseLog(values, command)
  if (log !== undefined) view.log = log
  return view
}
