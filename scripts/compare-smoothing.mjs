// Compares the RSSI smoothing methods on simulated walks and prints one Markdown row each:
// RMS error of the smoothed RSSI against the noise-free path-loss RSSI (dB), median distance
// error (m), and lag: time after a step from 2 m to 8 m until the smoothed RSSI is halfway.
//   npm run build && node scripts/compare-smoothing.mjs
// Each method runs through the real pipeline (SimulatedSource → BeaconScanner) in virtual time.
import { BeaconScanner, SimulatedSource } from '../dist/index.js'

// INTERVAL=500 node scripts/compare-smoothing.mjs repeats the comparison for slower beacons.
const INTERVAL = Number(process.env.INTERVAL ?? 100)
const UUID = '23A01AF0-232A-4518-9C0E-323FB773F5EF'
const MP = -59
const N = 2
const trueRssi = (d) => MP - 10 * N * Math.log10(d)

// A walk out and back: 1 m → 10 m over 30 s, then back over 30 s, then still at 3 m.
function walkDistance(t) {
  if (t < 5000) return 1
  if (t < 35000) return 1 + (9 * (t - 5000)) / 30000
  if (t < 65000) return 10 - (9 * (t - 35000)) / 30000
  return 3
}

async function measure(smoothing, seed) {
  // The simulator walks linearly between waypoints; two legs approximate the out-and-back path.
  const devices = [
    { address: 'aa:00:00:00:00:01', ibeacon: { proximityUUID: UUID, major: 1, minor: 1, measuredPower: MP }, intervalMs: INTERVAL, distance: { from: 1, to: 10, startMs: 5000, durationMs: 30000 } },
    { address: 'aa:00:00:00:00:02', ibeacon: { proximityUUID: UUID, major: 1, minor: 2, measuredPower: MP }, intervalMs: INTERVAL, distance: { from: 2, to: 8, startMs: 20000, durationMs: 1 } },
  ]
  const source = new SimulatedSource({ virtual: true, seed, durationMs: 40000, noiseDb: 4, lossRate: 0.1, pathLossExponent: N, devices })
  const scanner = new BeaconScanner({ source, smoothing, updateIntervalMs: 100 })
  const t0 = source.clock.now()
  let sq = 0
  let n = 0
  const distErr = []
  let lag
  scanner.on('updated', (beacons) => {
    const t = scanner.clock.now() - t0
    for (const b of beacons) {
      if (b.minor === 1 && t > 6000) {
        const d = t < 35000 ? 1 + (9 * (t - 5000)) / 30000 : 10
        const e = b.smoothedRssi - trueRssi(d)
        sq += e * e
        n++
        distErr.push(Math.abs(b.accuracy - d))
      }
      if (b.minor === 2 && t >= 20000 && lag === undefined && b.smoothedRssi <= (trueRssi(2) + trueRssi(8)) / 2) lag = t - 20000
    }
  })
  await scanner.start()
  await new Promise((r) => source.on('end', r))
  await scanner.stop()
  distErr.sort((a, b) => a - b)
  return { rms: Math.sqrt(sq / n), medianDist: distErr[distErr.length >> 1], lag: lag ?? Infinity }
}

const methods = [
  ['arma 0.05', { method: 'arma', factor: 0.05 }],
  ['arma 0.1', { method: 'arma', factor: 0.1 }],
  ['arma 0.2', { method: 'arma', factor: 0.2 }],
  ['arma 0.3', { method: 'arma', factor: 0.3 }],
  ['arma τ 1 s', { method: 'arma', timeConstantMs: 1000 }],
  ['arma τ 1.5 s', { method: 'arma', timeConstantMs: 1500 }],
  ['arma τ 2 s', { method: 'arma', timeConstantMs: 2000 }],
  ['trimmed-mean 1 s', { method: 'trimmed-mean', windowMs: 1000 }],
  ['trimmed-mean 2 s', { method: 'trimmed-mean', windowMs: 2000 }],
  ['trimmed-mean 3 s', { method: 'trimmed-mean', windowMs: 3000 }],
  ['trimmed-mean 5 s', { method: 'trimmed-mean', windowMs: 5000, maxSamples: 64 }],
  ['none (raw)', { method: 'none' }],
]
console.log('| smoothing | RSSI RMS error (dB) | median distance error (m) | step lag (ms) |')
console.log('|---|---|---|---|')
for (const [name, smoothing] of methods) {
  const runs = []
  for (const seed of [1, 2, 3, 4, 5]) runs.push(await measure(smoothing, seed))
  const mean = (k) => runs.reduce((s, r) => s + r[k], 0) / runs.length
  console.log(`| ${name} | ${mean('rms').toFixed(2)} | ${mean('medianDist').toFixed(2)} | ${Math.round(mean('lag'))} |`)
}
void walkDistance
