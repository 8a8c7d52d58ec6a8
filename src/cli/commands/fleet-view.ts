/**
 * The running side of `beaconkit fleet`: a FleetTracker on a broker (or on an embedded one it
 * starts), shown as a live table on a terminal or as JSON lines of its events; positions when the
 * site places the gateways. The command's options, help and parser are in fleet.ts.
 */
import type { FleetBeacon, PositionEstimator } from '../../fleet/fleet-beacon.js'
import { Site } from '../../positioning/site.js'
import { Positioner } from '../../positioning/positioner.js'
import type { HttpFlags, LogFlags, MetricsFlags, MqttFlags } from '../command-line.js'
import { answerStream, noticeStream, openLog } from '../log-setup.js'
import { HeldLog } from '../ui/held-log.js'
import { logFleetConditions } from './fleet-conditions.js'
import { forwardingLogger, logRecord } from '../../log/logger.js'
import type { Logger } from '../../log/logger.js'
import { startFleet } from '../../gateway/start-fleet.js'
import { EXIT } from '../exit.js'
import { FleetGatewayCounts, otherGateways, renderFleetTable } from '../ui/fleet-table.js'
import { siteGatewayIds } from '../../fleet/gateway-summary.js'
import type { FleetStatus } from '../ui/fleet-table.js'
import type { LineSink } from '../ui/json-lines.js'
import { radioMapFromFiles } from './radio-map-files.js'
import { TerminalScreen } from '../ui/screen.js'
import type { TerminalLike } from '../ui/screen.js'
import { forceAfter, handleSignals, undeliveredLine } from '../../gateway/shutdown.js'
import { readSiteFile, siteImage, warnSiteProblems } from './site-file.js'
import { loadKeyring } from '../../gateway/settings/keys.js'
import { DEFAULT_EDIT_SITE_FILE, siteJsonOf } from '../../gateway/settings/site.js'
import { listenSettingsModel, mqttSettingsModel } from '../flags-model.js'
import type { BeaconkitConfig } from '../../config/load-config.js'
import type { ForeignInput } from '../../inputs/foreign.js'
import { espHomeInputText } from '../../inputs/esphome/input-spec.js'
import type { EspHomeInput } from '../../inputs/esphome/input-spec.js'

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
  /** `--edit`: the site editor on the map, saving to `site` (default ./site.json). */
  edit?: true
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
  /** `--input esphome:<host>[:<port>]`: ESPHome Bluetooth proxies fed in as gateways (#38). */
  esphome?: EspHomeInput[]
  /** `--esphome-keys`: the keys of the encrypted proxies. */
  esphomeKeys?: string
  /** `--irk-file`: identity resolving keys for what foreign nodes relay. */
  irkFile?: string
  /** `--rooms`: the room method (#39). */
  roomMethod?: 'plan' | 'strongest'
  /** `--away-multiple`, `--away-margin` (seconds): the away rule. */
  awayMultiple?: number
  awayMargin?: number
  /** `--fingerprints <file>`: taught rooms and learnt offsets. */
  fingerprints?: string
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
export async function fleetPositioner(
  site: Site,
  survey: string | undefined,
  occupancy?: string,
): Promise<Positioner | undefined> {
  const anchors = site.anchorList()
  if (site.kind !== 'receivers' || anchors.length === 0 || anchors.some((a) => a.x === undefined || a.y === undefined))
    return undefined
  // Without a survey or a grid this is default physics, the map a Positioner makes of a site by itself.
  const radioMap = await radioMapFromFiles(
    site,
    { ...(survey === undefined ? {} : { survey }), ...(occupancy === undefined ? {} : { occupancy }) },
    'fleet',
  )
  return new Positioner({ site, radioMap })
}

/**
 * What `beaconkit fleet` was given, as the fleet's model (`site`: the site file's JSON, or the
 * config file's site); the positioner, the plan image and `--force` stay runtime fields.
 */
