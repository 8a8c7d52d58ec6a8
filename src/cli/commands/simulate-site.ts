/**
 * `beaconkit simulate --site site.json --mqtt url`: a whole simulated site on a broker, every
 * gateway of the file with its own scanner, publisher and connection (runSite), until Ctrl-C or
 * --duration. It prints what it runs and, every ten seconds, how much it has sent.
 */
import { SiteSimulator } from '../../simulation/site-simulator.js'
import { runSite } from '../../gateway/run-site.js'
import type { LogFlags, MqttFlags } from '../command-line.js'
import { answerStream, openLog } from '../log-setup.js'
import { homeAssistantOption } from '../../gateway/mqtt-sink.js'
import { EXIT } from '../exit.js'
import { FLUSH_DEADLINE_MS, forceAfter, handleSignals, undeliveredLine } from '../../gateway/shutdown.js'
import { readSiteFile, warnSiteProblems } from './site-file.js'

/** What `simulate --site` was given. */
export interface SimulateSiteOptions {
  site: string
  mqtt: MqttFlags
  seed: number
  durationMs?: number
  /** `--log-level`, `--log-format`. */
  log?: LogFlags
}

const REPORT_MS = 10_000

/**
 * The `beaconkit fleet` line that shows this simulation: the same broker, topic prefix (a fleet
 * on another prefix hears nothing), credentials and site. The password file is a path, never
 * the password.
 */
export function watchCommand(site: string, mqtt: MqttFlags): string {
  const flags = [
    `--mqtt ${mqtt.url}`,
    ...(mqtt.topicPrefix === undefined ? [] : [`--mqtt-prefix ${mqtt.topicPrefix}`]),
    ...(mqtt.username === undefined ? [] : [`--mqtt-user ${mqtt.username}`]),
    ...(mqtt.passwordFile === undefined ? [] : [`--mqtt-password-file ${mqtt.passwordFile}`]),
    `--site ${site}`,
  ]
  return `beaconkit fleet ${flags.join(' ')}`
}

/** Runs the site until SIGINT/SIGTERM or the duration; returns the exit code. */
export async function runSimulateSite(
  options: SimulateSiteOptions,
  out: { write(text: string): unknown } = process.stdout,
  err: { write(text: string): unknown } = process.stderr,
): Promise<number> {
  const json = await readSiteFile(options.site, 'simulate')
  const log = await openLog(options.log, err)
  await warnSiteProblems(options.site, json, (text) => log.warn(text, { condition: 'site.problem' }))
  const sim = SiteSimulator.fromJSON(json, {
    seed: options.seed,
    ...(options.durationMs === undefined ? {} : { durationMs: options.durationMs }),
  })
  const { mqtt } = options
  const site = await runSite({
    simulator: sim,
    url: mqtt.url,
    homeAssistant: homeAssistantOption(mqtt),
    ...(mqtt.topicPrefix === undefined ? {} : { topicPrefix: mqtt.topicPrefix }),
    ...(mqtt.username === undefined ? {} : { username: mqtt.username }),
    ...(mqtt.passwordFile === undefined ? {} : { passwordFile: mqtt.passwordFile }),
  })
  let finish!: () => void
  const done = new Promise<void>((resolve) => {
    finish = resolve
  })
  const removeSignals = handleSignals(() => finish())
  sim.once('end', () => finish())
  sim.once('error', (error) => {
    out.write(`beaconkit simulate: ${error.message}\n`)
    finish()
  })
  out.write(
    `simulating ${options.site}: ${sim.gateways.length} gateways (${sim.gateways.join(', ')}), ` +
      `${sim.beaconNames().length} beacons → ${mqtt.url}\n` +
      `watch it: ${watchCommand(options.site, mqtt)}\n` +
      'Ctrl-C stops it.\n',
  )
  const started = Date.now()
  const report = setInterval(() => {
    const s = sim.stats
    out.write(
      `${Math.round((Date.now() - started) / 1000)} s: ${s.transmitted} packets sent, ${s.heard} ` +
        `heard by a gateway, ${site.rssiBatches()} RSSI batches published\n`,
    )
  }, REPORT_MS)
  let undelivered: string | undefined
  try {
    await done
  } finally {
    const disarm = forceAfter()
    clearInterval(report)
    undelivered = undeliveredLine(await site.close(FLUSH_DEADLINE_MS), mqtt.url)
    removeSignals()
    disarm()
  }
  if (undelivered !== undefined) {
    answerStream(options.log, err).write(undelivered)
    return EXIT.failure
  }
  out.write('simulation stopped; every gateway said offline\n')
  return EXIT.ok
}
