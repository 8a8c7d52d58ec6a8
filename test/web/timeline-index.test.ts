// Seeking in a fleet recording (issue 23, item 15): the view at any moment is what a walk from
// the first line gives, but a seek replays at most CHECKPOINT_EVERY entries whatever the
// recording's length (it walked every line before the moment: 0.19 s at 400,000 lines).
import { afterEach, describe, expect, it } from 'vitest'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { FleetTimeline } from '../../src/web/timeline.js'
import { CHECKPOINT_EVERY, LOG, TimelineIndex } from '../../src/web/timeline-index.js'
import type { TimelineEntry } from '../../src/web/timeline-index.js'
import type { ViewLogEntry } from '../../src/web/view.js'
import type { FleetBeacon } from '../../src/fleet/fleet-beacon.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const T0 = 1_700_000_000_000

/** A recording-like sequence: keyframes every 600 entries, gateways flapping, beacons found and gone. */
function entries(n: number): TimelineEntry[] {
  const out: TimelineEntry[] = []
  const beacon = (id: string, t: number): FleetBeacon => ({ id, time: t, present: true, gateways: [{ gateway: 'g1', rssi: -60, lastSeen: t }], firstSeen: t, lastSeen: t })
  for (let i = 0; i < n; i++) {
    const t = T0 + i * 100
    if (i % 600 === 0) out.push({ t, event: 'keyframe', beacons: [beacon('b1', t)] })
    else if (i % 7 === 0) out.push({ t, event: 'found', id: `b${i % 50}` })
    else if (i % 13 === 0) out.push({ t, event: 'gone', id: `b${i % 50}` })
    else if (i % 11 === 0) out.push({ t, event: 'gateway', gateway: `g${i % 5}`, state: i % 2 === 1 ? 'online' : 'offline' })
    // The tracker forgets silent gateways; g1 hears the beacons, so it is never the one forgotten.
    else if (i % 17 === 0 && i % 5 !== 1) out.push({ t, event: 'gateway', gateway: `g${i % 5}`, state: 'forgotten' })
    else out.push({ t, event: 'beacons', beacons: [beacon(`b${i % 50}`, t)] })
  }
  return out
}

/** The walk from the start that seeking used to do: the reference. */
function walk(list: TimelineEntry[], last: number): { gateways: [string, string][]; log: ViewLogEntry[] } {
  const gateways = new Map<string, string>()
  const log: ViewLogEntry[] = []
  for (let i = 0; i <= last; i++) {
    const e = list[i]
    if (e.event === 'gateway') {
      if (e.state === 'forgotten') gateways.delete(e.gateway)
      else {
        gateways.set(e.gateway, e.state)
        log.push({ time: e.t, event: e.state, id: e.gateway })
      }
    } else if (e.event === 'found') log.push({ time: e.t, event: 'found', id: e.id })
    else if (e.event === 'gone') log.push({ time: e.t, event: 'gone', id: e.id })
  }
  return { gateways: [...gateways], log: log.slice(-LOG) }
}

describe('TimelineIndex', () => {
  it('gives the gateway states and the log a walk from the start gives, at every kind of position', () => {
    const list = entries(3 * CHECKPOINT_EVERY + 77)
    const index = new TimelineIndex(list)
    for (const last of [-1, 0, 1, 599, 600, CHECKPOINT_EVERY - 1, CHECKPOINT_EVERY, CHECKPOINT_EVERY + 1, 2 * CHECKPOINT_EVERY + 5, list.length - 1]) {
      const got = index.stateAt(last, [])
      const want = last < 0 ? { gateways: [], log: [] } : walk(list, last)
      expect([...got.gateways].map(([id, g]) => [id, g.state]), `gateways at ${last}`).toEqual(want.gateways)
      expect(got.log, `log at ${last}`).toEqual(want.log)
    }
    // Two keyframes back from a moment, by binary search.
    expect(index.replayFrom(0)).toBe(0)
    expect(index.replayFrom(1300)).toBe(600)
    expect(index.replayFrom(list.length - 1)).toBe(Math.floor((list.length - 1) / 600) * 600 - 600)
  })

  it('reads at most CHECKPOINT_EVERY entries per seek, however long the recording', () => {
    const list = entries(20 * CHECKPOINT_EVERY)
    let reads = 0
    // Counts the index's reads of the real entries (the array itself is unchanged).
    const counted = new Proxy(list, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) reads++
        return Reflect.get(target, key, receiver) as unknown
      },
    })
    const index = new TimelineIndex(counted)
    for (const last of [list.length - 1, Math.floor(list.length / 2), CHECKPOINT_EVERY * 7 + CHECKPOINT_EVERY - 1]) {
      reads = 0
      index.stateAt(last, [])
      expect(reads).toBeLessThanOrEqual(CHECKPOINT_EVERY)
    }
  })
})

describe('FleetTimeline seeking', () => {
  it('shows the same log and gateways at a late moment as the recording read in full', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-timeline-'))
    dirs.push(dir)
    const list = entries(2 * CHECKPOINT_EVERY + 300)
    const file = join(dir, 'fleet.jsonl')
    const lines = [JSON.stringify({ format: 'beaconkit-fleet', version: 1 }), ...list.map((e) => JSON.stringify(e.event === 'found' || e.event === 'gone' ? { t: e.t, event: e.event, id: e.id } : e))]
    writeFileSync(file, `${lines.join('\n')}\n`)
    const timeline = await FleetTimeline.load(file)
    expect(timeline.malformed).toBe(0)
    const at = list[list.length - 10].t
    const view = timeline.snapshot(at)
    const want = walk(list, list.length - 10)
    expect(view.log).toEqual(want.log)
    expect(view.gateways.map((g) => [g.id, g.state])).toEqual(want.gateways)
  })
})
