// The smallest beaconkit program: print beacons as they come and go. In your project,
// `import { BeaconScanner, ReplaySource } from 'beaconkit'` (the relative import is for this repository).
// Run: scans the Bluetooth adapter; `scan.js recording.jsonl` replays a recording instead.
import { BeaconScanner, ReplaySource } from '../src/index.js'

const recording = process.argv[2]
const scanner = new BeaconScanner(recording === undefined ? {} : { source: new ReplaySource(recording, { virtual: true }) })
scanner.on('found', (b) => console.log(`found ${b.id} at ${b.accuracy} m (${b.proximity})`))
scanner.on('gone', (b) => console.log(`gone  ${b.id}`))
process.once('SIGINT', () => void scanner.stop())
await scanner.start()
if (recording !== undefined) await scanner.drain().then(() => scanner.stop())
