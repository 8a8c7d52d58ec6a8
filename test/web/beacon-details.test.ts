// MqttBeaconDetails through a real (embedded) broker: the freshest known gateway's details, kept
// while any gateway still holds the beacon, and everything a hostile publisher can send (future
// times, unknown or huge gateway ids, floods of ids, huge payloads) clamped, skipped and counted.
import { afterEach, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { startBroker } from '../../src/mqtt/broker.js'
import { MqttBeaconDetails } from '../../src/web/beacon-details.js'
import type { MqttBeaconDetailsOptions } from '../../src/web/beacon-details.js'
import { FleetGateways } from '../../src/web/known-gateways.js'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { statusPayload } from '../../src/mqtt/payloads.js'
import { waitFor } from '../integration/wait.js'
import { SITE } from './fleet-driver.js'

const closers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

const topic = (gw: string, id = 'B1'): string => `beaconkit/gateways/${gw}/beacons/${id}`
function beacon(lastSeen: number, batteryLevel: number, verified = true, serialNumber = 'B1'): string {
  return JSON.stringify({ id: 'B1', address: 'aa:bb:cc:dd:ee:ff', serialNumber, batteryLevel, lastSeen, secure: { encrypted: true, verified } })
}

/** A broker, the details (with `options`) subscribed to it, and a plain client to publish as anyone. */
async function setup(options: Partial<MqttBeaconDetailsOptions> = {}): Promise<{ url: string; details: MqttBeaconDetails; client: MqttClient }> {
  const broker = await startBroker({ port: 0 })
  closers.push(() => broker.close())
  const details = new MqttBeaconDetails({ url: broker.url, ...options })
  closers.push(() => details.stop())
  await details.start()
  const client = await mqtt.connectAsync(broker.url, { clientId: 'details-test' })
  closers.push(() => client.endAsync())
  return { url: broker.url, details, client }
}

/** A witness that knows the gateways in a set the test changes. */
function known(...ids: string[]): { knows(g: string): boolean; ids: Set<string> } {
  const set = new Set(ids)
  return { ids: set, knows: (g) => set.has(g) }
}

describe('MqttBeaconDetails', () => {
  it('keeps a beacon while any gateway still publishes it; the freshest wins and is named; junk is counted', async () => {
    const { details, client } = await setup()
    await client.publishAsync(topic('gw-a'), beacon(100, 70), { qos: 1, retain: true })
    await client.publishAsync(topic('gw-b'), beacon(200, 71), { qos: 1, retain: true })
    await waitFor(() => details.details('B1')?.battery === 71, 'the fresher gateway\'s details')
    // "verified" is the gateways' claim, with their names: the fleet never saw the bytes.
    expect(details.details('B1')).toEqual({ address: 'aa:bb:cc:dd:ee:ff', serialNumber: 'B1', battery: 71, reportedBy: 'gw-b', claims: { verified: ['gw-a', 'gw-b'], notVerified: [] } })
    // gw-b lost it (empty retained message); gw-a still hears it.
    await client.publishAsync(topic('gw-b'), '', { qos: 1, retain: true })
    await waitFor(() => details.details('B1')?.battery !== 71, 'gw-b clearing the beacon')
    expect(details.details('B1')?.battery).toBe(70)
    await client.publishAsync(topic('gw-a'), '', { qos: 1, retain: true })
    await waitFor(() => details.details('B1') === undefined, 'the last gateway clearing the beacon')
    await client.publishAsync(topic('gw-c'), '{not json', { qos: 1 })
    await client.publishAsync(topic('gw-c'), JSON.stringify({ lastSeen: 'yesterday' }), { qos: 1 })
    await waitFor(() => details.malformed === 2, 'the junk counted')
    expect(details.details('B1')).toBeUndefined()
  })

  it('shows each value from the freshest state that has it, as the fleet picks values, and credits that gateway (#35 item 20)', async () => {
    const { details, client } = await setup()
    // gw-near hears the tag loud and clear: its state carries the sensor frame's values. gw-far
    // hears it weakly, mostly its iBeacon frame: its state is fresher and has none of them.
    const near = {
      id: 'B1', serialNumber: 'B1', hardwareModelName: 'E7', batteryLevel: 90, temperature: 21.5, light: 120, moving: false,
      rssi: -48, lastSeen: 1000,
    }
    const far = { id: 'B1', serialNumber: 'B1', rssi: -93, lastSeen: 1500 }
    await client.publishAsync(topic('gw-near'), JSON.stringify(near), { qos: 1, retain: true })
    await client.publishAsync(topic('gw-far'), JSON.stringify(far), { qos: 1, retain: true })
    await waitFor(() => details.stats.held === 2, 'both states')
    // The tracker's fused values (beacon-values.ts) take each from the freshest state that has it:
    // all of the sensors from gw-near. The panel says the same, and whose claim each value is.
    expect(details.details('B1')).toEqual({
      serialNumber: 'B1', model: 'E7', battery: 90, temperature: 21.5, light: 120, moving: false,
      reportedBy: 'gw-near',
      sources: [
        { gateway: 'gw-near', fields: ['model', 'battery', 'temperature', 'light', 'moving'] },
        { gateway: 'gw-far', fields: ['serialNumber'] },
      ],
    })
  })

  it('a state dated in the future is clamped to its arrival: honest later states replace it', async () => {
    const { details, client } = await setup({ gateways: known('gw-a', 'gw-b') })
    const now = Date.now()
    await client.publishAsync(topic('gw-a'), beacon(now, 70), { qos: 1, retain: true })
    await waitFor(() => details.details('B1')?.battery === 70, 'the honest state')
    // Anyone on the broker, posing as a known gateway, dates a fake a year ahead.
    await client.publishAsync(topic('gw-b'), beacon(now + 365 * 86_400_000, 5, true, 'FAKE'), { qos: 1, retain: true })
    await waitFor(() => details.details('B1')?.serialNumber === 'FAKE', 'the spoof, while it is the latest word')
    await new Promise((r) => setTimeout(r, 20))
    // The real gateway's next state (dated now, after the spoof arrived) wins again.
    await client.publishAsync(topic('gw-a'), beacon(Date.now(), 69, false), { qos: 1, retain: true })
    await waitFor(() => details.details('B1')?.battery === 69, 'the honest later state')
    expect(details.details('B1')).toMatchObject({ serialNumber: 'B1', reportedBy: 'gw-a', claims: { verified: ['gw-b'], notVerified: ['gw-a'] } })
    expect(details.stats.clamped).toBe(1)
  })

  it('shows only gateways the fleet knows; ids are checked; floods and huge payloads are bounded and counted', async () => {
    const witness = known('gw-a')
    const { details, client } = await setup({ gateways: witness, limits: { unknown: 50 } })
    const now = Date.now()
    await client.publishAsync(topic('gw-a'), beacon(now - 1000, 70), { qos: 1 })
    await client.publishAsync(topic('intruder'), beacon(now, 5, true, 'FAKE'), { qos: 1 })
    await waitFor(() => details.stats.unknownGateway === 1, 'the unknown gateway counted')
    expect(details.details('B1')).toMatchObject({ serialNumber: 'B1', reportedBy: 'gw-a', claims: { verified: ['gw-a'] } })
    // A 1 kB gateway id, and a payload past the bound: skipped before any parse.
    await client.publishAsync(topic('g'.repeat(1024)), beacon(now, 1), { qos: 1 })
    await client.publishAsync(topic('gw-a'), JSON.stringify({ lastSeen: now, pad: 'x'.repeat(20_000) }), { qos: 1 })
    await waitFor(() => details.stats.invalidId === 1 && details.stats.tooLarge === 1, 'the bad id and the huge payload counted')
    // A gateway the fleet learns of later: what it published before is shown then.
    witness.ids.add('intruder')
    expect(details.details('B1')).toMatchObject({ serialNumber: 'FAKE', reportedBy: 'intruder', claims: { verified: ['gw-a', 'intruder'] } })
    // Many distinct unknown gateways for one beacon and for many beacons: a bounded set aside.
    for (let i = 0; i < 300; i++) client.publish(topic(`fake-${i}`, i % 2 === 0 ? 'B1' : `X${i}`), beacon(now, 1), { qos: 0 })
    await client.publishAsync(topic('fake-last'), beacon(now, 1), { qos: 1 })
    await waitFor(() => details.stats.unknownGateway === 302, 'every flooded state seen')
    expect(details.stats.held).toBeLessThanOrEqual(51)
    expect(details.stats.dropped).toBeGreaterThanOrEqual(200)
    // The known gateways' states were never pushed out by the flood.
    expect(details.details('B1')?.claims?.verified).toEqual(['gw-a', 'intruder'])
  })
})

describe('FleetGateways', () => {
  it('with a site, knows exactly its gateways; without, those the tracker holds (batches or a status)', async () => {
    const broker = await startBroker({ port: 0 })
    closers.push(() => broker.close())
    const tracker = new FleetTracker({ url: broker.url })
    closers.push(() => tracker.stop())
    await tracker.start()
    const bySite = new FleetGateways(tracker, SITE)
    const heard = new FleetGateways(tracker)
    const client = await mqtt.connectAsync(broker.url, { clientId: 'gateways-test' })
    closers.push(() => client.endAsync())
    expect(bySite.knows('gw-hall')).toBe(true)
    expect(bySite.knows('gw-x')).toBe(false)
    expect(heard.knows('gw-x')).toBe(false)
    await client.publishAsync('beaconkit/gateways/gw-x/status', statusPayload('online', Date.now()), { qos: 1 })
    await client.publishAsync('beaconkit/gateways/gw-y/rssi', JSON.stringify({ gateway: 'gw-y', time: Date.now(), readings: [{ id: 'B1', rssi: -60, lastSeen: Date.now() }] }), { qos: 1 })
    await waitFor(() => heard.knows('gw-x') && heard.knows('gw-y'), 'the gateways the tracker heard')
    expect(bySite.knows('gw-x')).toBe(false)
    expect(heard.knows('gw-z')).toBe(false)
  })
})
