// Two FleetTrackers behind one Mosquitto split the beacons by RSSI partition (gateways publish
// partitioned batches, trackers hold partitions through $share subscriptions): each sees a
// disjoint set, the union is every beacon, and neither the join of the second nor the crash of
// one (its connection cut without a DISCONNECT, so Mosquitto sends its last will) makes a beacon
// go or be found again: the partitions that change hands are seeded from the retained states.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseAdvertisementLine } from '../../src/advertisement.js'
import type { Advertisement } from '../../src/advertisement.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import { rssiPartition } from '../../src/mqtt/partition.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import type { FleetTrackerOptions } from '../../src/fleet/tracker-types.js'
import { RealClock } from '../../src/clock.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { startProxy } from '../support/tcp-proxy.js'
import type { TcpProxy } from '../support/tcp-proxy.js'
import { PushSource } from '../support/push-source.js'
import { waitFor } from '../integration/wait.js'
import { ibeaconLine, T0 } from '../sources/helpers.js'

const P = 8
const BEACONS = 24

function adv(line: string): Advertisement {
  const parsed = parseAdvertisementLine(line)
  if (parsed.kind !== 'advertisement') throw new Error('bad test line')
  return parsed.advertisement
}

interface Watched {
  tracker: FleetTracker
  found: string[]
  gone: string[]
  partitions: number[]
  updates: number
}

describe.skipIf(!MOSQUITTO)(needsMosquitto('two FleetTrackers split the beacons through Mosquitto shared subscriptions'), () => {
  let broker: Mosquitto
  let proxy: TcpProxy | undefined
  const trackers: FleetTracker[] = []
  const stops: (() => Promise<void>)[] = []
  let pusher: NodeJS.Timeout | undefined

  beforeAll(async () => {
    broker = await Mosquitto.start()
  })

  afterAll(async () => {
    if (pusher !== undefined) clearInterval(pusher)
    for (const t of trackers) await t.stop(1000)
    for (const stop of stops) await stop()
    await proxy?.cut()
    await broker?.close()
  })

  async function gateway(id: string, rssi: number): Promise<PushSource> {
    const source = new PushSource(new RealClock())
    const scanner = new BeaconScanner({ source, updateIntervalMs: 200, goneTimeoutMs: 1500 })
    const publisher = new MqttPublisher({ url: broker.url, clientId: `scale-gw-${id}`, gatewayId: id, rssiPartitions: P, minIntervalMs: 500, heartbeatMs: 2000 })
    publisher.attach(scanner)
    await publisher.connect()
    await scanner.start()
    stops.push(async () => {
      await publisher.close(1000)
      await scanner.stop()
    })
    ;(source as PushSource & { rssi: number }).rssi = rssi
    return source
  }

  function watch(url: string, trackerId: string): Watched {
    const options: FleetTrackerOptions = { url, clientId: `scale-${trackerId}`, scaleOut: { partitions: P, trackerId }, goneTimeoutMs: 4000, hearingMs: 3000, publishIntervalMs: 500, reconnect: { initialDelayMs: 100 } }
    const tracker = new FleetTracker(options)
    trackers.push(tracker)
    const w: Watched = { tracker, found: [], gone: [], partitions: [], updates: 0 }
    tracker.on('found', (b) => w.found.push(b.id))
    tracker.on('gone', (b) => w.gone.push(b.id))
    tracker.on('partitions', (p) => (w.partitions = p.partitions))
    tracker.on('updated', () => w.updates++)
    tracker.on('error', () => undefined)
    return w
  }

  const ids = (w: Watched): string[] => w.tracker.beacons().map((b) => b.id).sort()

  it('splits the partitions, hands them over on join and on a crash, and loses no beacon', async () => {
    const sources = [await gateway('east', -60), await gateway('west', -70)]
    pusher = setInterval(() => {
      const ms = Date.now() - T0
      for (const s of sources) for (let minor = 1; minor <= BEACONS; minor++) s.emit('advertisement', adv(ibeaconLine(ms, `aa:00:00:00:00:${minor.toString(16).padStart(2, '0')}`, 7, minor, (s as PushSource & { rssi: number }).rssi)))
    }, 100)

    // One tracker alone holds every partition and finds every beacon.
    const alpha = watch(broker.url, 'alpha')
    await alpha.tracker.start()
    await waitFor(() => alpha.partitions.length === P && alpha.tracker.beacons().length === BEACONS, 'alpha holding all partitions and beacons', 30_000)
    const all = ids(alpha)
    expect(alpha.found.sort()).toEqual(all)
    // Every beacon heard by both gateways (the partitioned batches carry both).
    await waitFor(() => alpha.tracker.beacons().every((b) => b.gateways.length === 2), 'both gateways in every beacon', 30_000)

    // A second tracker joins (through a relay the test can cut): the partitions split.
    proxy = await startProxy(broker.port)
    const beta = watch(proxy.url, 'beta')
    await beta.tracker.start()
    await waitFor(() => beta.partitions.length > 0 && alpha.partitions.length + beta.partitions.length === P, 'the partitions split', 30_000)
    expect([...alpha.partitions, ...beta.partitions].sort((a, b) => a - b)).toEqual([...Array(P).keys()])
    expect(alpha.partitions.length).toBeGreaterThan(0)
    const holder = (id: string): Watched => (beta.partitions.includes(rssiPartition(id, P)) ? beta : alpha)
    await waitFor(() => ids(alpha).length + ids(beta).length === BEACONS && [...ids(alpha), ...ids(beta)].every((id) => holder(id).tracker.get(id) !== undefined), 'each beacon at the tracker of its partition', 30_000)
    expect([...ids(alpha), ...ids(beta)].sort()).toEqual(all)
    expect(ids(alpha).filter((id) => ids(beta).includes(id))).toEqual([])
    expect(ids(beta).length).toBeGreaterThan(0)
    // The handover was quiet: beta took its beacons from the retained states, alpha let them go.
    expect(beta.found).toEqual([])
    expect(alpha.gone).toEqual([])
    expect(beta.tracker.stats.seeded).toBe(ids(beta).length)
    expect(alpha.tracker.stats.released).toBe(ids(beta).length)
    // Still split a few seconds on (beyond the gone timeout): nothing went anywhere.
    const mark = alpha.updates
    await waitFor(() => alpha.updates >= mark + 5, 'five more seconds', 30_000)
    expect([...ids(alpha), ...ids(beta)].sort()).toEqual(all)
    expect([alpha.gone, beta.gone, beta.found]).toEqual([[], [], []])

    // Beta crashes: its connection is cut, Mosquitto sends its last will, alpha takes over.
    await proxy.cut()
    await waitFor(() => alpha.partitions.length === P, 'alpha holding every partition again', 30_000)
    await waitFor(() => alpha.tracker.beacons().length === BEACONS, 'alpha tracking every beacon again', 30_000)
    const after = alpha.updates
    await waitFor(() => alpha.updates >= after + 6, 'six more seconds (beyond the 4 s gone timeout)', 30_000)
    expect(ids(alpha)).toEqual(all)
    // No beacon was reported gone, or found again, by either handover.
    expect(alpha.gone).toEqual([])
    expect(alpha.found.sort()).toEqual(all)
    expect(alpha.tracker.stats.seeded).toBeGreaterThan(0)
  }, 120_000)
})
