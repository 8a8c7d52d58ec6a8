// MqttBeaconDetails through a real (embedded) broker: the freshest gateway's details, kept while
// any gateway still holds the beacon, and junk skipped.
import { afterEach, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import { startBroker } from '../../src/mqtt/broker.js'
import { MqttBeaconDetails } from '../../src/web/beacon-details.js'
import { waitFor } from '../integration/wait.js'

const closers: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0).reverse()) await c()
})

describe('MqttBeaconDetails', () => {
  it('keeps a beacon while any gateway still publishes it; the freshest wins; junk is counted', async () => {
    const broker = await startBroker({ port: 0 })
    closers.push(() => broker.close())
    const details = new MqttBeaconDetails({ url: broker.url })
    closers.push(() => details.stop())
    await details.start()
    const client = await mqtt.connectAsync(broker.url, { clientId: 'details-test' })
    closers.push(() => client.endAsync())
    const topic = (gw: string): string => `beaconkit/gateways/${gw}/beacons/B1`
    const beacon = (lastSeen: number, batteryLevel: number): string => JSON.stringify({ id: 'B1', address: 'aa:bb:cc:dd:ee:ff', serialNumber: 'B1', batteryLevel, lastSeen, secure: { encrypted: true, verified: true } })
    await client.publishAsync(topic('gw-a'), beacon(100, 70), { qos: 1, retain: true })
    await client.publishAsync(topic('gw-b'), beacon(200, 71), { qos: 1, retain: true })
    await waitFor(() => details.details('B1')?.battery === 71, 'the fresher gateway\'s details')
    expect(details.details('B1')).toEqual({ address: 'aa:bb:cc:dd:ee:ff', serialNumber: 'B1', battery: 71, verified: true })
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
})
