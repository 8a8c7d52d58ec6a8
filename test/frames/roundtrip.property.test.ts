// decode(encode(x)) equals x, as property tests over random field values (fast-check).
import { describe, expect, it } from 'vitest'
import fc from 'fast-check'
import { decodeIBeacon, encodeIBeacon, uuidString } from '../../src/frames/ibeacon.js'
import { decodeE780, encodeE780, type E780Fields } from '../../src/frames/e780.js'
import { decodeE781, encodeE781, type E781Fields } from '../../src/frames/e781.js'
import type { ReadingDraft } from '../../src/frames/draft.js'
import { firmwareName, light, modelName, movingState, temperature } from '../../src/frames/fields.js'
import { ADVERTISING_INTERVALS_MS, transmitPowerDbm, transmitPowerDbmOf } from '../../src/frames/bit-fields.js'
import type { BeaconFlags, MovingState } from '../../src/reading.js'
import { Keyring } from '../../src/secure/keyring.js'
import { parseBroadcastKey } from '../../src/secure/broadcast-key.js'
import { rawKeyString } from '../support/keys.js'

const u16 = fc.integer({ min: 0, max: 0xffff })
const hex6 = fc.uint8Array({ minLength: 3, maxLength: 3 }).map((b) => '0117C5' + Buffer.from(b).toString('hex').toUpperCase())
const hex12 = fc.uint8Array({ minLength: 6, maxLength: 6 }).map((b) => Buffer.from(b).toString('hex').toUpperCase())
const batteryArb = fc.option(fc.integer({ min: 0, max: 100 }), { nil: undefined })
const moving = fc.integer({ min: 0, max: 255 }).map((b) => movingState(b))
const lightArb = fc.oneof(fc.constant(null), fc.tuple(fc.integer({ min: 0, max: 0xfe }), fc.integer({ min: 0, max: 15 })).map(([hi, lo]) => light(hi, lo) as number))
const tempArb = (fw: number): fc.Arbitrary<number | null> =>
  fc.oneof(fc.constant(null), fc.integer({ min: 0, max: 0xfe }).map((raw) => temperature(raw, fw) as number))
const flagsArb: fc.Arbitrary<BeaconFlags> = fc.record({
  passwordEnabled: fc.boolean(), broadcastKeyEnabled: fc.boolean(), energySaving: fc.boolean(),
  aliBeacon: fc.boolean(), backgroundEnhancement: fc.boolean(), eddystone: fc.boolean(),
})
const measuredPowerArb = fc.option(fc.integer({ min: -128, max: 127 }).filter((v) => v !== 0), { nil: undefined })
const modelArb = fc.constantFrom(0xa0, 0xb0, 0xc0, 0xc1, 0xc8, 0x00, 0x7f, 0xff)
const firmwareArb = fc.constantFrom(0x10, 0x20, 0x21, 0x22, 0x23, 0x30, 0x31, 0x40, 0x41, 0x46, 0x00, 0x99)

/** Fields the decoder derives from the encoded ones. */
function derived(model: number, f: { movingState?: MovingState; transmitPower?: number }): Partial<ReadingDraft> {
  const out: Partial<ReadingDraft> = {}
  if (f.movingState === 'moving') out.moving = true
  if (f.movingState === 'still') out.moving = false
  if (f.transmitPower !== undefined) {
    const dbm = transmitPowerDbm(model, f.transmitPower)
    if (dbm !== undefined) out.transmitPowerDbm = dbm
  }
  return out
}

function withoutUndefined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T
}

function unknownFlag(model: number, fw: number): Partial<ReadingDraft> {
  const known = [0xa0, 0xb0, 0xc0, 0xc1, 0xc8].includes(model) && [0x10, 0x20, 0x21, 0x22, 0x23, 0x30, 0x31, 0x40, 0x41, 0x42, 0x43, 0x44, 0x45, 0x46].includes(fw)
  return known ? {} : { unknownModel: true }
}

