/**
 * A gateway, e.g. on a Raspberry Pi: scans, verifies private broadcasts with the site's keys,
 * uploads sensor data through the account interface with a durable queue, and shuts down
 * cleanly on SIGTERM (systemd) or Ctrl-C. See beaconkit-gateway.service beside this file.
 *
 * In your project, `import { ... } from 'beaconkit'` (the relative import is for this repository).
 *
 * Configuration (environment):
 *   BEACONKIT_CLOUD_URL      account interface, e.g. https://cloud.example.com
 *   BEACONKIT_EMAIL          account e-mail
 *   BEACONKIT_PASSWORD_FILE  file holding the password (mode 0600)
 *   BEACONKIT_KEYS_FILE      broadcast keys, one per line (optional)
 *   BEACONKIT_QUEUE_DIR      durable upload queue (default /var/lib/beaconkit/queue)
 *   BEACONKIT_HCI            adapter number (default 0 = hci0)
 *   BEACONKIT_REPLAY         replay this recording instead of scanning (trying it out, CI)
 */
import { readFile } from 'node:fs/promises'
import { AccountClient, BeaconScanner, BluetoothUnavailableError, Keyring, NobleSource, ReplaySource, Uploader } from '../src/index.js'
import type { AdvertisementSource } from '../src/index.js'

function required(name: string): string {
  const value = process.env[name]
  if (value === undefined || value === '') {
    console.error(`gateway: set ${name} (see the comment at the top of gateway.ts)`)
    process.exit(2)
  }
  return value
}

const env = process.env
const password = (await readFile(required('BEACONKIT_PASSWORD_FILE'), 'utf8')).split(/\r?\n/)[0]
const client = new AccountClient({ baseUrl: required('BEACONKIT_CLOUD_URL'), email: required('BEACONKIT_EMAIL'), password })
// A key file that is corrupted stops the gateway here, with the line number; better than running unverified.
const keys = env.BEACONKIT_KEYS_FILE === undefined ? undefined : await Keyring.fromFile(env.BEACONKIT_KEYS_FILE)

const replay = env.BEACONKIT_REPLAY
const source: AdvertisementSource =
  replay === undefined ? new NobleSource({ hciDeviceId: Number(env.BEACONKIT_HCI ?? 0) }) : new ReplaySource(replay, { virtual: true })
const scanner = new BeaconScanner({ source, ...(keys === undefined ? {} : { keys }) })
const uploader = new Uploader({ client, queueDir: env.BEACONKIT_QUEUE_DIR ?? '/var/lib/beaconkit/queue' })
uploader.attach(scanner)

scanner.on('found', (b) => console.log(`found ${b.id}${b.secure?.verified === true ? ' (verified)' : ''}`))
scanner.on('gone', (b) => console.log(`gone ${b.id}`))
scanner.on('state', (state) => console.log(`adapter ${state}`))
scanner.on('warning', (w) => console.warn(`warning: ${w.message}`))
scanner.on('error', (e) => {
  console.error(`error: ${e.message}`)
  // The adapter was unplugged (or stayed off): noble cannot re-open it in this process. Exit
  // non-zero after the clean shutdown, so systemd (Restart=on-failure) starts a fresh one.
  if (e instanceof BluetoothUnavailableError && e.code === 'adapter_lost') {
    void shutdown('adapter lost').then(() => (process.exitCode = 1))
  }
})
uploader.on('uploaded', ({ count }) => console.log(`uploaded ${count} records`))
uploader.on('error', (e) => console.error(`upload stopped: ${e.message}`))

let stopping: Promise<void> | undefined
function shutdown(reason: string): Promise<void> {
  // Stop the scanner first so nothing new is queued, then flush the queue to the cloud;
  // what cannot be delivered now stays in the queue directory for the next start.
  stopping ??= (async () => {
    console.log(`stopping (${reason})`)
    await scanner.stop()
    await uploader.close()
    console.log('stopped')
  })()
  return stopping
}
process.once('SIGTERM', () => void shutdown('SIGTERM'))
process.once('SIGINT', () => void shutdown('SIGINT'))

await scanner.start()
if (replay !== undefined) {
  await scanner.drain()
  await shutdown('end of the recording')
}
