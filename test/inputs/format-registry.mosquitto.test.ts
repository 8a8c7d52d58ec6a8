/**
 * The format registry is the bridge's only seam (issue #36): a format registered here, in the
 * test, is parsed from `--input`, subscribed to, parsed, noted and retired by the ForeignBridge
 * without any change to the bridge. The format is made up: a line protocol, not JSON, so nothing
 * of OMG's or ESPresense's parsing can be what makes it work.
 */
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { beaconIdOf, encodeIBeacon } from '../../src/frames/ibeacon.js'
import { ForeignBridge } from '../../src/inputs/bridge.js'
import type { InputFormat } from '../../src/inputs/format.js'
import { registerInputFormat } from '../../src/inputs/formats.js'
import { parseInputSpec } from '../../src/inputs/inputs-spec.js'
import type { ForeignMessage } from '../../src/inputs/message.js'
import { availability, isNodeId, levelsUnder, rssiOf } from '../../src/inputs/message-checks.js'
import { waitFor } from '../integration/wait.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'

const TAG_ID = beaconIdOf('FDA50693-A4E2-4FB1-AFCF-C6EB07647825', 3, 4)
const MD = Buffer.from(encodeIBeacon({ proximityUUID: 'FDA50693-A4E2-4FB1-AFCF-C6EB07647825', major: 3, minor: 4, measuredPower: -59 })).toString('hex')

/** `<base>/<node>/seen` carries `<mac> <rssi> [<manufacturer data hex>]`; `<base>/<node>/state` is the node's will. */
const lineGateway: InputFormat = {
  name: 'linegw',
  title: 'LineGW',
  usage: 'linegw[:<base>]',
  defaultBase: 'lines',
  nodeNoun: 'node',
  liveness: 'will',
  filters: (base) => [`${base}/+/seen`, `${base}/+/state`],
  parser:
    (base) =>
    (topic, payload): ForeignMessage => {
      const levels = levelsUnder(topic, base)
      if (levels?.length !== 2) return { kind: 'ignored' }
      const [node, what] = levels as [string, string]
      if (!isNodeId(node)) return { kind: 'rejected', reason: 'bad_node' }
      if (what === 'state') {
        const online = availability(payload)
        return online === undefined ? { kind: 'rejected', reason: 'malformed' } : { kind: 'status', node, online }
      }
      if (what !== 'seen') return { kind: 'ignored' }
      const [address, rssiText, hex] = payload.trim().split(' ')
      const rssi = rssiOf(Number(rssiText))
      if (address === undefined || !/^([0-9a-f]{2}:){5}[0-9a-f]{2}$/.test(address)) return { kind: 'rejected', reason: 'bad_address' }
      if (rssi === undefined || rssi === 'absurd') return { kind: 'rejected', reason: 'absurd_rssi' }
      if (hex === undefined) return { kind: 'advertisement', node, advertisement: { address, rssi }, carries: 'address' }
      return { kind: 'advertisement', node, advertisement: { address, rssi, manufacturerData: Uint8Array.from(Buffer.from(hex, 'hex')) }, carries: 'raw' }
    },
  limitNote: (node) => `LineGW node ${node} sent a line without bytes`,
}

describe('a format registered outside the registry file', () => {
  let unregister: () => void = () => undefined
  beforeAll(() => {
    unregister = registerInputFormat(lineGateway)
  })
  afterAll(() => unregister())

  it('is an --input like the shipped ones: parsed, defaulted, listed in the error; gone once unregistered', () => {
    expect(parseInputSpec('linegw')).toEqual({ format: 'linegw', base: 'lines' })
    expect(parseInputSpec('linegw:site/lines@-2')).toEqual({ format: 'linegw', base: 'site/lines', rssiOffsetDb: -2 })
    expect(() => parseInputSpec('zigbee')).toThrow(/use espresense, omg\[:<base>\], theengs\[:<base>\] or linegw\[:<base>\],/)
    expect(() => registerInputFormat(lineGateway)).toThrow(TypeError)
    const bridge = new ForeignBridge({ url: 'mqtt://127.0.0.1:1', inputs: [parseInputSpec('linegw:tiny')] })
    expect(bridge.toJSON().inputs).toEqual(['linegw:tiny'])
    bridge.onMessage('tiny/attic/seen', Buffer.from('not-a-mac -60'))
    expect(bridge.stats.rejected.bad_address).toBe(1)
  })

  describe.skipIf(!MOSQUITTO)(needsMosquitto('the bridge on a registered format'), () => {
    let broker: Mosquitto
    let node: MqttClient | undefined
    let bridge: ForeignBridge | undefined
    let tracker: FleetTracker | undefined

    beforeAll(async () => {
      broker = await Mosquitto.start()
    })

    afterAll(async () => {
      await tracker?.stop(2000)
      await bridge?.close(1000)
      node?.end(true)
      await broker?.close()
    })

    it('subscribes to its topics, makes its node a fleet gateway, says its note once and retires the node on its will', async () => {
      tracker = new FleetTracker({ url: broker.url, clientId: 'seam-tracker', topicPrefix: 'seam', dwellMs: 500 })
      bridge = new ForeignBridge({ url: broker.url, clientId: 'seam-bridge', topicPrefix: 'seam', inputs: [parseInputSpec('linegw:tiny')] })
      const warnings: string[] = []
      bridge.on('warning', (w) => warnings.push(w))
      await bridge.start()
      await tracker.start()
      node = await mqtt.connectAsync(broker.url, { clientId: 'seam-node', reconnectPeriod: 0 })
      const n = node
      const timer = setInterval(() => {
        void n.publishAsync('tiny/attic/seen', `df:51:fd:4a:4c:af -61 ${MD}`)
        void n.publishAsync('tiny/attic/seen', 'c0:ff:ee:00:00:01 -70')
      }, 100)
      try {
        await waitFor(() => tracker?.get(TAG_ID)?.gateways.some((g) => g.gateway === 'attic') === true, 'the tag heard by the LineGW node', 30_000)
      } finally {
        clearInterval(timer)
      }
      expect(bridge.nodes()).toEqual(['attic'])
      expect(bridge.stats.advertisements.raw).toBeGreaterThan(1)
      expect(bridge.stats.advertisements.address).toBeGreaterThan(1)
      expect(warnings.filter((w) => w === 'LineGW node attic sent a line without bytes')).toHaveLength(1)
      await node.publishAsync('tiny/attic/state', 'offline')
      await waitFor(() => bridge?.nodes().length === 0, 'the node retired on its will', 10_000)
    }, 60_000)
  })
})
