/**
 * `beaconkit fleet`: a FleetTracker on a broker (or on an embedded one it starts), shown as a live
 * table on a terminal or as JSON lines of its events; positions when the site places the gateways.
 */
import type { FleetBeacon, PositionEstimator } from '../../fleet/fusion.js'
import { Site } from '../../positioning/site.js'
import { Positioner } from '../../positioning/positioner.js'
import { RadioMap } from '../../positioning/radio-map.js'
import type { LogFlags, MqttFlags } from '../command-line.js'
import { openLog } from '../log-setup.js'
import { HeldLog } from '../ui/held-log.js'
import { logFleetConditions } from './fleet-conditions.js'
import { forwardingLogger, logRecord } from '../../log/logger.js'
import type { Logger } from '../../log/logger.js'
import { LOG_OPTIONS, LOG_OPTION_SPECS } from './view-options.js'
import { startFleet } from '../../gateway/start-fleet.js'
import { EXIT } from '../exit.js'
import { FleetGatewayCounts, renderFleetTable } from '../ui/fleet-table.js'
import type { FleetStatus } from '../ui/fleet-table.js'
import type { LineSink } from '../ui/json-lines.js'
import { readOccupancy, readSurvey } from './locate.js'
import { TerminalScreen } from '../ui/screen.js'
import type { TerminalLike } from '../ui/screen.js'
import { forceAfter, handleSignals, undeliveredLine } from '../../gateway/shutdown.js'
import { readSiteFile, siteImage, warnSiteProblems } from './site-file.js'
import type { HttpFlags, MetricsFlags } from '../command-line.js'
import { bool, durationMs, fail, number, parseHttp, parseLog, parseMetrics, parseMqtt, positionals, str } from '../arg-values.js'
import type { Values } from '../arg-values.js'
import { defineCommand, optional } from './command.js'
import { parseFleetForget, runFleetForget } from './fleet-forget.js'
import { loadKeyring } from './keys.js'
import { parseInputSpec } from '../../inputs/inputs-spec.js'
import type { ForeignInput } from '../../inputs/foreign.js'
import { InvalidOptionError } from '../../errors.js'
import type { FleetForgetCommand } from './fleet-forget.js'

/** What `beaconkit fleet` was given. */
export interface FleetFlags {
  mqtt: MqttFlags
  /** Start aedes in this process on 127.0.0.1 at this port (0: a free one). */
  embeddedBroker?: number
  site?: string
  /** The site itself, written into a config file (`site:` as an object). */
  siteJson?: unknown
  /** A config file's `beacons:` names: they replace the site's own list. */
  beaconNames?: unknown
  survey?: string
  /** `--occupancy <grid.txt>`: walkable cells for the positioner, as `locate --occupancy`. */
  occupancy?: string
  json: boolean
  durationMs?: number
  /** `--http`: the live map of the fleet. */
  http?: HttpFlags
  /** `--metrics`: Prometheus `/metrics` and `/healthz` on a server of their own. */
  metrics?: MetricsFlags
  /** `--record <file>`: the fused view, for `beaconkit replay <file> --http`. */
  record?: string
  /** `--force`: let `--record` replace an existing file (default: refuse, exit 2). */
  force?: boolean
  /** `--log-level`, `--log-format`. */
  log?: LogFlags
  /** `--input`: foreign nodes (ESPresense, OpenMQTTGateway, Theengs Gateway) fed in as gateways. */
  inputs?: ForeignInput[]
  /** `--keys-file`: broadcast keys, so private broadcasts relayed by a foreign node decrypt. */
  keysFile?: string
}

/** Where the fleet view writes; process.stdout/stderr unless a test says otherwise. */
export interface FleetStreams {
  stdout: TerminalLike & { isTTY?: boolean }
  stderr: { write(text: string): unknown }
}

/**
 * A positioner when the site places every gateway: calibrated by the survey when there is one
 * (at the survey's tag height when it records one), on the occupancy grid when there is one —
 * the radio map `beaconkit locate` and bench:positioning build from the same files.
 */
export async function fleetPositioner(site: Site, survey: string | undefined, occupancy?: string): Promise<Positioner | undefined> {
  const anchors = site.anchorList()
  if (site.kind !== 'receivers' || anchors.length === 0 || anchors.some((a) => a.x === undefined || a.y === undefined)) return undefined
  const grid = occupancy === undefined ? undefined : await readOccupancy(occupancy, 'fleet')
  const read = survey === undefined ? undefined : await readSurvey(survey, 'fleet')
  const options = { ...(grid === undefined ? {} : { grid }), ...(read?.tagHeight === undefined ? {} : { tagHeight: read.tagHeight }) }
  const radioMap = read === undefined ? (grid === undefined ? undefined : RadioMap.defaultPhysics(site, options)) : RadioMap.fromSurvey(site, read.survey, options)
  return new Positioner({ site, ...(radioMap === undefined ? {} : { radioMap }) })
}

