// Cloud upload: end-to-end upload throughput to the loopback emulator (client, batching,
// emulator parsing and de-duplication all in this one process), and the append rates of the
// upload queues. Baselines: one record per request, and one fsync per record.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AccountClient, FileQueue, MemoryQueue, Uploader, startEmulator } from '../dist/index.js'
import { row } from './lib.mjs'

const tmp = mkdtempSync(join(tmpdir(), 'beaconkit-bench-'))
const emu = await startEmulator({ accounts: [{ email: 'bench@example.com', password: 'bench-password' }] })
const client = new AccountClient({ baseUrl: emu.url, email: 'bench@example.com', password: 'bench-password' })

let serial = 0
function reading() {
  const n = serial++
  return {
    address: 'c0:00:00:00:00:01',
    timestamp: 1_800_000_000_000 + n,
    rssi: -60,
    frames: ['ibeacon', 'e780'],
    serialNumber: `0117C5${(n % 0xffffff).toString(16).toUpperCase().padStart(6, '0')}`,
    beaconID: `FDA50693-A4E2-4FB1-AFCF-C6EB07647825|10001|${n & 0xffff}`,
    temperature: 21.5,
    light: 120,
    batteryLevel: 88,
    accelerometerCount: 7,
  }
}

function record(i) {
  return { msgId: `bench-${i}`, beaconMac: '0117C5456A36', updatedTime: 1_800_000_000_000 + i, sensor: { temperature: 21.5, power: 88 } }
}

/** Records per second delivered (pushed, uploaded, acknowledged), best of `runs`. */
async function uploadRate(n, options, runs = 3) {
  let best = 0
  for (let r = 0; r < runs; r++) {
    const queueDir = options.file ? mkdtempSync(join(tmp, 'up-')) : undefined
    const uploader = new Uploader({ client, minIntervalPerBeaconMs: 0, batchSize: options.batchSize, flushIntervalMs: 50, ...(queueDir ? { queueDir } : {}) })
    const t0 = process.hrtime.bigint()
    const pushes = []
    for (let i = 0; i < n; i++) pushes.push(uploader.push(reading()))
    await Promise.all(pushes)
    await uploader.flush()
    const s = Number(process.hrtime.bigint() - t0) / 1e9
    if (uploader.stats.uploaded !== n) throw new Error(`uploaded ${uploader.stats.uploaded} of ${n}`)
    await uploader.close()
    best = Math.max(best, n / s)
  }
  return best
}

/** Records per second appended; `wave` pushes in flight at once (1 = await each push). */
async function appendRate(makeQueue, n, wave, runs = 3) {
  let best = 0
  for (let r = 0; r < runs; r++) {
    const q = await makeQueue()
    const t0 = process.hrtime.bigint()
    for (let i = 0; i < n; i += wave) {
      const batch = []
      for (let k = 0; k < wave && i + k < n; k++) batch.push(q.push(record(i + k)))
      await Promise.all(batch)
    }
    const s = Number(process.hrtime.bigint() - t0) / 1e9
    await q.close()
    best = Math.max(best, n / s)
  }
  return best
}

try {
  await uploadRate(5_000, { batchSize: 1000 }, 1) // warm-up
  row('upload to emulator, memory queue, batches of 1000', await uploadRate(100_000, { batchSize: 1000 }), 'records/s', 'target >= 20,000')
  row('upload to emulator, file queue (fsync), batches of 1000', await uploadRate(50_000, { batchSize: 1000, file: true }), 'records/s', 'target >= 20,000')
  row('baseline: upload one record per request', await uploadRate(2_000, { batchSize: 1 }, 1), 'records/s')
  row('memory queue append', await appendRate(() => new MemoryQueue({ maxRecords: 2_000_000 }), 500_000, 10_000), 'records/s')
  row('file queue append, 1000 concurrent pushes (group commit)', await appendRate(() => FileQueue.open({ dir: mkdtempSync(join(tmp, 'fq-')) }), 50_000, 1000), 'records/s')
  row('baseline: file queue append, one push at a time (fsync each)', await appendRate(() => FileQueue.open({ dir: mkdtempSync(join(tmp, 'fq-')) }), 500, 1, 1), 'records/s')
} finally {
  await emu.close()
  rmSync(tmp, { recursive: true, force: true })
}
