// `beaconkit fleet teach` through Mosquitto (#39): a fleet started by startFleet with a
// fingerprint file and a simulated two-room site on a virtual clock; the command asks it to teach
// the Kitchen with a tag held there, the fleet records it, saves it and confirms (exit 0); the
// file is what the next fleet starts from. With no fleet on the broker the command says so and
// exits 75; a room the site does not have is refused (exit 1); a fleet restarted on the file
// knows the taught room.
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runFleetTeach } from '../../src/cli/commands/fleet-teach.js'
import { fleetRooms } from '../../src/gateway/fleet-rooms.js'
import { AWAY_DEFAULTS } from '../../src/gateway/settings/fleet.js'
import { startFleet } from '../../src/gateway/start-fleet.js'
import type { RunningFleet } from '../../src/gateway/start-fleet.js'
import { runSite } from '../../src/gateway/run-site.js'
import type { RunningSite } from '../../src/gateway/run-site.js'
import { SiteSimulator } from '../../src/simulation/site-simulator.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { stepTo } from '../support/site-lockstep.js'

const box = (x: number, y: number): number[][] => [
  [x, y],
  [x + 5, y],
  [x + 5, y + 4],
  [x, y + 4],
]
const PLAN = {
  gateways: { 'kitchen-pi': { x: 1.5, y: 2 }, 'living-pi': { x: 8.5, y: 2 } },
  rooms: [
    { name: 'Kitchen', polygon: box(0, 0) },
    { name: 'Living', polygon: box(5, 0) },
  ],
}
const HOUSE = {
  ...PLAN,
  beacons: [{ name: 'tag', serial: '0117C5F00011', at: [2.5, 2], intervalMs: 1000 }],
  radio: { shadowingDb: 2, fadingDb: 3 },
}

function sink(): { write(text: string): boolean; text: () => string } {
  let all = ''
  return { write: (t: string) => ((all += t), true), text: () => all }
}

describe.skipIf(!MOSQUITTO)(needsMosquitto('beaconkit fleet teach against a running fleet'), () => {
  let broker: Mosquitto
  let site: RunningSite | undefined
  let fleet: RunningFleet | undefined
  let dir: string

  beforeAll(async () => {
    broker = await Mosquitto.start()
    dir = await mkdtemp(join(tmpdir(), 'beaconkit-teach-'))
  })

  afterAll(async () => {
    await site?.close()
    await fleet?.stop()
    await broker?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('with no fleet on the broker: says so and exits 75', async () => {
    const err = sink()
    const code = await runFleetTeach(
      {
        command: 'fleet-teach',
        id: 'abc',
        room: 'Kitchen',
        seconds: 1,
        mqtt: { url: broker.url, homeAssistant: false },
      },
      { stdout: sink(), stderr: err },
    )
    expect(code).toBe(75)
    expect(err.text()).toContain('no fleet answered on beaconkit/fleet/teach within 11 s')
  }, 30_000)

  it('teaches a room, saves it, and the next fleet starts from it; an unknown room is refused', async () => {
    const file = join(dir, 'fingerprints.json')
    const sim = SiteSimulator.fromJSON(HOUSE, { virtual: true, seed: 2 })
    const clock = sim.clock
    if (clock === undefined) throw new Error('no virtual clock')
    const t0 = clock.now()
    const f = await startFleet(
      { mqtt: { url: broker.url, clientId: 'teach-fleet' }, site: PLAN, fleet: { fingerprints: file }, clock },
      { warn: () => undefined, stderr: { write: () => true } },
    )
    fleet = f
    await f.start()
    site = await runSite({ simulator: sim, url: broker.url, clientIdPrefix: 'teach' })
    await stepTo(site, f.tracker, t0 + 8000)
    const id = sim.idOf('tag') ?? 'tag'
    expect(f.tracker.get(id)).toBeDefined()

    const refusedErr = sink()
    const refused = await runFleetTeach(
      { command: 'fleet-teach', id, room: 'Attic', seconds: 3, mqtt: { url: broker.url, homeAssistant: false } },
      { stdout: sink(), stderr: refusedErr },
    )
    expect(refused).toBe(1)
    expect(refusedErr.text()).toContain('the site has no room Attic')

    const out = sink()
    const teaching = runFleetTeach(
      { command: 'fleet-teach', id, room: 'Kitchen', seconds: 3, mqtt: { url: broker.url, homeAssistant: false } },
      { stdout: out, stderr: sink() },
    )
    // The fleet records on the site's clock: keep the site going while the command waits.
    let code: number | undefined
    void teaching.then((c) => (code = c))
    for (let at = t0 + 9000; code === undefined && at < t0 + 60_000; at += 1000) {
      await stepTo(site, f.tracker, at)
      await new Promise((r) => setTimeout(r, 200))
    }
    expect(await teaching).toBe(0)
    expect(out.text()).toContain('Kitchen taught with')
    const saved = JSON.parse(await readFile(file, 'utf8')) as { samples: { room: string }[] }
    expect(saved.samples.map((s) => s.room)).toEqual(['Kitchen'])

    // A restart: the fleet's root reads the file back.
    const again = await fleetRooms({ away: AWAY_DEFAULTS, fingerprints: file }, sim.site, (t) => {
      throw new Error(t)
    })
    expect(again.rooms?.fingerprints.taught('Kitchen')).toBe(true)
    expect(again.rooms?.fingerprints.taught('Living')).toBe(false)

    // And a real one: the fleet stops (saving on its way out), a new fleet starts on the same file.
    await site.close()
    site = undefined
    await f.stop()
    fleet = undefined
    const restarted = await startFleet(
      { mqtt: { url: broker.url, clientId: 'teach-fleet-2' }, site: PLAN, fleet: { fingerprints: file } },
      { warn: () => undefined, stderr: { write: () => true } },
    )
    fleet = restarted
    expect(restarted.rooms?.rooms?.fingerprints.taught('Kitchen')).toBe(true)
    expect(restarted.rooms?.rooms?.fingerprints.taught('Living')).toBe(false)
    const resaved = JSON.parse(await readFile(file, 'utf8')) as { samples: { room: string }[] }
    expect(resaved.samples.map((s) => s.room)).toEqual(['Kitchen'])
  }, 120_000)
})