/** Runs the fleet view until SIGINT/SIGTERM or the duration; returns the exit code. */
export async function runFleet(flags: FleetFlags, streams: FleetStreams = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  // Everything that can be wrong in the files fails before a broker starts.
  const fileJson = flags.site === undefined ? flags.siteJson : await readSiteFile(flags.site, 'fleet')
  const siteJson = flags.beaconNames === undefined || typeof fileJson !== 'object' || fileJson === null ? fileJson : { ...fileJson, beacons: flags.beaconNames }
  const site = siteJson === undefined ? undefined : Site.fromJSON(siteJson)
  const positioner: PositionEstimator | undefined = site === undefined ? undefined : await fleetPositioner(site, flags.survey, flags.occupancy)
  const image = flags.site === undefined ? undefined : siteImage(siteJson, flags.site)
  const base = await openLog(flags.log, streams.stderr)
  const keyring = flags.inputs === undefined ? undefined : await loadKeyring([], flags.keysFile, { warn: (text) => base.warn(text) })
  // Lines before the table opens go to stderr; the screen holds them once it is up.
  let log: Logger = base
  const current = forwardingLogger((record) => logRecord(log, record))
  const fleet = await startFleet(
    {
      mqtt: flags.mqtt,
      ...(flags.embeddedBroker === undefined ? {} : { embeddedBroker: flags.embeddedBroker }),
      ...(site === undefined ? {} : { site }),
      ...(image === undefined ? {} : { siteImage: image }),
      ...(positioner === undefined ? {} : { positioner }),
      ...(flags.record === undefined ? {} : { record: { file: flags.record, force: flags.force === true } }),
      ...(flags.http === undefined ? {} : { http: flags.http }),
      ...(flags.metrics === undefined ? {} : { metrics: flags.metrics }),
      ...(flags.inputs === undefined ? {} : { inputs: { inputs: flags.inputs, ...(keyring === undefined ? {} : { keyring }) } }),
    },
    { stderr: streams.stderr, log: current },
  )
  const { tracker, broker, web, url } = fleet
  const clock = tracker.clock
  const tty = !flags.json && streams.stdout.isTTY === true
  const screen = tty ? new TerminalScreen(streams.stdout) : undefined
  const out: LineSink | undefined = tty ? undefined : streams.stdout
  let closed = false
  const line = (event: Record<string, unknown>): void => {
    if (!closed) out?.write(`${JSON.stringify(event)}\n`)
  }
  const held = screen === undefined ? undefined : new HeldLog(base, flags.log?.level ?? 'info')
  if (held !== undefined) log = held.logger

  // The site file's problems that do not stop the fleet (beaconkit site check lists them).
  if (flags.site !== undefined) await warnSiteProblems(flags.site, siteJson, (text) => current.warn(text, { condition: 'site.problem' }))

  let state = 'connecting'
  const gateways = new FleetGatewayCounts()
  let lastTick: { time: number; batches: number } | undefined
  // One line when a condition starts and one when it clears, as a gateway's --mqtt does.
  const stopConditions = logFleetConditions(tracker, current, flags.site)
  tracker.on('connected', () => {
    state = 'connected'
  })
  tracker.on('disconnected', () => {
    state = 'disconnected'
  })
  tracker.on('found', (beacon) => line({ event: 'found', time: clock.now(), beacon }))
  tracker.on('gone', (beacon) => line({ event: 'gone', time: clock.now(), beacon }))
  tracker.on('room', (beacon, change) => line({ event: 'room', time: clock.now(), beacon, ...change }))
  tracker.on('moved', (beacon) => line({ event: 'moved', time: clock.now(), beacon }))
  tracker.on('gateway', (info) => {
    gateways.apply(info)
    line({ event: 'gateway', ...info })
  })
  const where = broker === undefined ? url : `${url} (embedded)`
  const status = (now: number): FleetStatus => {
    const batches = tracker.stats.batches
    const rate = lastTick === undefined || now <= lastTick.time ? 0 : ((batches - lastTick.batches) * 1000) / (now - lastTick.time)
    lastTick = { time: now, batches }
    const note = held?.note()
    const notes = [...(web === undefined ? [] : [`map ${web.url}`]), ...(note === undefined ? [] : [note])]
    return { broker: where, state, gatewaysOnline: gateways.online, gatewaysKnown: gateways.known, batchesPerSecond: rate, notes }
  }
  const draw = (beacons: readonly FleetBeacon[], now: number): void => {
    const s = status(now)
    screen?.show((width, height) => renderFleetTable(beacons, s, { width, height, now }))
  }
  tracker.on('updated', (beacons) => {
    const now = clock.now()
    line({ event: 'updated', time: now, beacons })
    draw(beacons, now)
  })

  let finish!: () => void
  const done = new Promise<void>((resolve) => {
    finish = resolve
  })
  const restore = (): void => screen?.close()
  process.on('exit', restore)
  const removeSignals = handleSignals(() => finish(), restore)
  const timer = flags.durationMs === undefined ? undefined : setTimeout(() => finish(), flags.durationMs)
  let found = 0
  tracker.on('found', () => found++)
  let undelivered: string | undefined
  let disarm: (() => void) | undefined
  try {
    screen?.open()
    draw([], clock.now())
    if (broker !== undefined && screen === undefined) streams.stderr.write(`beaconkit fleet: MQTT broker (aedes) listening on ${broker.url}; gateways publish with --mqtt ${broker.url}\n`)
    // Ctrl-C while the broker is still unreachable must not wait for it.
    await Promise.race([fleet.start(), done])
    await done
  } finally {
    disarm = forceAfter(restore)
    if (timer !== undefined) clearTimeout(timer)
    closed = true
    stopConditions()
    undelivered = undeliveredLine(await fleet.stop(), where)
    restore()
    process.off('exit', restore)
    removeSignals()
    if (screen !== undefined) streams.stdout.write(`beaconkit fleet: ${found} beacons found, ${gateways.known} gateways seen, ${tracker.stats.batches} RSSI batches\n`)
    log = base
    held?.flush()
    disarm()
  }
  if (undelivered !== undefined) {
    streams.stderr.write(undelivered)
    return EXIT.failure
  }
  return EXIT.ok
}

