// Bad input never throws and never yields NaN, Infinity or out-of-range values: 100,000 random
// and mutated advertisements through the pure decoder and the caching one, with and without keys.
// Readings, and the beacons a scanner merges them into, also keep the consistency rule of
// merged values (test/support/consistency.ts): fields from one byte are replaced together.
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { decodeAdvertisement } from '../src/decode/decode.js'
import { Decoder } from '../src/decode/decoder.js'
import { encodeIBeacon, VENDOR_DEFAULT_UUID } from '../src/frames/ibeacon.js'
import { encodeE780 } from '../src/frames/e780.js'
import { encodeE781 } from '../src/frames/e781.js'
import { ADVERTISING_INTERVALS_MS } from '../src/frames/bit-fields.js'
import { Keyring } from '../src/secure/keyring.js'
import { parseBroadcastKey } from '../src/secure/broadcast-key.js'
import type { Advertisement } from '../src/advertisement.js'
import type { Beacon, BeaconReading } from '../src/reading.js'
import { VirtualClock } from '../src/clock.js'
import { BeaconScanner } from '../src/scanner/scanner.js'
import { PushSource } from './support/push-source.js'
import { inconsistencies } from './support/consistency.js'

const key = parseBroadcastKey('7b4b5ff594fdaf8f9fc7f2b494e400016f461205')
const keyring = new Keyring([key])

const valid: { uuid: string | null; data: Uint8Array }[] = [
  { uuid: null, data: encodeIBeacon({ proximityUUID: VENDOR_DEFAULT_UUID, major: 1, minor: 2, measuredPower: -59 }) },
  { uuid: '80e7', data: encodeE780({ hardwareModelName: 'A0', firmwareVersion: '1.0', major: 1, minor: 2, serialNumber: 'AABBCCDDEEFF', batteryLevel: 50 }) },
  { uuid: '80e7', data: encodeE780({ hardwareModelName: 'B0', firmwareVersion: '2.1', major: 1, minor: 2, serialNumber: '0117C5000001', temperature: 3, light: 9, accelerometerCount: 4, movingState: 'moving' }) },
  { uuid: '80e7', data: encodeE780({ hardwareModelName: 'B0', firmwareVersion: '4.3', major: 1, minor: 2, serialNumber: '0117C5000001', temperature: 3, light: 9, accelerometerCount: 4, movingState: 'still' }) },
  { uuid: '81e7', data: encodeE781({ mode: 0x10, hardwareModelName: 'C0', firmwareVersion: '4.3', serialNumber: '0117C5000001', major: 5, minor: 6, batteryLevel: 80, measuredPower: -60 }) },
  { uuid: '81e7', data: encodeE781({ mode: 0x20, hardwareModelName: 'C0', firmwareVersion: '4.3', serialNumber: '0117C5000001', temperature: 20, light: 0.405 }) },
  { uuid: '81e7', data: encodeE781({ mode: 0x30, hardwareModelName: 'C0', firmwareVersion: '2.3', serialNumber: '0117C5000001', major: 5, minor: 6 }) },
  { uuid: '81e7', data: encodeE781({ mode: 0x50, hardwareModelName: 'C8', firmwareVersion: '4.3', serialNumber: '0117C5000001' }) },
  { uuid: '81e7', data: encodeE781({ mode: 0x41, hardwareModelName: 'C0', firmwareVersion: '4.3', serialNumber: '0117C5000001', major: 5, minor: 6, batteryLevel: 80, transmitPower: 3, advertisingInterval: 100, measuredPower: -60 }, { key, randomCode: 7 }) },
  { uuid: '81e7', data: encodeE781({ mode: 0x42, hardwareModelName: 'C0', firmwareVersion: '4.3', serialNumber: '0117C5000001', batteryLevel: 80, transmitPower: 3, advertisingInterval: 100, measuredPower: -60, movingState: 'still', temperature: 1, light: 0 }, { key, randomCode: 8 }) },
  // Partners of one byte that a later frame must replace together: moving/movingState (moving,
  // then unknown or disabled), transmit-power level and dBm (models with different tables).
  { uuid: '80e7', data: encodeE780({ hardwareModelName: 'B0', firmwareVersion: '4.3', major: 1, minor: 2, serialNumber: '0117C5000001', temperature: 3, light: 9, accelerometerCount: 4, movingState: 'unknown' }) },
  { uuid: '81e7', data: encodeE781({ mode: 0x20, hardwareModelName: 'C0', firmwareVersion: '4.3', serialNumber: '0117C5000001', temperature: 20, light: 0.405, movingState: 'disabled' }) },
  { uuid: '81e7', data: encodeE781({ mode: 0x10, hardwareModelName: 'B0', firmwareVersion: '4.3', serialNumber: '0117C5000001', major: 5, minor: 6, batteryLevel: 80, transmitPower: 9, advertisingInterval: 100, measuredPower: -60 }) },
  { uuid: '81e7', data: encodeE781({ mode: 0x10, hardwareModelName: 'A0', firmwareVersion: '4.3', serialNumber: '0117C5000001', major: 5, minor: 6, batteryLevel: 80, transmitPower: 2, measuredPower: -60 }) },
  { uuid: 'feaa', data: Uint8Array.from(Buffer.from('20000bb8190000000064000003e8', 'hex')) },
  { uuid: 'feaa', data: Uint8Array.from(Buffer.from('10e702676f6f676c6500', 'hex')) },
]

