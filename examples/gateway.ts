/**
 * A gateway, e.g. on a Raspberry Pi: scans, verifies private broadcasts with the site's keys,
 * uploads sensor data through the account interface with a durable queue, and shuts down
 * cleanly on SIGTERM (systemd) or Ctrl-C. See systemd/beaconkit-example-gateway.service beside this file.
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
import { BluetoothUnavailableError, Keyring, NobleSource, ReplaySource, startGateway } from '../src/index.js'
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
const passwordFile = required('BEACONKIT_PASSWORD_FILE')
const cloudUrl = required('BEACONKIT_CLOUD_URL')
const email = required('BEACONKIT_EMAIL')
// A key file that is corrupted stops the gateway here, with the line number; better than running unverified.
const keys = env.BEACONKIT_KEYS_FILE === undefined ? undefined : await Keyring.fromFile(env.BEACONKIT_KEYS_FILE)

const replay = env.BEACONKIT_REPLAY
const source: AdvertisementSource =
  replay === undefined ? new NobleSource({ hciDeviceId: Number(env.BEACONKIT_HCI ?? 0) }) : new ReplaySource(replay, { virtual: true })
// The composition root builds the scanner and the uploader (its account checked first) and
// stops them in reverse order; the password is read from its file, never from the environment.
const gateway = await startGateway(
  {
    source,
    ...(keys === undefined ? {} : { keys }),
    upload: { cloudUrl, email, passwordFile, queueDir: env.BEACONKIT_QUEUE_DIR ?? '/var/lib/beaconkit/queue' },
  },
  { warn: (text) => console.warn(`warning: ${text}`), stderr: process.stderr, onUploadRefused: (e) => console.error(`upload stopped: ${e.message}`) },
).catch((e: unknown) => {
  // A refused account (or an unreadable password file) stops here, before scanning starts.
  console.error(`gateway: ${e instanceof Error ? e.message : String(e)}`)
  process.exit(4)
})
const { scanner } = gateway
const uploader = gateway.upload?.uploader

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
uploader?.on('uploaded', ({ count }) => console.log(`uploaded ${count} records`))

let stopping: Promise<void> | undefined
function shutdown(reason: string): Promise<void> {
  // Stop the scanner first so nothing new is queued, then flush the queue to the cloud;
  // what cannot be delivered now stays in the queue directory for the next start.
  stopping ??= (async () => {
    console.log(`stopping (${reason})`)
    await gateway.stop()
    console.log('stopped')
  })()
  return stopping
}
process.once('SIGTERM', () => void shutdown('SIGTERM'))
process.once('SIGINT', () => void shutdown('SIGINT'))

await gateway.start()
if (replay !== undefined) {
  await scanner.drain()
  await shutdown('end of the recording')
}