/** `--embedded-broker` takes an optional port: alone (or before another option) it means 1883. */
function embeddedBrokerArg(argv: string[]): string[] {
  return argv.map((arg, i) => (arg === '--embedded-broker' && !/^\d+$/.test(argv[i + 1] ?? '') ? '--embedded-broker=1883' : arg))
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
--record file).`

/** A setting a config file carries as JSON text (an inline site, beacon names); written by the configuration layer, so it parses. */
function configJson(values: Values, name: string): unknown {
  const text = str(values, name)
  return text === undefined ? undefined : (JSON.parse(text) as unknown)
}

/** Every `--input`, parsed; undefined when none was given. */
function inputList(values: Values, command: string): ForeignInput[] | undefined {
  const given = values.input
  const list = Array.isArray(given) ? given.filter((v): v is string => typeof v === 'string') : typeof given === 'string' ? [given] : []
  if (list.length === 0) return undefined
  return list.map((text) => {
    try {
      return parseInputSpec(text)
    } catch (error) {
      if (error instanceof InvalidOptionError) fail('input', error.message, command)
      throw error
    }
  })
}

/** What `beaconkit fleet` parses to. */
export type FleetCommand = { command: 'fleet' } & FleetFlags

/** `beaconkit fleet`: its options, help, parser and runner (registered in registry.ts). */
export const fleetCommand = defineCommand({
  name: 'fleet',
  overview: [
    ['fleet', 'one view of many gateways through a broker'],
    ['fleet forget <id>', "clear a beacon's fleet topics and Home Assistant entities"],
  ],
  options: {
    json: { type: 'boolean' },
    mqtt: { type: 'string' },
    'mqtt-prefix': { type: 'string' },
    ha: { type: 'boolean' },
    'ha-dwell': { type: 'string' },
    'ha-expire': { type: 'string' },
    // `fleet forget` only: the discovery prefix whose configs it empties.
    'ha-prefix': { type: 'string' },
    'mqtt-user': { type: 'string' },
    'mqtt-password-file': { type: 'string' },
    'mqtt-ca': { type: 'string' },
    'mqtt-cert': { type: 'string' },
    'mqtt-key': { type: 'string' },
    'client-id': { type: 'string' },
    config: { type: 'string' },
    // `--embedded-broker [port]`: a bare flag is given the default port before parsing (embeddedBrokerArg).
    'embedded-broker': { type: 'string' },
    site: { type: 'string' },
    survey: { type: 'string' },
    occupancy: { type: 'string' },
    duration: { type: 'string' },
    http: { type: 'string' },
    'http-token': { type: 'string' },
    metrics: { type: 'string' },
    'metrics-token': { type: 'string' },
    record: { type: 'string' },
    force: { type: 'boolean' },
    ...LOG_OPTION_SPECS,
    input: { type: 'string', multiple: true },
    'keys-file': { type: 'string' },
  },
  prepareArgs: embeddedBrokerArg,
  // Secrets have no flag; an inline site and beacon names have none either (they are not one value).
  configOnly: ['mqtt-password', 'site-json', 'beacon-names-json'],
  help: `Usage: beaconkit fleet --mqtt <url> [options]
       beaconkit fleet --embedded-broker [port] [options]
       beaconkit fleet forget <id> --mqtt <url> [--mqtt-prefix <p>] [--ha-prefix <h>]

