// The foreign-format parsers on the projects' own documented payloads (fixtures.ts names each
// source), and on what a hostile or broken publisher sends.
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ForeignBridge } from '../../src/inputs/bridge.js'
import { decodeAdvertisement } from '../../src/decode/decode.js'
import { espresenseParser } from '../../src/inputs/espresense.js'
import type { ForeignMessage } from '../../src/inputs/message.js'
import { parseInputSpec } from '../../src/inputs/inputs-spec.js'
import { omgParser, serviceUuid } from '../../src/inputs/omg.js'
import * as F from './fixtures.js'

const omg = omgParser('home')
const espr = espresenseParser('espresense')

function sighting(m: ForeignMessage): Extract<ForeignMessage, { kind: 'advertisement' }> {
  if (m.kind !== 'advertisement') throw new Error(`expected an advertisement, got ${JSON.stringify(m)}`)
  return m
}

function hex(bytes: Uint8Array | undefined): string | undefined {
  return bytes === undefined ? undefined : Buffer.from(bytes).toString('hex')
}

describe('OpenMQTTGateway / Theengs Gateway parser', () => {
  it('rebuilds a decoded iBeacon (the default, no raw data) so the decoder gives its beaconID', () => {
    const m = sighting(omg(F.OMG_IBEACON_DECODED.topic, F.OMG_IBEACON_DECODED.payload))
    expect(m.node).toBe('OpenMQTTGateway')
    expect(m.carries).toBe('ibeacon')
    expect(m.advertisement.address).toBe('58:78:20:76:bc:24')
    expect(m.advertisement.addressType).toBe('random')
    expect(m.advertisement.rssi).toBe(-79)
    const r = decodeAdvertisement({ ...m.advertisement, timestamp: 0 })
    expect(r?.proximityUUID).toBe('1DE4B189-115E-45F6-B44E-509352269977')
    expect(r?.major).toBe(0)
    expect(r?.minor).toBe(0)
    expect(r?.measuredPower).toBe(-66)
  })

  it('takes raw service data with OMG\'s 0x uuid form, and Theengs\' manufacturer data', () => {
    const q = sighting(omg(F.OMG_PUBADVDATA.topic, F.OMG_PUBADVDATA.payload))
    expect(q.carries).toBe('raw')
    expect(q.advertisement.serviceData?.[0]?.uuid).toBe('fdcd')
    expect(hex(q.advertisement.serviceData?.[0]?.data)).toBe('88121122334455660201520f0126090403000000')
    expect(q.advertisement.localName).toBe('Qingping Motion & Light')
    expect(q.advertisement.addressType).toBe('public')
    const t = sighting(omg(F.THEENGS_RAW.topic, F.THEENGS_RAW.payload))
    expect(t.node).toBe('TheengsGateway')
    expect(t.carries).toBe('raw')
    expect(hex(t.advertisement.manufacturerData)).toBe('4c0010060319247bbc68')
    expect(t.advertisement.address).toBe('54:94:5e:9f:64:c4')
  })

  it('reads the legacy lower-case id; service data without a uuid is not raw data', () => {
    const m = sighting(omg(F.OMG_LEGACY.topic, F.OMG_LEGACY.payload))
    expect(m.advertisement.address).toBe('45:e1:74:12:6e:00')
    expect(m.carries).toBe('address')
    expect(m.advertisement.serviceData).toBeUndefined()
  })

  it('service data uuids: 0xfeaa, feaa, the 128-bit form; nonsense is none', () => {
    expect(serviceUuid('0xFEAA')).toBe('feaa')
    expect(serviceUuid('feaa')).toBe('feaa')
    expect(serviceUuid('0000FEAA-0000-1000-8000-00805F9B34FB')).toBe('0000feaa-0000-1000-8000-00805f9b34fb')
    expect(serviceUuid('0x1')).toBeUndefined()
    expect(serviceUuid(7)).toBeUndefined()
  })

  it('availability, tracker timeouts, and what is not a sighting', () => {
    expect(omg(F.OMG_LWT, 'online')).toEqual({ kind: 'status', node: 'OpenMQTTGateway', online: true })
    expect(omg(F.OMG_LWT, 'offline')).toEqual({ kind: 'status', node: 'OpenMQTTGateway', online: false })
    expect(omg(F.OMG_LWT, 'maybe')).toEqual({ kind: 'rejected', reason: 'malformed' })
    expect(omg(F.OMG_TRACKER_OFFLINE.topic, F.OMG_TRACKER_OFFLINE.payload)).toEqual({ kind: 'ignored' })
    expect(omg('home/OpenMQTTGateway/commands/MQTTtoBT/config', '{}')).toEqual({ kind: 'ignored' })
    expect(omg('other/x/BTtoMQTT/y', '{}')).toEqual({ kind: 'ignored' })
  })

  it('rejects with a reason: a 3-byte doc id, absurd RSSI, malformed JSON, a bad node name', () => {
    expect(omg(F.THEENGS_DECODED_DOC_ID.topic, F.THEENGS_DECODED_DOC_ID.payload)).toEqual({ kind: 'rejected', reason: 'bad_address' })
    expect(omg(F.OMG_IBEACON_DECODED.topic, F.OMG_IBEACON_DECODED.payload.replace('-79', '-400'))).toEqual({ kind: 'rejected', reason: 'absurd_rssi' })
    expect(omg(F.OMG_IBEACON_DECODED.topic, F.OMG_IBEACON_DECODED.payload.replace('-79', '"-79"'))).toEqual({ kind: 'rejected', reason: 'absurd_rssi' })
    expect(omg(F.OMG_IBEACON_DECODED.topic, '{"id":')).toEqual({ kind: 'rejected', reason: 'malformed' })
    expect(omg(F.OMG_IBEACON_DECODED.topic, '[1,2]')).toEqual({ kind: 'rejected', reason: 'malformed' })
    expect(omg('home/bad gw/BTtoMQTT/x', F.OMG_IBEACON_DECODED.payload)).toEqual({ kind: 'rejected', reason: 'bad_node' })
    // Odd hex and oversized fields are dropped, the sighting stays.
    const odd = sighting(omg(F.THEENGS_RAW.topic, F.THEENGS_RAW.payload.replace('4c0010060319247bbc68', '4c0')))
    expect(odd.carries).toBe('address')
  })
})

