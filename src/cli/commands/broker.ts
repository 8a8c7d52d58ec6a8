/** `beaconkit broker`: an embedded MQTT broker (aedes) on loopback, until Ctrl-C. */

import { startBroker } from '../../mqtt/broker.js'
import { EXIT } from '../exit.js'
import { handleSignals } from '../../gateway/shutdown.js'

/** Options of {@link runBroker}, as parsed from the command line. */
export interface BrokerCommandOptions {
  port: number
  host: string
}

/** Starts the broker, prints where it listens, and runs until SIGINT/SIGTERM. */
export async function runBroker(options: BrokerCommandOptions, out: { write(text: string): unknown } = process.stdout): Promise<number> {
  const broker = await startBroker({ port: options.port, host: options.host })
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
  out.write('MQTT broker stopped\n')
  return EXIT.ok
}
