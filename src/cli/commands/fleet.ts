/**
 * `beaconkit fleet`: its options, help and parser, and `fleet forget`'s; the running view is
 * fleet-view.ts.
 */
import { BROKER_OPTION_SPECS, LOG_OPTIONS, LOG_OPTION_SPECS } from './view-options.js'
import { bool, durationMs, fail, number, parseLog, positionals, str, tcpPort } from '../arg-values.js'
import { listenModel } from '../listen-args.js'
import { mqttModel } from '../mqtt-args.js'
import { decided } from '../decided.js'
import type { MqttFlags } from '../command-line.js'
import type { BeaconkitConfig } from '../../config/load-config.js'
import { decideFleet } from '../../gateway/settings/fleet.js'
import type { MqttSettings } from '../../gateway/settings/mqtt.js'
import type { Values } from '../arg-values.js'
import { defineCommand, optional } from './command.js'
import { parseFleetForget, runFleetForget } from './fleet-forget.js'
import type { FleetForgetCommand } from './fleet-forget.js'
import { parseFleetTeach, runFleetTeach } from './fleet-teach.js'
import type { FleetTeachCommand } from './fleet-teach.js'

import { runFleet } from './fleet-view.js'
import type { FleetFlags } from './fleet-view.js'

/** `--embedded-broker` takes an optional port: alone (or before another option) it means 1883. */
function embeddedBrokerArg(argv: string[]): string[] {
  return argv.map((arg, i) =>
    arg === '--embedded-broker' && !/^\d+$/.test(argv[i + 1] ?? '') ? '--embedded-broker=1883' : arg,
  )
}

// The fleet has no scanner, no uploads and no adapter: its stop and exit codes are its own.
const FLEET_TAIL = `${LOG_OPTIONS}
  -h, --help             this help

Ctrl-C (or SIGTERM) stops cleanly: the tracker and the map stop, the recording is
closed, the terminal is restored, and the exit code is 0. What the tracker publishes
(presence, Home Assistant) gets at most 30 s to be acknowledged by the broker; then the
rest is let go, a line "stopped; N messages not acknowledged" goes to stderr and the
exit code is 1. A second Ctrl-C leaves at once; a stop still running after 60 s is
forced (exit 1).
Exit codes: 0 done, 1 unexpected failure or messages the broker did not acknowledge by
the stop, 2 bad option or file (site, survey, occupancy grid, password file, an existing
--record file), 75 a transient failure (a port in use): a later try may succeed.`

/**
 * A setting a config file carries as JSON text (an inline site, beacon names); written by the configuration
 * layer, so it parses.
 */
function configJson(values: Values, name: string): unknown {
  const text = str(values, name)
  return text === undefined ? undefined : (JSON.parse(text) as unknown)
}

/** Every `--input` as given (the mapping reads them); undefined when none was given. */
function inputList(values: Values): string[] | undefined {
  const given = values.input
  const list = Array.isArray(given)
    ? given.filter((v): v is string => typeof v === 'string')
    : typeof given === 'string'
      ? [given]
      : []
  return list.length === 0 ? undefined : list
}

/** The decided MQTT settings as a parsed command line holds them: the host name stays the root's default. */
function withoutDefaultId(settings: MqttSettings, given: string | undefined): MqttFlags {
  if (given !== undefined) return settings
  const { gatewayId: _default, ...rest } = settings
  return rest
}

/** `--rooms`: the room method (#39), or undefined (decided from the site). */
function roomMethod(values: Values, command: string): 'plan' | 'strongest' | undefined {
  const method = str(values, 'rooms')
  if (method === undefined || method === 'plan' || method === 'strongest') return method
  return fail('rooms', `--rooms must be plan or strongest, not "${method}"`, command)
}

/** What `beaconkit fleet` parses to. */
export type FleetCommand = { command: 'fleet' } & FleetFlags