function fleetModel(flags: FleetFlags, site: unknown): BeaconkitConfig {
  const { mqtt, ...rest } = mqttSettingsModel(flags.mqtt)
  // With its own broker the fleet listens on it: the address is the embedded broker's.
  const { url: _url, ...broker } = mqtt ?? {}
  const names = flags.beaconNames as BeaconkitConfig['beacons']
  return {
    ...rest,
    mqtt: flags.embeddedBroker === undefined ? (mqtt ?? {}) : broker,
    ...(site === undefined ? {} : { site: site as NonNullable<BeaconkitConfig['site']> }),
    ...(names === undefined ? {} : { beacons: names }),
    fleet: {
      ...(flags.embeddedBroker === undefined ? {} : { embeddedBroker: flags.embeddedBroker }),
      ...(flags.record === undefined ? {} : { record: flags.record }),
      ...(flags.inputs === undefined && flags.esphome === undefined
        ? {}
        : { inputs: [...(flags.inputs ?? []).map(inputText), ...(flags.esphome ?? []).map(espHomeInputText)] }),
      ...(flags.esphomeKeys === undefined ? {} : { esphomeKeys: flags.esphomeKeys }),
      ...(flags.inputs === undefined ? {} : { inputs: flags.inputs.map(inputText) }),
      ...(flags.roomMethod === undefined ? {} : { rooms: { method: flags.roomMethod } }),
      ...(flags.awayMultiple === undefined && flags.awayMargin === undefined
        ? {}
        : {
            away: {
              ...(flags.awayMultiple === undefined ? {} : { multiple: flags.awayMultiple }),
              ...(flags.awayMargin === undefined ? {} : { margin: flags.awayMargin }),
            },
          }),
      ...(flags.fingerprints === undefined ? {} : { fingerprints: flags.fingerprints }),
    },
    ...(flags.keysFile === undefined ? {} : { keys: { file: flags.keysFile } }),
    ...(flags.irkFile === undefined ? {} : { irk: { file: flags.irkFile } }),
    ...(flags.http === undefined
      ? {}
      : { http: { ...listenSettingsModel(flags.http), ...(flags.edit === true ? { edit: true } : {}) } }),
    ...(flags.metrics === undefined ? {} : { metrics: listenSettingsModel(flags.metrics) }),
  }
}

/** An input as `--input` writes it. */
function inputText(input: ForeignInput): string {
  const offset = input.rssiOffsetDb === undefined ? '' : `@${input.rssiOffsetDb}`
  return `${input.format}:${input.base}${offset}`
}