describe('round trips', () => {
  it('iBeacon', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 16 }), u16, u16, fc.integer({ min: -128, max: 127 }), (uuid, major, minor, measuredPower) => {
        const frame = { proximityUUID: uuidString(uuid, 0), major, minor, measuredPower }
        expect(decodeIBeacon(encodeIBeacon(frame))).toEqual(frame)
      }),
      { numRuns: 2000 },
    )
  })

  it('0x80E7 in all three firmware variants and the major/minor-only ones', () => {
    const variant = fc.oneof(
      fc.record({ model: fc.constant(0xa0), fw: fc.constant(0x10) }),
      fc.record({ model: fc.constant(0xb0), fw: fc.constantFrom(0x20, 0x21, 0x22) }),
      fc.record({ model: fc.constant(0xb0), fw: fc.constantFrom(0x23, 0x30, 0x31, 0x40, 0x41, 0x46) }),
      fc.record({ model: modelArb, fw: firmwareArb }),
    )
    fc.assert(
      fc.property(variant.chain(({ model, fw }) =>
        fc.record({
          model: fc.constant(model), fw: fc.constant(fw), major: u16, minor: u16, serial6: hex12, serial3: hex6, batteryLevel: batteryArb,
          temperature: tempArb(fw), light: lightArb, count24: fc.integer({ min: 0, max: 0xffffff }), count16: u16, movingState: moving,
          broadcastKeyEnabled: fc.boolean(),
        })), (g) => {
        const base = { hardwareModelName: modelName(g.model), firmwareVersion: firmwareName(g.fw), major: g.major, minor: g.minor }
        let fields: E780Fields = base
        if (g.model === 0xa0 && g.fw === 0x10) fields = { ...base, serialNumber: g.serial6, batteryLevel: g.batteryLevel }
        else if (g.model === 0xb0 && g.fw >= 0x20) {
          fields = {
            ...base, serialNumber: g.serial3, batteryLevel: g.batteryLevel, temperature: g.temperature, light: g.light,
            accelerometerCount: g.fw < 0x23 ? g.count24 : g.count16, movingState: g.movingState,
          }
          if (g.fw >= 0x23) fields.broadcastKeyEnabled = g.broadcastKeyEnabled
        }
        const out: ReadingDraft = {}
        expect(decodeE780(encodeE780(fields), out)).toBe(true)
        const { broadcastKeyEnabled, ...rest } = fields
        const expected: ReadingDraft = { ...withoutUndefined(rest), ...derived(g.model, fields), ...unknownFlag(g.model, g.fw) }
        if (broadcastKeyEnabled !== undefined) expected.flags = { broadcastKeyEnabled }
        expect(out).toEqual(expected)
      }),
      { numRuns: 3000 },
    )
  })

  const e781Arb = fc.record({
    mode: fc.constantFrom(0x10, 0x20, 0x30, 0x50, 0x41, 0x42),
    model: modelArb, fw: firmwareArb, serialNumber: hex6, major: u16, minor: u16, batteryLevel: batteryArb,
    transmitPower: fc.option(fc.integer({ min: 0, max: 11 }), { nil: undefined }),
    advertisingInterval: fc.option(fc.constantFrom(...ADVERTISING_INTERVALS_MS), { nil: undefined }),
    flags: flagsArb, light: lightArb, accelerometerCount: u16, movingState: moving, measuredPower: measuredPowerArb,
    encrypt: fc.boolean(), key14: fc.uint8Array({ minLength: 14, maxLength: 14 }), keyId: fc.integer({ min: 1, max: 0xffff }),
    randomCode: u16, tempRaw: fc.integer({ min: 0, max: 0xff }),
  })

  it('0x81E7 in every mode, plaintext and encrypted with random keys', () => {
    fc.assert(
      fc.property(e781Arb, (g) => {
        const encrypted = g.mode === 0x41 || g.mode === 0x42 || (g.encrypt && (g.mode === 0x10 || g.mode === 0x20))
        const key = encrypted ? parseBroadcastKey(rawKeyString(g.key14, g.keyId)) : undefined
        const identityPart = g.mode === 0x10 || g.mode === 0x41 || g.mode === 0x30
        const sensorPart = g.mode === 0x20 || g.mode === 0x42 || g.mode === 0x30
        const fields: E781Fields = {
          mode: g.mode as E781Fields['mode'], hardwareModelName: modelName(g.model), firmwareVersion: firmwareName(g.fw), serialNumber: g.serialNumber,
        }
        if (g.mode !== 0x50) {
          Object.assign(fields, withoutUndefined({ batteryLevel: g.batteryLevel, transmitPower: g.transmitPower, advertisingInterval: g.advertisingInterval, measuredPower: g.measuredPower }), { flags: g.flags })
        }
        if (identityPart) Object.assign(fields, { major: g.major, minor: g.minor })
        if (sensorPart) {
          Object.assign(fields, {
            temperature: g.tempRaw === 0xff ? null : temperature(g.tempRaw, g.fw), light: g.light,
            accelerometerCount: g.accelerometerCount, movingState: g.movingState,
          })
        }
        const payload = encodeE781(fields, { key, randomCode: g.randomCode })
        const out: ReadingDraft = {}
        const keyring = key === undefined ? undefined : new Keyring([key])
        expect(decodeE781(payload, out, { keyring })).toBe(true)
        // decode.ts derives the dBm from the level and model the frames left.
        const dbm = transmitPowerDbmOf(out)
        if (dbm !== undefined) out.transmitPowerDbm = dbm
        const { mode: _mode, ...rest } = fields
        const expected: ReadingDraft = { ...rest, ...derived(g.model, fields), ...unknownFlag(g.model, g.fw) }
        if (encrypted) expected.secure = { encrypted: true, keyId: key?.keyId, verified: true }
        if (!encrypted || verifiable(fields)) expect(out).toEqual(expected)
        else expect(out.secure?.verified).toBe(false)
      }),
      { numRuns: 3000 },
    )
  })
})

/**
 * An encrypted block is accepted only when its plaintext is plausible (PROTOCOL.md 3): a random
 * measured power outside −110…−20, a missing battery, level or interval, or a sensor block with
 * an unknown moving state is rejected on purpose.
 */
function verifiable(f: E781Fields): boolean {
  const mp = f.measuredPower ?? 0
  const sensors = f.mode === 0x20 || f.mode === 0x42
  return (
    mp >= -110 && mp <= -20 && f.batteryLevel !== undefined && f.transmitPower !== undefined && f.advertisingInterval !== undefined &&
    (!sensors || f.movingState !== 'unknown')
  )
}
