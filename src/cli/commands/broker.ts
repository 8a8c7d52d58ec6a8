/** `beaconkit broker`: an embedded MQTT broker (aedes) on loopback, until Ctrl-C. */

import { startBroker } from '../../mqtt/broker.js'
import { EXIT } from '../exit.js'
import { handleSignals } from '../../gateway/shutdown.js'
import { parseLog, positionals, str, tcpPort } from '../arg-values.js'
import { defineCommand, optional } from './command.js'
import type { LogFlags } from '../command-line.js'
import { openLog } from '../log-setup.js'
import { LOG_OPTIONS, LOG_OPTION_SPECS } from './view-options.js'

/** Options of {@link runBroker}, as parsed from the command line. */
export interface BrokerCommandOptions {
  port: number
  host: string
  /** `--log-level`, `--log-format`. */
  log?: LogFlags
}

/** Starts the broker, prints where it listens, and runs until SIGINT/SIGTERM. */
export async function runBroker(
  options: BrokerCommandOptions,
  out: { write(text: string): unknown } = process.stdout,
): Promise<number> {
  const log = await openLog(options.log)
  const broker = await startBroker({ port: options.port, host: options.host })
  log.info('MQTT broker listening', { url: broker.url })
  // Listen for Ctrl-C before saying we listen: whoever reads that line may signal at once.
  const stopped = new Promise<void>((resolve) => {
    const remove = handleSignals(() => {
      remove()
      resolve()
    })
  })
  out.write(
    `MQTT broker (aedes, MQTT 3.1.1) listening on ${broker.url}\n` +
      `publish to it: beaconkit replay fixtures/demo.jsonl --mqtt ${broker.url} --gateway-id demo\n` +
      'Ctrl-C stops it.\n',
  )
  await stopped
  await broker.close()
  log.info('MQTT broker stopped')
  out.write('MQTT broker stopped\n')
  return EXIT.ok
}

// The broker scans nothing and uploads nothing: its stop and exit codes are its own.
const BROKER_TAIL = `${LOG_OPTIONS}
  -h, --help             this help

Ctrl-C (or SIGTERM) stops it: clients are disconnected and the exit code is 0.
Exit codes: 0 done, 1 unexpected failure, 2 bad option, 75 the port is in use (a later
try may succeed).`

/** What `beaconkit broker` parses to. */
export type BrokerCommand = { command: 'broker' } & BrokerCommandOptions

/** `beaconkit broker`: its options, help, parser and runner (registered in registry.ts). */
export const brokerCommand = defineCommand({
  name: 'broker',
  overview: [['broker', 'start a local MQTT broker for --mqtt (aedes)']],
  options: { port: { type: 'string' }, host: { type: 'string' }, ...LOG_OPTION_SPECS },
  help: `Usage: beaconkit broker [options]

Starts an MQTT broker (aedes, MQTT 3.1.1, retained messages in memory) for a
one-machine setup or a demo, so \`--mqtt\` can be tried without installing
Mosquitto. Runs until Ctrl-C. For a lasting setup use Mosquitto (docs/mqtt.md).

  --port <port>          TCP port (default 1883; 0 picks a free one)
  --host <host>          address to listen on (default 127.0.0.1)
${BROKER_TAIL}`,
  parse(values, pos): BrokerCommand {
    const command = 'broker'
    positionals(pos, 0, 'beaconkit broker [options]', command)
    const port = tcpPort(values, 'port', command) ?? 1883
    return { command, port, host: str(values, 'host') ?? '127.0.0.1', ...optional('log', parseLog(values, command)) }
  },
  run: (parsed) => runBroker(parsed),
})
