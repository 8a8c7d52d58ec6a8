/**
 * The positioner's worker thread (started by positioner-thread.ts; built as its own file,
 * dist/positioner-worker.js). It holds a plain `Positioner` keyed by the owner's beacon slots,
 * takes readings in columns, and answers estimate requests with a time budget, so the filter's
 * CPU is spent on another core than the one that reads the broker.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { Positioner } from './positioner.js'
import { RadioMap } from './radio-map.js'
import { Site } from './site.js'
import type { FixesMessage, ForgottenMessage, MemoryAnswer, ToWorker, WorkerStart } from './thread-messages.js'

/** Beacons estimated between two looks at the clock (and at least, whatever the budget: a request always moves on). */
const CLOCK_EVERY = 16

const port = parentPort
if (port === null) throw new Error('positioner-worker: run me as a worker thread (new Worker), not as a program')
const start = workerData as WorkerStart
const map = RadioMap.fromParts(start.map)
const anchorIds = map.anchors.map((a) => a.id)
// Rooms are the owner's business (it has the whole site); the positioner needs only the anchors.
const site = new Site({ anchors: map.anchors.map(({ id, x, y, z }) => ({ id, x, y, z })) })
const positioner = new Positioner({ ...start.options, site, radioMap: map })
let applied = 0

/** This thread's heap and typed arrays (in a worker, `process.memoryUsage` counts its own isolate's). */
function heapBytes(): number {
  const m = process.memoryUsage()
  return m.heapUsed + m.arrayBuffers
}

port.on('message', (m: ToWorker) => {
  if (m.type === 'observe') {
    for (let i = 0; i < m.n; i++)
      positioner.observe({
        time: m.time[i],
        anchor: anchorIds[m.anchor[i]] ?? '',
        beacon: String(m.slot[i]),
        rssi: m.rssi[i],
      })
    for (const slot of m.forget) positioner.forget(String(slot))
    applied += m.n
    if (m.forget.length > 0) {
      // The owner gives these slots to new beacons only once this arrives.
      const reply: ForgottenMessage = { type: 'forgotten', slots: m.forget, applied }
      port.postMessage(reply, [m.forget.buffer as ArrayBuffer])
    }
    return
  }
  if (m.type === 'memory') {
    // Only a process started with --expose-gc (benchmarks) has gc: a settled figure then.
    ;(globalThis as { gc?: () => void }).gc?.()
    const reply: MemoryAnswer = { type: 'memory', id: m.id, heapBytes: heapBytes() }
    port.postMessage(reply)
    return
  }
  const t0 = performance.now()
  const fix = new Float64Array(3 * m.slots.length).fill(Number.NaN)
  let done = 0
  for (; done < m.slots.length; done++) {
    if (done > 0 && done % CLOCK_EVERY === 0 && performance.now() - t0 > m.budgetMs) break
    const slot = m.slots[done]
    const e = slot < 0 ? undefined : positioner.estimate(String(slot), m.time)
    if (e === undefined) continue
    fix[3 * done] = e.x
    fix[3 * done + 1] = e.y
    fix[3 * done + 2] = e.accuracy
  }
  const reply: FixesMessage = { type: 'fixes', id: m.id, done, fix, applied, heapBytes: heapBytes() }
  port.postMessage(reply, [fix.buffer])
})
