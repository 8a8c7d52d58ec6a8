/**
 * A gateway, e.g. on a Raspberry Pi: scans, verifies private broadcasts with the site's keys,
 * uploads sensor data through the account interface with a durable queue, and shuts down
 * cleanly on SIGTERM (systemd) or Ctrl-C. See systemd/beaconkit-example-gateway.service beside this file.
 *
 * In your project, `import { ... } from 'beaconkit'` (the relative import is for this repository).
 *
 * Configuration: the settings `beaconkit scan` reads, from the environment (docs/configuration.md
 * lists them all); this program reads no variable itself. Uploading is its own setting, the rest:
 *   BEACONKIT_UPLOAD_CLOUD_URL      account interface, e.g. https://cloud.example.com
 *   BEACONKIT_UPLOAD_EMAIL          account e-mail
 *   BEACONKIT_UPLOAD_PASSWORD_FILE  file holding the password (mode 0600)
 *   BEACONKIT_UPLOAD_QUEUE_DIR      durable upload queue, e.g. /var/lib/beaconkit/queue (default: in memory)
 *   BEACONKIT_KEYS_FILE             broadcast keys, one per line, mode 0600 (optional)
 *   BEACONKIT_ADAPTER_HCI           adapter numbers (default 0 = hci0)
 *
 * Usage: node gateway.js [recording.jsonl]   (a recording: replay it instead of scanning, to try it out or in CI)
 */
import { BluetoothUnavailableError, ConfigError, ReplaySource, loadConfig, startGateway } from '../src/index.js'

const replay = process.argv[2]
/** Exits with `code` after one line naming what is wrong. */
function exitWith(code: number): (e: unknown) => never {
  return (e) => {
    console.error(`gateway: ${e instanceof Error ? e.message : String(e)}`)
    process.exit(code)
  }
}
// The same model `beaconkit scan` reads; a setting that is wrong or missing is named by its variable or path.
const config = await loadConfig({
  env: process.env,
  flags: { upload: { enabled: true } },
  warn: (text) => console.warn(`warning: ${text}`),
}).catch(exitWith(2))
// The composition root builds the scanner over the adapters (or the recording), reads the keys
// (a corrupted keys file stops it here, with the line number) and the uploader (its account
// checked first), and stops them in reverse order; the password is read from its file.
const gateway = await startGateway(
  { ...config, ...(replay === undefined ? {} : { source: new ReplaySource(replay, { virtual: true }) }) },
  {
    warn: (text) => console.warn(`warning: ${text}`),
    onUploadRefused: (e) => console.error(`upload stopped: ${e.message}`),
  },
  // A setting that is wrong (exit 2); a refused account or an unreadable password file stops here,
  // before scanning starts (exit 4).
).catch((e: unknown) => exitWith(e instanceof ConfigError ? 2 : 4)(e))
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