const uuidArb = fc.constantFrom('81e7', '81E7', '80e7', '80E7', 'feaa', 'FEAA', 'e781', '000081e7-0000-1000-8000-00805f9b34fb', '', 'zzzz', '1234')
const bytesArb = fc.uint8Array({ maxLength: 40 })

/** A valid frame with bytes flipped, cut short or extended. */
const mutatedArb = fc.record({
  pick: fc.integer({ min: 0, max: valid.length - 1 }),
  flips: fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 4 }),
  cut: fc.option(fc.nat({ max: 30 }), { nil: undefined }),
  extra: fc.uint8Array({ maxLength: 4 }),
}).map(({ pick, flips, cut, extra }) => {
  const data = valid[pick].data.slice()
  for (const [at, v] of flips) data[at % data.length] = v
  const cutData = cut === undefined ? data : data.subarray(0, Math.min(cut, data.length))
  return { uuid: valid[pick].uuid, data: Uint8Array.from([...cutData, ...(extra.length > 2 ? extra : [])]) }
})

const elementArb = fc.oneof(
  fc.record({ uuid: fc.oneof(uuidArb, fc.constant(null)), data: bytesArb }),
  mutatedArb,
)

const advertisementArb: fc.Arbitrary<Advertisement> = fc
  .record({
    elements: fc.array(elementArb, { maxLength: 4 }),
    rssi: fc.oneof(fc.integer({ min: -127, max: 20 }), fc.constantFrom(0, 127, -200, Number.NaN, Infinity)),
    address: fc.constantFrom('aa:bb:cc:dd:ee:01', 'aa:bb:cc:dd:ee:02', 'aa:bb:cc:dd:ee:03'),
    timestamp: fc.oneof(fc.nat(), fc.constant(Number.NaN)),
  })
  .map(({ elements, rssi, address, timestamp }) => {
    const adv: Advertisement = { address, rssi, timestamp }
    for (const e of elements) {
      if (e.uuid === null) adv.manufacturerData = e.data
      else (adv.serviceData ??= []).push({ uuid: e.uuid, data: e.data })
    }
    return adv
  })

const SERIAL = /^[0-9A-F]{12}$/
const UUID = /^[0-9A-F]{8}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{4}-[0-9A-F]{12}$/