/** Runs the fleet view until SIGINT/SIGTERM or the duration; returns the exit code. */
export async function runFleet(
  flags: FleetFlags,
  streams: FleetStreams = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  // Everything that can be wrong in the files fails before a broker starts.
  // With --edit the site file may not exist yet: the fleet starts with the empty site, saved at the first edit.
  const siteFile = flags.site ?? (flags.edit === true ? DEFAULT_EDIT_SITE_FILE : undefined)
  const fileJson = siteFile === undefined ? flags.siteJson : await readSiteFile(siteFile, 'fleet', flags.edit === true)
  const model = fleetModel(flags, fileJson)
  const siteJson = await siteJsonOf(model)
  const site = siteJson === undefined ? undefined : Site.fromJSON(siteJson)
  const positioner: PositionEstimator | undefined =
    site === undefined ? undefined : await fleetPositioner(site, flags.survey, flags.occupancy)
  const image = siteFile === undefined ? undefined : siteImage(siteJson, siteFile)
  const base = await openLog(flags.log, streams.stderr)
  // Where the servers listen, and the final answer: in the log's format (JSON lines for a service).
  const notices = noticeStream(flags.log, streams.stderr)
  const keyring =
    flags.inputs === undefined && flags.esphome === undefined
      ? undefined
      : await loadKeyring([], flags.keysFile, { warn: (text) => base.warn(text) })
  // Lines before the table opens go to stderr; the screen holds them once it is up.
  let log: Logger = base
  const current = forwardingLogger((record) => logRecord(log, record))
  const fleet = await startFleet(
    {
      ...model,
      ...(image === undefined ? {} : { siteImage: image }),
      ...(siteFile === undefined ? {} : { siteFile }),
      ...(positioner === undefined ? {} : { positioner }),
      ...(flags.force === true ? { replaceRecording: true } : {}),
      ...(keyring === undefined ? {} : { keyring }),
    },
    { stderr: notices, log: current },
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
  if (siteFile !== undefined)
    await warnSiteProblems(siteFile, siteJson, (text) => current.warn(text, { condition: 'site.problem' }))

  let state = 'connecting'
  const gateways = new FleetGatewayCounts(siteGatewayIds(site))
  let lastTick: { time: number; batches: number } | undefined
  // One line when a condition starts and one when it clears, as a gateway's --mqtt does.
  const stopConditions = logFleetConditions(tracker, current, siteFile, site, flags.edit === true)
  tracker.on('connected', () => {
    state = 'connected'
  })
  tracker.on('disconnected', () => {
    state = 'disconnected'
  })
  tracker.on('found', (beacon) => line({ event: 'found', time: clock.now(), beacon }))
  tracker.on('gone', (beacon) => line({ event: 'gone', time: clock.now(), beacon }))
  tracker.on('room', (beacon, change) => line({ event: 'room', time: clock.now(), beacon, ...change }))
  tracker.on('floor', (beacon, change) => line({ event: 'floor', time: clock.now(), beacon, ...change }))
  tracker.on('moved', (beacon) => line({ event: 'moved', time: clock.now(), beacon }))
  tracker.on('gateway', (info) => {
    gateways.apply(info)
    line({ event: 'gateway', ...info })
  })
  const where = broker === undefined ? url : `${url} (embedded)`
  const status = (now: number): FleetStatus => {
    const batches = tracker.stats.batches
    const rate =
      lastTick === undefined || now <= lastTick.time ? 0 : ((batches - lastTick.batches) * 1000) / (now - lastTick.time)
    lastTick = { time: now, batches }
    const note = held?.note()
    const notes = [...(web === undefined ? [] : [`map ${web.url}`]), ...(note === undefined ? [] : [note])]
    // The site's gateways when there is a site: retained statuses of earlier runs are not counted.
    const g = tracker.gatewaySummary()
    const counts = { gatewaysOnline: g.online, gatewaysKnown: g.counted.length, gatewaysOther: g.others.length }
    return { broker: where, state, ...counts, batchesPerSecond: rate, notes }
  }
  const draw = (beacons: readonly FleetBeacon[], now: number): void => {
    const s = status(now)
    screen?.show((width, height) => renderFleetTable(beacons, s, { width, height, now }))
  }
  // The learnt gateway offsets (#39), every 10 s with the room method.
  let offsetsAt = -Infinity
  tracker.on('updated', (beacons) => {
    const now = clock.now()
    line({ event: 'updated', time: now, beacons })
    const locator = fleet.rooms?.rooms
    if (locator !== undefined && now - offsetsAt >= 10_000) {
      offsetsAt = now
      const offsets = locator.offsets.list().map((o) => ({ ...o, offsetDb: Math.round(o.offsetDb * 10) / 10 }))
      line({ event: 'offsets', time: now, offsets, fingerprints: locator.fingerprints.samples().length })
    }
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
    if (broker !== undefined && screen === undefined) {
      notices.write(
        `beaconkit fleet: MQTT broker (aedes) listening on ${broker.url}; gateways publish with --mqtt ${broker.url}\n`,
      )
    }
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
    const seen = `${gateways.known} gateways seen${otherGateways(gateways.others)}`
    if (screen !== undefined)
      streams.stdout.write(`beaconkit fleet: ${found} beacons found, ${seen}, ${tracker.stats.batches} RSSI batches\n`)
    log = base
    held?.flush()
    disarm()
  }
  if (undelivered !== undefined) {
    answerStream(flags.log, streams.stderr).write(undelivered)
    return EXIT.failure
  }
  return EXIT.ok
}