describe('ESPresense parser', () => {
  it("turns an iBeacon: id into the iBeacon frame whose beaconID a Pi would decode", () => {
    const m = sighting(espr(F.ESPR_IBEACON.topic, F.ESPR_IBEACON.payload))
    expect(m.node).toBe('kitchen')
    expect(m.carries).toBe('ibeacon')
    expect(m.advertisement.address).toBe('df:51:fd:4a:4c:af')
    expect(m.advertisement.rssi).toBe(-72)
    // The bytes ESPresense issue #475 logged for this id, but the last (measured power): rssi@1m here.
    expect(hex(m.advertisement.manufacturerData)).toBe('4c000215fda50693a4e24fb1afcfc6eb076478250064ffffc5')
    const r = decodeAdvertisement({ ...m.advertisement, timestamp: 0 })
    expect(r?.major).toBe(100)
    expect(r?.minor).toBe(65535)
    expect(r?.measuredPower).toBe(-59)
    expect(r?.beaconID).toBeDefined()
  })

  it('takes the 1.x dashless uuid form; other ids count by mac only', () => {
    const old = sighting(espr('espresense/devices/x/hall', '{"id":"iBeacon:770cddcb2d3e145784de5874ce581250-1-2","mac":"aabbccddeeff","rssi":-70}'))
    expect(old.carries).toBe('ibeacon')
    const legacy = sighting(espr(F.ESPR_LEGACY.topic, F.ESPR_LEGACY.payload))
    expect(legacy.node).toBe('office')
    expect(legacy.carries).toBe('address')
    expect(legacy.advertisement.address).toBe('dc:30:56:78:9a:bc')
    expect(legacy.advertisement.localName).toBe('MH')
  })

  it('status, sub-reports and rejections', () => {
    expect(espr(F.ESPR_STATUS.topic, F.ESPR_STATUS.payload)).toEqual({ kind: 'status', node: 'study', online: true })
    expect(espr('espresense/devices/x/kitchen/battery', '{"battery":80}')).toEqual({ kind: 'ignored' })
    expect(espr('espresense/rooms/kitchen/telemetry', '{}')).toEqual({ kind: 'ignored' })
    expect(espr(F.ESPR_PARTIAL.topic, F.ESPR_PARTIAL.payload)).toEqual({ kind: 'rejected', reason: 'bad_address' })
    expect(espr(F.ESPR_IBEACON.topic, F.ESPR_IBEACON.payload.replace('-72.35', '999'))).toEqual({ kind: 'rejected', reason: 'absurd_rssi' })
    expect(espr(F.ESPR_IBEACON.topic, 'not json')).toEqual({ kind: 'rejected', reason: 'malformed' })
    expect(espr('espresense/devices/x/k\u00e4che', F.ESPR_IBEACON.payload)).toEqual({ kind: 'rejected', reason: 'bad_node' })
  })
})

describe('--input', () => {
  it('parses format, base and RSSI offset; refuses the rest with option input', () => {
    expect(parseInputSpec('espresense')).toEqual({ format: 'espresense', base: 'espresense' })
    expect(parseInputSpec('omg:home')).toEqual({ format: 'omg', base: 'home' })
    expect(parseInputSpec('theengs')).toEqual({ format: 'theengs', base: 'home' })
    expect(parseInputSpec('omg:site/ble@-4.5')).toEqual({ format: 'omg', base: 'site/ble', rssiOffsetDb: -4.5 })
    for (const bad of ['zigbee', 'omg:home/#', 'omg:a//b', 'espresense@99']) expect(() => parseInputSpec(bad), bad).toThrow(expect.objectContaining({ code: 'invalid_option', option: 'input' }))
  })
})

describe('ForeignBridge', () => {
  it('keeps the broker password out of util.inspect and JSON.stringify', () => {
    const bridge = new ForeignBridge({ url: 'mqtt://127.0.0.1:1', password: 'hunter2-secret', username: 'fleet', inputs: [{ format: 'omg', base: 'home' }, { format: 'theengs', base: 'home' }] })
    expect(inspect(bridge, { depth: 10, showHidden: true })).not.toContain('hunter2')
    expect(JSON.stringify(bridge)).not.toContain('hunter2')
    // OMG and Theengs under one base are one set of topics: listened to once.
    expect(bridge.toJSON().inputs).toEqual(['omg:home'])
  })
})
