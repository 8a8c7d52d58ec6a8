/**
 * The model as the settings of a fleet: its broker (one of `mqtt.url` and
 * `fleet.embeddedBroker`), the site and the settings that need it, the recorder, the foreign
 * inputs and the servers; every default and every cross-setting check here, each problem named
 * by its path in the model.
 */

import type { BeaconkitConfig } from '../../config/load-config.js'
import { InvalidOptionError } from '../../errors.js'
import type { ForeignInput } from '../../inputs/foreign.js'
import { parseInputSpec } from '../../inputs/inputs-spec.js'
import { isEspHomeInput, parseEspHomeInput } from '../../inputs/esphome/input-spec.js'
import type { EspHomeInput } from '../../inputs/esphome/input-spec.js'
import { listenSettings } from './listen.js'
import type { ListenSettings } from './listen.js'
import { mqttSettings } from './mqtt.js'
import type { MqttSettings } from './mqtt.js'
import { SettingProblems } from './problems.js'

/** The embedded broker's port when `fleet.embeddedBroker` is `true`. */
export const EMBEDDED_BROKER_PORT = 1883

/** What a fleet runs, every default decided. */
export interface FleetSettings {
  /** The broker and the tracker's MQTT settings (with an embedded broker, its address). */
  mqtt: MqttSettings
  /** Start aedes in this process on 127.0.0.1 at this port (0: a free one). */
  embeddedBroker?: number
  /** Record the fused view to this file. */
  record?: string
  http?: ListenSettings
  /** The site editor on the live map (`http.edit`, #40): needs `http`. */
  edit?: true
  metrics?: ListenSettings
  /** Foreign nodes fed in as gateways. */
  inputs?: ForeignInput[]
  /** ESPHome Bluetooth proxies fed in as gateways (`esphome:` inputs, #38). */
  esphome?: EspHomeInput[]
  /** The ESPHome keys file (`fleet.esphomeKeys`), read by the fleet's esphome-keys part. */
  esphomeKeys?: string
  /** How rooms are decided; undefined: `plan` when every site gateway is placed, else `strongest` (#39). */
  roomMethod?: 'strongest' | 'plan'
  /** The away rule: silent this many advertising intervals plus `marginMs` (#39). */
  away: { multiple: number; marginMs: number }
  /** The file of taught rooms and learnt offsets (`beaconkit fleet teach`). */
  fingerprints?: string
}

/** The away rule's defaults: 3 intervals + 1 s (a 1 Hz tag in about 4 s, a 10 s tag in about 31 s). */
export const AWAY_DEFAULTS = { multiple: 3, marginMs: 1000 } as const

/**
 * The fleet's settings.
 * @throws ConfigError (`invalid_config`) naming every bad setting by its path
 */
export function fleetSettings(model: BeaconkitConfig): FleetSettings {
  const problems = new SettingProblems()
  const settings = decideFleet(model, problems)
  problems.throwIfAny()
  // A fleet without a broker was refused above.
  if (settings === undefined) throw new Error('fleetSettings: no broker')
  return settings
}

/**
 * The fleet's settings, every problem added to `problems` (in the order a command reports
 * them); undefined when there is no broker (a problem says so).
 */
export function decideFleet(model: BeaconkitConfig, problems: SettingProblems): FleetSettings | undefined {
  const f = model.fleet ?? {}
  const embedded =
    f.embeddedBroker === true
      ? EMBEDDED_BROKER_PORT
      : typeof f.embeddedBroker === 'number'
        ? f.embeddedBroker
        : undefined
  if (embedded !== undefined && model.mqtt?.url !== undefined)
    problems.add(
      'mqtt.url',
      '--mqtt and --embedded-broker exclude each other: the fleet listens to its own embedded broker, or to yours',
    )
  if (embedded === undefined && model.mqtt?.url === undefined)
    problems.add(
      'mqtt.url',
      'beaconkit fleet needs a broker: --mqtt mqtt://host:1883, or --embedded-broker [port] to run one in this process',
    )
  // With its own broker the fleet listens on it; the port is the one asked for (0: the one it gets).
  // The beacons' names go into the site (fleetSite), not into the tracker's announcements.
  const { beacons: _names, ...rest } = model
  const withBroker: BeaconkitConfig =
    embedded === undefined ? rest : { ...rest, mqtt: { ...rest.mqtt, url: `mqtt://127.0.0.1:${embedded}` } }
  const mqtt = mqttSettings(withBroker, problems)
  const hasSite = model.site !== undefined
  if (f.survey !== undefined && !hasSite)
    problems.add('fleet.survey', '--survey needs --site <site.json>: the survey is measured on the site plan')
  if (f.occupancy !== undefined && !hasSite)
    problems.add('fleet.occupancy', '--occupancy needs --site <site.json>: the grid is drawn on the site plan')
  if (model.beacons !== undefined && !hasSite)
    problems.add('beacons', 'beacons (names) need the site: add site: <site.json> to the config, or --site')
  if (f.rooms?.method === 'plan' && !hasSite)
    problems.add('fleet.rooms.method', '--rooms plan needs --site <site.json>: rooms are decided on the site plan')
  if (f.fingerprints !== undefined && !hasSite)
    problems.add('fleet.fingerprints', '--fingerprints needs --site <site.json>: rooms are taught on the site')
  if (f.fingerprints !== undefined && f.rooms?.method === 'strongest')
    problems.add('fleet.fingerprints', '--fingerprints goes with the room method plan, not --rooms strongest')
  const inputs: ForeignInput[] = []
  const esphome: EspHomeInput[] = []
  ;(f.inputs ?? []).forEach((text, i) => {
    try {
      if (isEspHomeInput(text)) esphome.push(parseEspHomeInput(text))
      else inputs.push(parseInputSpec(text))
    } catch (error) {
      if (!(error instanceof InvalidOptionError)) throw error
      problems.add(`fleet.inputs[${i}]`, error.message)
    }
  })
  if (model.keys?.file !== undefined && inputs.length === 0 && esphome.length === 0)
    problems.add(
      'keys.file',
      '--keys-file goes with --input: the fleet decrypts only what foreign nodes relay (beaconkit gateways ' +
        'decrypt with their own keys)',
    )
  const http = listenSettings(model, 'http', problems)
  const edit = model.http?.edit === true
  if (edit && model.http?.listen === undefined)
    problems.add('http.edit', '`--edit` serves the editor on the live map: give --http too')
  const metrics = listenSettings(model, 'metrics', problems)
  if (mqtt === undefined) return undefined
  return {
    mqtt,
    ...(embedded === undefined ? {} : { embeddedBroker: embedded }),
    ...(f.record === undefined ? {} : { record: f.record }),
    ...(http === undefined ? {} : { http }),
    ...(edit && http !== undefined ? { edit: true as const } : {}),
    ...(metrics === undefined ? {} : { metrics }),
    ...(inputs.length === 0 ? {} : { inputs }),
    ...(esphome.length === 0 ? {} : { esphome }),
    ...(f.esphomeKeys === undefined ? {} : { esphomeKeys: f.esphomeKeys }),
    ...(f.rooms?.method === undefined ? {} : { roomMethod: f.rooms.method }),
    away: {
      multiple: f.away?.multiple ?? AWAY_DEFAULTS.multiple,
      marginMs: f.away?.margin === undefined ? AWAY_DEFAULTS.marginMs : Math.round(f.away.margin * 1000),
    },
    ...(f.fingerprints === undefined ? {} : { fingerprints: f.fingerprints }),
  }
}
