// `beaconkit fleet --json` with the room method (#39): beside the events, a line of the learnt
// gateway offsets (and the taught fingerprints' count); the floor event is one of its events.
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runFleet } from '../../src/cli/commands/fleet-view.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'

describe.skipIf(!MOSQUITTO)(needsMosquitto('fleet --json prints the learnt offsets'), () => {
  let broker: Mosquitto
  let dir: string

  beforeAll(async () => {
    broker = await Mosquitto.start()
    dir = await mkdtemp(join(tmpdir(), 'beaconkit-json-offsets-'))
  })

  afterAll(async () => {
    await broker?.close()
    await rm(dir, { recursive: true, force: true })
  })

  it('prints an offsets line with the room method on a site of placed gateways', async () => {
    const site = join(dir, 'site.json')
    await writeFile(
      site,
      JSON.stringify({
        gateways: { a: { x: 1, y: 1 }, b: { x: 8, y: 1 } },
        rooms: [
          {
            name: 'Hall',
            polygon: [
              [0, 0],
              [10, 0],
              [10, 4],
              [0, 4],
            ],
          },
        ],
      }),
    )
    let out = ''
    const code = await runFleet(
      { mqtt: { url: broker.url, clientId: 'json-offsets', homeAssistant: false }, site, json: true, durationMs: 2500 },
      {
        stdout: { write: (t: string) => ((out += t), true), on: () => undefined, off: () => undefined },
        stderr: { write: () => true },
      },
    )
    expect(code).toBe(0)
    const lines = out
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { event: string; offsets?: unknown[]; fingerprints?: number })
    const offsets = lines.find((l) => l.event === 'offsets')
    expect(offsets).toMatchObject({ offsets: [], fingerprints: 0 })
  }, 30_000)
})