function checkSane(r: BeaconReading | null, adv: Advertisement): void {
  if (r === null) return
  expect(inconsistencies(r)).toEqual([])
  for (const [k, v] of Object.entries(r)) {
    if (typeof v === 'number') expect(Number.isFinite(v), k).toBe(true)
  }
  expect(r.frames.length).toBeGreaterThan(0)
  expect(r.rssi).toBeGreaterThanOrEqual(-127)
  expect(r.rssi).toBeLessThanOrEqual(20)
  if (r.accuracy !== undefined) expect(r.accuracy).toBeGreaterThanOrEqual(-1)
  if (r.serialNumber !== undefined) expect(r.serialNumber).toMatch(SERIAL)
  if (r.proximityUUID !== undefined) expect(r.proximityUUID).toMatch(UUID)
  for (const f of ['major', 'minor'] as const) if (r[f] !== undefined) expect(r[f]).toBeLessThanOrEqual(0xffff)
  if (r.batteryLevel !== undefined) expect(r.batteryLevel).toBeLessThanOrEqual(100)
  if (r.transmitPower !== undefined) expect(r.transmitPower).toBeLessThanOrEqual(11)
  if (r.advertisingInterval !== undefined) expect(ADVERTISING_INTERVALS_MS).toContain(r.advertisingInterval)
  if (typeof r.temperature === 'number') expect(Math.abs(r.temperature)).toBeLessThanOrEqual(140)
  if (typeof r.light === 'number') expect(r.light).toBeGreaterThanOrEqual(0)
  if (r.accelerometerCount !== undefined) expect(r.accelerometerCount).toBeLessThanOrEqual(0xffffff)
  if (r.measuredPower !== undefined) expect(Math.abs(r.measuredPower)).toBeLessThanOrEqual(128)
  // An unverified encrypted frame alone contributes no decrypted field.
  if (r.secure?.verified === false && adv.manufacturerData === undefined && adv.serviceData?.length === 1) {
    for (const f of ['serialNumber', 'batteryLevel', 'transmitPower', 'measuredPower', 'major', 'temperature'] as const) expect(r[f]).toBeUndefined()
  }
}

describe('100,000 random and mutated advertisements', () => {
  const decoder = new Decoder({ keyring })
  for (const [name, withKeys] of [['without keys', false], ['with a keyring', true]] as const) {
    it(`never throw and stay in range (${name})`, () => {
      fc.assert(
        fc.property(advertisementArb, (adv) => {
          const pure = decodeAdvertisement(adv, withKeys ? { keyring } : {})
          checkSane(pure, adv)
          if (withKeys) checkSane(decoder.decode(adv), adv)
        }),
        { numRuns: 50_000 },
      )
    })
  }
  it('counted every advertisement the caching decoder saw', () => {
    const s = decoder.stats
    expect(s.advertisements).toBeGreaterThanOrEqual(50_000)
    expect(s.decoded + s.ignored + s.malformed).toBe(s.advertisements)
  })
})


describe('tracked beacons merged from random and mutated advertisements', () => {
  // Few addresses and usable envelopes, so most packets merge into a beacon that earlier frames
  // (of other kinds and contents) already filled in.
  const packetArb = fc.record({ adv: advertisementArb, rssi: fc.integer({ min: -100, max: -30 }), gapMs: fc.integer({ min: 0, max: 3000 }) })
  it('keep fields of one byte together, packet after packet', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(packetArb, { minLength: 1, maxLength: 40 }), fc.boolean(), async (packets, withKeys) => {
        const clock = new VirtualClock(1_767_225_600_000)
        const source = new PushSource(clock)
        const scanner = new BeaconScanner({ source, ...(withKeys ? { keys: keyring } : {}) })
        const seen: string[] = []
        const check = (where: string, b: Beacon): void => {
          for (const p of inconsistencies(b)) seen.push(`${where}: ${p}`)
          // A serial number, once shown, is the beacon's identity (the entry is renamed in place).
          if (b.serialNumber !== undefined && b.id !== b.serialNumber) seen.push(`${where}: id ${b.id} beside serial ${b.serialNumber}`)
        }
        scanner.on('found', (b) => check('found', b))
        scanner.on('changed', (b) => check('changed', b))
        scanner.on('updated', (bs) => bs.forEach((b) => check('updated', b)))
        await scanner.start()
        for (const { adv, rssi, gapMs } of packets) {
          clock.advanceBy(gapMs)
          source.emit('advertisement', { ...adv, rssi, timestamp: clock.now() })
          for (const b of scanner.beacons()) check('beacons()', b)
        }
        await scanner.stop()
        expect(seen).toEqual([])
      }),
      { numRuns: 2_000 },
    )
  })
})
