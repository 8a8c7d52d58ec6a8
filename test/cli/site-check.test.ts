// `beaconkit site check` lists every problem of a site file with where it is; `fleet --site` and
// `simulate --site` say the same as warnings when they start; the fleet warns once per gateway
// the site does not declare that publishes RSSI batches. Real processes, a real (embedded) broker.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mqtt from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { checkSiteJSON } from '../../src/fleet/site-check.js'
import { startBroker } from '../../src/mqtt/broker.js'
import type { RunningBroker } from '../../src/mqtt/broker.js'
import { freePort } from '../support/mosquitto.js'
import { logMessages, runCli, startCli } from './run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'site-check-'))
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

const demo = JSON.parse(readFileSync('fixtures/site-demo.json', 'utf8')) as Record<string, unknown>
/** The demo site with a floor plan that is not there and a room naming an undeclared gateway. */
const broken = {
  ...demo,
  image: 'no-such-plan.png',
  rooms: (demo.rooms as Record<string, unknown>[]).map((r, i) => (i === 2 ? { ...r, gateways: ['office-pi', 'ofice-pi'] } : r)),
}
const brokenFile = join(dir, 'broken.json')
writeFileSync(brokenFile, JSON.stringify(broken))

describe('beaconkit site check', () => {
  it('reports a missing image, a room naming an undeclared gateway and a bad gateway id, each with where it is: exit 2', async () => {
    const file = join(dir, 'bad.json')
    writeFileSync(file, JSON.stringify({ gateways: { 'kitchen-pi': { x: 1, y: 1 }, 'hall pi': { x: 2, y: 2 } }, image: 'plan.png', rooms: [{ name: 'Kitchen', gateways: ['kitchen-pi'] }, { name: 'Hall', gateways: ['kitchen-pi', 'hall-pi'] }] }))
    const r = await runCli(['site', 'check', file])
    expect(r.code).toBe(2)
    expect(r.stdout).toMatch(/^error +rooms\[1\]\.gateways\[1\]: gateway "hall-pi" is not declared under "gateways"/m)
    expect(r.stdout).toMatch(/^error +gateways\["hall pi"\]: is not an id a gateway can publish under/m)
    expect(r.stdout).toMatch(/^error +image: the floor plan .*plan\.png cannot be read \(ENOENT\)/m)
    expect(r.stdout).toMatch(/: 3 errors, 0 warnings \(2 gateways, 2 rooms\)\n$/)
  })

  it('exits 0 on a good site, and on one with warnings only (printed)', async () => {
    const good = await runCli(['site', 'check', 'fixtures/site-demo.json'])
    expect(good.code).toBe(0)
    expect(good.stdout).toBe('fixtures/site-demo.json: no problems found (4 gateways, 4 rooms)\n')
    const file = join(dir, 'half-placed.json')
    writeFileSync(file, JSON.stringify({ gateways: { a: { x: 1, y: 1 }, b: {} }, rooms: { Hall: ['a', 'b'] } }))
    const half = await runCli(['site', 'check', file])
    expect(half.code).toBe(0)
    expect(half.stdout).toMatch(/^warning gateways\.b: has no x, y while other gateways do: positions are off/m)
    // A room of the object form names its gateways by room: where says which.
    expect(checkSiteJSON({ gateways: { a: {} }, rooms: { Hall: ['a', 'z'] } }).problems).toEqual([expect.objectContaining({ severity: 'error', where: 'rooms.Hall[1]' })])
  })

  it('refuses a missing file, a file that is not JSON and a wrong command line with exit 2', async () => {
    const notJson = join(dir, 'not.json')
    writeFileSync(notJson, 'gateways: a')
    for (const args of [['site', 'check', join(dir, 'missing.json')], ['site', 'check', notJson], ['site', 'check'], ['site', 'verify', 'x.json']]) {
      const r = await runCli(args)
      expect(r.code).toBe(2)
      expect(r.stderr).toMatch(/site/)
    }
  })
})

describe('the site problems at the start of fleet and simulate --site, and unknown gateways in batches', () => {
  let broker: RunningBroker
  beforeAll(async () => {
    broker = await startBroker({ port: 0 })
  })
  afterAll(async () => {
    await broker?.close()
  })

  it('simulate --site warns of them on stderr and runs', async () => {
    const sim = startCli(['simulate', '--site', brokenFile, '--mqtt', broker.url])
    try {
      await sim.waitFor('watch it:')
    } finally {
      sim.child.kill('SIGTERM')
    }
    const r = await sim.done
    expect(r.code).toBe(0)
    const warned = logMessages(r.stderr, 'warn').join('\n')
    expect(warned).toMatch(/^site .*broken\.json: rooms\[2\]\.gateways\[1\]: gateway "ofice-pi" is not declared/m)
    expect(warned).toMatch(/^site .*broken\.json: image: the floor plan .*no-such-plan\.png cannot be read/m)
  }, 30_000)

  it('fleet --site warns of them at start, and once per gateway the site does not declare that publishes a batch', async () => {
    const port = await freePort()
    const fleet = startCli(['fleet', '--embedded-broker', String(port), '--site', brokenFile, '--json', '--duration', '6'])
    await fleet.waitFor('"event":"updated"')
    const gw = await mqtt.connectAsync(`mqtt://127.0.0.1:${port}`, { clientId: 'site-check-test-gateways', reconnectPeriod: 0 })
    try {
      for (let i = 0; i < 3; i++) {
        for (const gateway of ['stranger-pi', 'kitchen-pi']) {
          const now = Date.now()
          await gw.publishAsync(`beaconkit/gateways/${gateway}/rssi`, JSON.stringify({ gateway, time: now, readings: [{ id: 'tag-1', rssi: -60, lastSeen: now, count: 1 }] }), { qos: 1 })
        }
      }
    } finally {
      await gw.endAsync()
    }
    const r = await fleet.done
    expect(r.code).toBe(0)
    const warned = logMessages(r.stderr, 'warn')
    expect(warned.join('\n')).toMatch(/^site .*broken\.json: rooms\[2\]\.gateways\[1\]: gateway "ofice-pi" is not declared/m)
    expect(warned.filter((m) => m.startsWith('gateway stranger-pi publishes RSSI batches but is not in the site'))).toHaveLength(1)
    expect(r.stderr).not.toMatch(/gateway kitchen-pi publishes/)
  }, 30_000)
})
