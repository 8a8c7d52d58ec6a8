// A scanner's whole replay published through an MqttPublisher: connected first, then the replay
// run to its end, then every message handed to the broker (shared by the MQTT contract tests).
import { expect } from 'vitest'
import type { MqttPublisher } from '../../src/mqtt/publisher.js'
import type { BeaconScanner } from '../../src/scanner/scanner.js'

/** Attaches `publisher` to `scanner`, connects it, runs the scanner's replay to the end and flushes. */
export async function publishReplay(scanner: BeaconScanner, publisher: MqttPublisher): Promise<void> {
  publisher.attach(scanner)
  const connected = new Promise((resolve) => publisher.once('connected', resolve))
  await publisher.connect()
  await connected
  await scanner.start()
  await scanner.drain()
  await scanner.stop()
  expect(await publisher.flush(30_000)).toBe(true)
}