One view of many gateways: listens to every gateway's status and RSSI batches on the
broker and shows each beacon once — its room (with hysteresis), position (with a site
plan), the gateways hearing it, the best RSSI and its age. A beacon goes only when no
gateway has heard it for 30 s. Runs until Ctrl-C or --duration.

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
  --json                 print events as JSON lines (found, gone, room, moved,
                         gateway, updated) instead of the live table
  --duration <seconds>   stop after this long
  --http [host:]port     the live map in a browser: floor plan, rooms, gateways,
                         beacons and their details (docs/web-map.md); host default
                         127.0.0.1, the address is printed once
  --http-token <token>   access token for the map; off loopback one is required
                         and generated when not given
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
                         (docs/fleet.md "Mixed fleets")
  --keys-file <file>     broadcast keys, so private broadcasts an --input node relays
                         decrypt and verify (one key per line)

beaconkit fleet forget <id> empties the beacon's retained fleet state, presence and
Home Assistant configs (under --ha-prefix, default homeassistant) and tells running
trackers to forget it; heard again, it is announced again after the dwell. It
waits for the broker's acknowledgements (at most 10 s each for the connection and
for them), prints one line and exits 0; 2 for a bad id, 1 when the broker is
unreachable. --mqtt-user, --mqtt-password-file and --client-id apply as above.
${FLEET_TAIL}`,
  parse(values, pos): FleetCommand | FleetForgetCommand {
    const command = 'fleet'
    if (pos[0] === 'forget') return parseFleetForget(values, pos.slice(1))
    if (str(values, 'ha-prefix') !== undefined) fail('ha-prefix', '--ha-prefix goes with beaconkit fleet forget <id>; the fleet itself announces under homeassistant', command)
    positionals(pos, 0, 'beaconkit fleet --mqtt <url> [options], or beaconkit fleet --embedded-broker [port] [options]', command)
    const embedded = number(values, 'embedded-broker', command, { integer: true, min: 0, max: 65535, what: 'a TCP port between 0 and 65535' })
    const given = str(values, 'mqtt')
    if (embedded !== undefined && given !== undefined) fail('mqtt', '--mqtt and --embedded-broker exclude each other: the fleet listens to its own embedded broker, or to yours', command)
    if (embedded === undefined && given === undefined) fail('mqtt', 'beaconkit fleet needs a broker: --mqtt mqtt://host:1883, or --embedded-broker [port] to run one in this process', command)
    // With its own broker the fleet listens on it; the port is the one asked for (0: the one it gets).
    const mqtt = parseMqtt(embedded === undefined ? values : { ...values, mqtt: `mqtt://127.0.0.1:${embedded}` }, command)
    if (mqtt === undefined) fail('mqtt', 'beaconkit fleet needs --mqtt <url>', command)
    const survey = str(values, 'survey')
    // A site typed as --site wins over one written into a config file.
    const site = str(values, 'site')
    const siteJson = site === undefined ? configJson(values, 'site-json') : undefined
    const beaconNames = configJson(values, 'beacon-names-json')
    if (survey !== undefined && site === undefined && siteJson === undefined) fail('survey', '--survey needs --site <site.json>: the survey is measured on the site plan', command)
    const occupancy = str(values, 'occupancy')
    if (occupancy !== undefined && site === undefined && siteJson === undefined) fail('occupancy', '--occupancy needs --site <site.json>: the grid is drawn on the site plan', command)
    if (beaconNames !== undefined && site === undefined && siteJson === undefined) fail('beacon-names-json', 'beacons (names) need the site: add site: <site.json> to the config, or --site', command)
    const record = str(values, 'record')
    const force = bool(values, 'force')
    const inputs = inputList(values, command)
    const keysFile = str(values, 'keys-file')
    if (keysFile !== undefined && inputs === undefined) fail('keys-file', '--keys-file goes with --input: the fleet decrypts only what foreign nodes relay (beaconkit gateways decrypt with their own keys)', command)
    if (force && record === undefined) fail('force', '--force goes with --record <file>: it lets the recording replace an existing file', command)
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
      ...optional('http', parseHttp(values, command)),
      ...optional('metrics', parseMetrics(values, command)),
      ...optional('record', record),
      ...optional('force', force ? true : undefined),
      ...optional('log', parseLog(values, command)),
      ...optional('inputs', inputs),
      ...optional('keysFile', keysFile),
    }
  },
  run: (parsed) => (parsed.command === 'fleet-forget' ? runFleetForget(parsed) : runFleet(parsed)),
})