/** `beaconkit fleet`: its options, help, parser and runner (registered in registry.ts). */
export const fleetCommand = defineCommand({
  name: 'fleet',
  overview: [
    ['fleet', 'one view of many gateways through a broker'],
    ['fleet forget <id>', "clear a beacon's fleet topics and Home Assistant entities"],
    ['fleet teach <id> <room>', 'teach the running fleet a room with a beacon held there'],
  ],
  options: {
    json: { type: 'boolean' },
    ...BROKER_OPTION_SPECS,
    // `fleet forget` only: the discovery prefix whose configs it empties.
    'ha-prefix': { type: 'string' },
    config: { type: 'string' },
    // `--embedded-broker [port]`: a bare flag is given the default port before parsing (embeddedBrokerArg).
    'embedded-broker': { type: 'string' },
    site: { type: 'string' },
    survey: { type: 'string' },
    occupancy: { type: 'string' },
    duration: { type: 'string' },
    http: { type: 'string' },
    'http-token': { type: 'string' },
    edit: { type: 'boolean' },
    metrics: { type: 'string' },
    'metrics-token': { type: 'string' },
    record: { type: 'string' },
    force: { type: 'boolean' },
    ...LOG_OPTION_SPECS,
    input: { type: 'string', multiple: true },
    'keys-file': { type: 'string' },
    'esphome-keys': { type: 'string' },
    'irk-file': { type: 'string' },
    rooms: { type: 'string' },
    'away-multiple': { type: 'string' },
    'away-margin': { type: 'string' },
    fingerprints: { type: 'string' },
    seconds: { type: 'string' },
  },
  prepareArgs: embeddedBrokerArg,
  // Secrets have no flag; an inline site and beacon names have none either (they are not one value).
  configOnly: ['mqtt-password', 'site-json', 'beacon-names-json'],
  help: `Usage: beaconkit fleet --mqtt <url> [options]
       beaconkit fleet --embedded-broker [port] [options]
       beaconkit fleet forget <id> --mqtt <url> [--mqtt-prefix <p>] [--ha-prefix <h>]
       beaconkit fleet teach <beacon-id> <room> --mqtt <url> [--seconds 20]

One view of many gateways: listens to every gateway's status and RSSI batches on the
broker and shows each beacon once — its floor and room (with hysteresis), position (with
a site plan), the gateways hearing it, the best RSSI and its age. A beacon is away once
silent for 3 of its advertising intervals + 1 s (30 s until its interval is learnt, or
while the gateways that heard it are offline). Runs until Ctrl-C or --duration.

  --mqtt <url>           the broker the gateways publish to, e.g. mqtt://127.0.0.1:1883
  --embedded-broker [port]  run an MQTT broker (aedes) in this process on 127.0.0.1
                         (default port 1883; 0 picks a free one) and listen to it;
                         gateways publish with --mqtt mqtt://127.0.0.1:<port>
  --site <site.json>     gateways, rooms (and positions) of the site (docs/fleet.md)
  --survey <file.csv>    calibration survey for positions (x,y,anchor,rssi; needs --site)
  --occupancy <grid.txt>  walkable cells for positions, as beaconkit locate takes
                         (needs --site; docs/positioning.md)
  --ha                   Home Assistant: per beacon a device_tracker (home or
                         not_home), a Room sensor and its values (docs/fleet.md)
  --ha-dwell <seconds>   announce a beacon only once heard over this long (default 30)
  --ha-expire <seconds>  remove the config of a beacon gone this long (default 604800)
  --mqtt-prefix <p>      topic prefix (default beaconkit)
  --mqtt-user <name>     broker user name
  --mqtt-password-file <file>  file holding the broker password
  --mqtt-ca <file>, --mqtt-cert <file>, --mqtt-key <file>
                         TLS for an mqtts:// broker: its CA, a client certificate
                         and its key (PEM files)
  --config <file>        a config file (YAML or JSON; beaconkit config example
                         --fleet); BEACONKIT_* variables override it, flags both
  --client-id <id>       MQTT client id (default beaconkit-fleet-<host>-<random>,
                         unique per process)
  --json                 print events as JSON lines (found, gone, room, floor, moved,
                         gateway, updated; offsets every 10 s with the room method)
                         instead of the live table
  --duration <seconds>   stop after this long
  --http [host:]port     the live map in a browser: floor plan, rooms, gateways,
                         beacons and their details (docs/web-map.md); host default
                         127.0.0.1, the address is printed once
  --http-token <token>   access token for the map; off loopback one is required
                         and generated when not given
  --edit                 set up the site on the map: plans, rooms, gateways, names;
                         saved to --site (default ./site.json, made at the first save)
  --metrics [host:]port  Prometheus /metrics and /healthz on a server of their own
                         (docs/metrics.md; with --http also beside the map)
  --metrics-token <token>  access token Prometheus sends (Authorization: Bearer);
                         off loopback one is required and generated when not given
  --record <file>        record the fused view of the run; review it with
                         beaconkit replay <file> --http 8080
  --force                let --record replace an existing file (default: refuse, exit 2)
  --input <format>[:<base>][@<dB>]
                         ESP32 nodes on the same broker as gateways (repeatable):
                         espresense (rooms are gateways), omg[:<base>] (OpenMQTTGateway,
                         base default home), theengs[:<base>]; @<dB> adds an RSSI
                         offset; their ids go under "gateways" in the site
                         (docs/fleet.md "Mixed fleets"); esphome:<host>[:<port>] an
                         ESPHome proxy over its native API (port default 6053;
                         docs/esphome.md)
  --keys-file <file>     broadcast keys, so private broadcasts an --input node relays
                         decrypt and verify (one key per line)
  --esphome-keys <file>  keys of encrypted ESPHome proxies: lines <host>:<port>
                         <base64 key> (api: encryption: key:), mode 600
  --irk-file <file>      identity resolving keys (chmod 600; docs/phones.md): raw
                         addresses an --input node relays become irk:<name>
  --rooms <method>       plan (floors, the plan, learnt gateway offsets, taught rooms)
                         or strongest (the strongest gateway); default plan when the
                         site places every gateway (docs/fleet.md "Rooms and hysteresis")
  --away-multiple <n>    away after n advertising intervals of silence (default 3)
  --away-margin <seconds>  added to them (default 1)
  --fingerprints <file>  keep rooms taught with beaconkit fleet teach and the learnt
                         gateway offsets in this file (needs --site)

beaconkit fleet forget <id> empties the beacon's retained fleet state, presence and
Home Assistant configs (under --ha-prefix, default homeassistant) and tells running
trackers to forget it; heard again, it is announced again after the dwell. It
waits for the broker's acknowledgements (at most 10 s each for the connection and
for them), prints one line and exits 0; 2 for a bad id, 1 when the broker is
unreachable. --mqtt-user, --mqtt-password-file and --client-id apply as above.

beaconkit fleet teach <beacon-id> <room> asks the fleet running with --fingerprints
to record the beacon's RSSI pattern over --seconds (default 20, at most 300) as a
fingerprint of the room, while the beacon stays there; the fleet saves it to its file.
It exits 0 once the fleet confirms, 1 when the fleet refuses (and says why), 75 when
no fleet answers within the seconds + 10 s (docs/fleet.md "Rooms taught in place").
${FLEET_TAIL}`,
  parse(values, pos): FleetCommand | FleetForgetCommand | FleetTeachCommand {
    const command = 'fleet'
    if (pos[0] === 'forget') return parseFleetForget(values, pos.slice(1))
    if (pos[0] === 'teach') return parseFleetTeach(values, pos.slice(1))
    if (str(values, 'ha-prefix') !== undefined)
      fail(
        'ha-prefix',
        '--ha-prefix goes with beaconkit fleet forget <id>; the fleet itself announces under homeassistant',
        command,
      )
    positionals(
      pos,
      0,
      'beaconkit fleet --mqtt <url> [options], or beaconkit fleet --embedded-broker [port] [options]',
      command,
    )
    const embedded = tcpPort(values, 'embedded-broker', command)
    const survey = str(values, 'survey')
    // A site typed as --site wins over one written into a config file.
    const site = str(values, 'site')
    const siteJson = site === undefined ? configJson(values, 'site-json') : undefined
    const beaconNames = configJson(values, 'beacon-names-json')
    const occupancy = str(values, 'occupancy')
    const record = str(values, 'record')
    const force = bool(values, 'force')
    const inputTexts = inputList(values)
    const keysFile = str(values, 'keys-file')
    const esphomeKeys = str(values, 'esphome-keys')
    const irkFile = str(values, 'irk-file')
    const method = roomMethod(values, command)
    const awayMultiple = number(values, 'away-multiple', command, { min: 1, max: 100, what: 'from 1 to 100' })
    const awayMargin = number(values, 'away-margin', command, { min: 0, max: 600, what: 'seconds from 0 to 600' })
    const fingerprints = str(values, 'fingerprints')
    const edit = bool(values, 'edit')
    if (edit && site === undefined && siteJson !== undefined)
      fail('edit', '--edit saves the site to a file: give site as a path (--site <file>), not the site itself', command)
    const httpModel = listenModel(values, 'http')
    const away = {
      ...(awayMultiple === undefined ? {} : { multiple: awayMultiple }),
      ...(awayMargin === undefined ? {} : { margin: awayMargin }),
    }
    const { gateway, mqtt: broker } = mqttModel(values, command, embedded !== undefined)
    // The mapping decides the broker (the embedded one's address with --embedded-broker) and
    // refuses what does not go together.
    const model: BeaconkitConfig = {
      ...(gateway === undefined ? {} : { gateway }),
      ...(broker === undefined ? {} : { mqtt: broker }),
      ...(site === undefined ? {} : { site }),
      ...(siteJson === undefined ? {} : { site: siteJson as Record<string, unknown> }),
      ...(beaconNames === undefined ? {} : { beacons: beaconNames as NonNullable<BeaconkitConfig['beacons']> }),
      ...(keysFile === undefined ? {} : { keys: { file: keysFile } }),
      ...(irkFile === undefined ? {} : { irk: { file: irkFile } }),
      ...optional('http', edit ? { ...httpModel, edit: true } : httpModel),
      ...optional('metrics', listenModel(values, 'metrics')),
      fleet: {
        ...(embedded === undefined ? {} : { embeddedBroker: embedded }),
        ...(survey === undefined ? {} : { survey }),
        ...(occupancy === undefined ? {} : { occupancy }),
        ...(record === undefined ? {} : { record }),
        ...(inputTexts === undefined ? {} : { inputs: inputTexts }),
        ...(esphomeKeys === undefined ? {} : { esphomeKeys }),
        ...(method === undefined ? {} : { rooms: { method } }),
        ...(Object.keys(away).length === 0 ? {} : { away }),
        ...(fingerprints === undefined ? {} : { fingerprints }),
      },
    }
    const settings = decided(command, (problems) => decideFleet(model, problems))
    // decideFleet refuses a fleet without a broker.
    if (settings === undefined) fail('mqtt', 'beaconkit fleet needs --mqtt <url>', command)
    const mqtt = withoutDefaultId(settings.mqtt, gateway?.id)
    const inputs = settings.inputs
    if (force && record === undefined)
      fail('force', '--force goes with --record <file>: it lets the recording replace an existing file', command)
    return {
      command,
      mqtt,
      json: bool(values, 'json'),
      ...optional('embeddedBroker', embedded),
      ...optional('site', site),
      ...optional('siteJson', siteJson),
      ...optional('beaconNames', beaconNames),
      ...optional('survey', survey),
      ...optional('occupancy', occupancy),
      ...optional('durationMs', durationMs(values, command)),
      ...optional('http', settings.http),
      ...optional('edit', settings.edit),
      ...optional('metrics', settings.metrics),
      ...optional('record', record),
      ...optional('force', force ? true : undefined),
      ...optional('log', parseLog(values, command)),
      ...optional('inputs', inputs),
      ...optional('keysFile', keysFile),
      ...optional('esphome', settings.esphome),
      ...optional('esphomeKeys', esphomeKeys),
      ...optional('irkFile', irkFile),
      ...optional('roomMethod', method),
      ...optional('awayMultiple', awayMultiple),
      ...optional('awayMargin', awayMargin),
      ...optional('fingerprints', fingerprints),
    }
  },
  run: (parsed) =>
    parsed.command === 'fleet-forget'
      ? runFleetForget(parsed)
      : parsed.command === 'fleet-teach'
        ? runFleetTeach(parsed)
        : runFleet(parsed),
})
