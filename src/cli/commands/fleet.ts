/**
 * `beaconkit fleet`: a FleetTracker on a broker (or on an embedded one it starts), shown as a live
 * table on a terminal or as JSON lines of its events; positions when the site places the gateways.
 */
import type { FleetBeacon, PositionEstimator } from '../../fleet/fusion.js'
import { Site } from '../../positioning/site.js'
import { Positioner } from '../../positioning/positioner.js'
import { RadioMap } from '../../positioning/radio-map.js'
import type { MqttFlags } from '../command-line.js'
import { connectionWarnings } from '../../gateway/mqtt-sink.js'
import { startFleet } from '../../gateway/start-fleet.js'
import { EXIT } from '../exit.js'
import { FleetGatewayCounts, renderFleetTable } from '../ui/fleet-table.js'
import type { FleetStatus } from '../ui/fleet-table.js'
import type { LineSink } from '../ui/json-lines.js'
import { readSurvey } from './locate.js'
import { TerminalScreen } from '../ui/screen.js'
import type { TerminalLike } from '../ui/screen.js'
import { forceAfter, handleSignals, undeliveredLine } from '../../gateway/shutdown.js'
import { readSiteFile, siteImage, warnSiteProblems } from './site-file.js'
import type { HttpFlags } from '../command-line.js'

/** What `beaconkit fleet` was given. */
export interface FleetFlags {
  mqtt: MqttFlags
  /** Start aedes in this process on 127.0.0.1 at this port (0: a free one). */
  embeddedBroker?: number
  site?: string
  survey?: string
  json: boolean
  durationMs?: number
  /** `--http`: the live map of the fleet. */
  http?: HttpFlags
  /** `--record <file>`: the fused view, for `beaconkit replay <file> --http`. */
  record?: string
  /** `--force`: let `--record` replace an existing file (default: refuse, exit 2). */
  force?: boolean
}

/** Where the fleet view writes; process.stdout/stderr unless a test says otherwise. */
export interface FleetStreams {
  stdout: TerminalLike & { isTTY?: boolean }
  stderr: { write(text: string): unknown }
}

/** A positioner when the site places every gateway; calibrated by the survey when there is one. */
async function positionerFor(site: Site, survey: string | undefined): Promise<PositionEstimator | undefined> {
  const anchors = site.anchorList()
  if (site.kind !== 'receivers' || anchors.length === 0 || anchors.some((a) => a.x === undefined || a.y === undefined)) return undefined
  const radioMap = survey === undefined ? undefined : RadioMap.fromSurvey(site, (await readSurvey(survey, 'fleet')).survey)
  return new Positioner({ site, ...(radioMap === undefined ? {} : { radioMap }) })
}

/** Runs the fleet view until SIGINT/SIGTERM or the duration; returns the exit code. */
export async function runFleet(flags: FleetFlags, streams: FleetStreams = { stdout: process.stdout, stderr: process.stderr }): Promise<number> {
  // Everything that can be wrong in the files fails before a broker starts.
  const siteJson = flags.site === undefined ? undefined : await readSiteFile(flags.site, 'fleet')
  const site = siteJson === undefined ? undefined : Site.fromJSON(siteJson)
  const positioner = site === undefined ? undefined : await positionerFor(site, flags.survey)
  const image = flags.site === undefined ? undefined : siteImage(siteJson, flags.site)
  // Warnings before the table opens go to stderr; the screen takes them over once it is up.
  let warn = (text: string): void => {
    streams.stderr.write(`beaconkit: warning: ${text}\n`)
  }
  const fleet = await startFleet(
    {
      mqtt: flags.mqtt,
      ...(flags.embeddedBroker === undefined ? {} : { embeddedBroker: flags.embeddedBroker }),
      ...(site === undefined ? {} : { site }),
      ...(image === undefined ? {} : { siteImage: image }),
      ...(positioner === undefined ? {} : { positioner }),
      ...(flags.record === undefined ? {} : { record: { file: flags.record, force: flags.force === true } }),
      ...(flags.http === undefined ? {} : { http: flags.http }),
    },
    { stderr: streams.stderr, warn: (text) => warn(text) },
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
  const warnings: string[] = []
  warn = (text: string): void => {
    if (screen === undefined) streams.stderr.write(`beaconkit: warning: ${text}\n`)
    else if (warnings.at(-1) !== text) warnings.push(text)
    if (warnings.length > 10) warnings.shift()
  }

  // The site file's problems that do not stop the fleet (beaconkit site check lists them).
  if (flags.site !== undefined) await warnSiteProblems(flags.site, siteJson, warn)

  let state = 'connecting'
  const gateways = new FleetGatewayCounts()
  let lastTick: { time: number; batches: number } | undefined
  // One line per new connection problem, as a gateway's --mqtt does.
  const problems = connectionWarnings(warn)
  tracker.on('connected', () => {
    state = 'connected'
    problems.connected()
  })
  tracker.on('disconnected', () => {
    state = 'disconnected'
  })
  tracker.on('error', (e) => problems.error(e))
  tracker.on('warning', (w) => warn(w.message))
  tracker.on('unknownGateway', ({ gateway }) => warn(`gateway ${gateway} publishes RSSI batches but is not in the site ${flags.site ?? ''}: its readings give no room; add it under "gateways", or check its --gateway-id`))
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
    const notes = [...(web === undefined ? [] : [`map ${web.url}`]), ...(warnings.length > 0 ? [`⚠ ${warnings[warnings.length - 1]}`] : [])]
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
    undelivered = undeliveredLine(await fleet.stop(), where)
    restore()
    process.off('exit', restore)
    removeSignals()
    if (screen !== undefined) streams.stdout.write(`beaconkit fleet: ${found} beacons found, ${gateways.known} gateways seen, ${tracker.stats.batches} RSSI batches\n`)
    for (const w of warnings) if (screen !== undefined) streams.stderr.write(`beaconkit: warning: ${w}\n`)
    disarm()
  }
  if (undelivered !== undefined) {
    streams.stderr.write(undelivered)
    return EXIT.failure
  }
  return EXIT.ok
}
