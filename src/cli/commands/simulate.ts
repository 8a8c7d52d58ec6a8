/** `beaconkit simulate`: simulated beacons through the views, or a whole simulated site publishing to a broker. */

import { siteScenario } from '../../sources/scenario.js'
import { SimulatedSource } from '../../sources/simulated.js'
import { bool, durationMs, fail, number, positionals, seed, str } from '../arg-values.js'
import { parseView } from '../view-args.js'
import type { ViewFlags } from '../command-line.js'
import { defineCommand, optional } from './command.js'
import { runSimulateSite } from './simulate-site.js'
import { runView } from './view.js'
import { COMMON_TAIL, VIEW_CONFIG_ONLY, VIEW_OPTIONS, VIEW_OPTION_SPECS } from './view-options.js'

/** What `beaconkit simulate` parses to. */
export interface SimulateCommand {
  command: 'simulate'
  view: ViewFlags
  seed: number
  beacons: number
  durationMs?: number
  virtual: boolean
  site?: string
}

/** A site publishes to the broker; otherwise the simulated beacons go through the views, in real or virtual time. */
async function runSimulate(parsed: SimulateCommand): Promise<number> {
  if (parsed.site !== undefined && parsed.view.mqtt !== undefined) {
    return runSimulateSite({
      site: parsed.site,
      mqtt: parsed.view.mqtt,
      seed: parsed.seed,
      ...(parsed.durationMs === undefined ? {} : { durationMs: parsed.durationMs }),
      ...(parsed.view.log === undefined ? {} : { log: parsed.view.log }),
    })
  }
  const devices = siteScenario(parsed.beacons, parsed.seed)
  if (parsed.virtual) {
    // Virtual time needs an end: the source stops at the duration, then the beacons age out.
    const source = new SimulatedSource({
      devices,
      seed: parsed.seed,
      virtual: true,
      ...(parsed.durationMs === undefined ? {} : { durationMs: parsed.durationMs }),
    })
    return runView({
      source,
      label: `simulate ${parsed.beacons} beacons, virtual time`,
      view: parsed.view,
      drainAtEnd: true,
    })
  }
  const source = new SimulatedSource({ devices, seed: parsed.seed })
  return runView({
    source,
    label: `simulate ${parsed.beacons} beacons`,
    view: parsed.view,
    ...(parsed.durationMs === undefined ? {} : { durationMs: parsed.durationMs }),
  })
}

/** `beaconkit simulate`: its options, help, parser and runner (registered in registry.ts). */
export const simulateCommand = defineCommand({
  name: 'simulate',
  overview: [['simulate', 'run the beacon simulator through the same views']],
  options: {
    ...VIEW_OPTION_SPECS,
    seed: { type: 'string' },
    beacons: { type: 'string' },
    duration: { type: 'string' },
    virtual: { type: 'boolean' },
    site: { type: 'string' },
  },
  configOnly: VIEW_CONFIG_ONLY,
  help: `Usage: beaconkit simulate [options]

Runs the beacon simulator (synthetic iBeacon and vendor frames, plain and encrypted,
with noise, walking devices, devices coming and going) through the same views as
\`scan\`. Runs until Ctrl-C or --duration.

Simulation:
  --beacons <n>          how many simulated devices (default 12)
  --seed <n>             random seed: the same seed gives the same run (default 1)
  --duration <seconds>   stop after this much (simulated) time
  --virtual              run in virtual time, as fast as possible (needs --duration);
                         at the end the beacons age out, then the command exits
  --site <site.json>     simulate a whole site instead: every gateway of the file
                         hears its beacons (walls, walks, noise) and publishes to
                         --mqtt under its own gateway id (docs/fleet.md); try
                         --site fixtures/site-demo.json. It shows nothing itself
                         (no --json, no --http): watch it with beaconkit fleet

Every fourth device is encrypted with the public sample key of the protocol
documentation; add --key 7b4b5ff594fdaf8f9fc7f2b494e400016f461205 to verify them.
${VIEW_OPTIONS}
${COMMON_TAIL}`,
  parse(values, pos): SimulateCommand {
    const command = 'simulate'
    positionals(pos, 0, 'beaconkit simulate [options]', command)
    const beacons =
      number(values, 'beacons', command, {
        integer: true,
        min: 1,
        max: 100_000,
        what: 'a whole number between 1 and 100000',
      }) ?? 12
    const duration = durationMs(values, command)
    const virtual = bool(values, 'virtual')
    const site = str(values, 'site')
    if (site !== undefined) {
      // The site names the beacons and the gateways; each gateway publishes, nothing is shown.
      const clash = [
        'beacons',
        'virtual',
        'gateway-id',
        'client-id',
        'upload',
        'key',
        'keys-file',
        'irk-file',
        'serial',
        'uuid',
        'beacon-id',
        'min-rssi',
        'verified-only',
        'json',
      ].find((n) => values[n] !== undefined)
      if (clash !== undefined)
        fail(
          clash,
          `--${clash} does not go with --site: the site file names the beacons and gateways, and ` +
            `each gateway publishes to --mqtt`,
          command,
        )
      if (str(values, 'mqtt') === undefined)
        fail(
          'site',
          '--site needs --mqtt <url>: every simulated gateway publishes to that broker (try ' +
            'beaconkit fleet --embedded-broker in another terminal)',
          command,
        )
      // The simulated gateways only publish; the map is the fleet's, which fuses what they publish.
      for (const web of ['http', 'http-token']) {
        if (values[web] !== undefined)
          fail(
            web,
            `--${web} does not go with --site: the simulated site has no map of its own; run ` +
              `beaconkit fleet --mqtt <url> --site <site.json> --http <port> to see it on the map`,
            command,
          )
      }
    }
    if (virtual && duration === undefined)
      fail('virtual', '--virtual needs --duration <seconds>: a simulation in virtual time would never end', command)
    return {
      command,
      view: parseView(values, command),
      seed: seed(values, command),
      beacons,
      virtual,
      ...optional('durationMs', duration),
      ...optional('site', site),
    }
  },
  run: runSimulate,
})
