// PROTOCOL.md 2.1, every row, with hand-built payloads.
import { describe, expect, it } from 'vitest'
import { decodeE780, encodeE780 } from '../../src/frames/e780.js'
import type { ReadingDraft } from '../../src/frames/draft.js'
import { hex } from '../support/vectors.js'

function decode(h: string): ReadingDraft | null {
  const out: ReadingDraft = {}
  return decodeE780(hex(h), out) ? out : null
}

// model fw | bytes 2..7 (no field) | major | minor | the rest (11 bytes)
const filler = '112233445566'

describe('0x80E7', () => {
  it('A0 firmware 1.0: 6-byte serial and battery', () => {
    expect(decode('a010' + filler + '0102' + '0304' + 'ab8fe113f208' + '28' + '00000000')).toEqual({
      hardwareModelName: 'A0', firmwareVersion: '1.0', major: 0x0102, minor: 0x0304, serialNumber: 'AB8FE113F208', batteryLevel: 40,
    })
  })

  it('B0 firmware below 2.3: 3-byte serial, sensors, 24-bit LE accelerometer count, moving state at 22', () => {
    expect(decode('b021' + filler + '0001' + '0002' + '456a36' + '50' + '2c' + '0009' + '030201' + '01')).toEqual({
      hardwareModelName: 'B0', firmwareVersion: '2.1', major: 1, minor: 2, serialNumber: '0117C5456A36', batteryLevel: 80,
      temperature: 34, light: 0.405, accelerometerCount: 0x010203, movingState: 'moving', moving: true,
    })
  })

  it('B0 firmware 2.3 and later: 16-bit LE count, moving state at 21, byte 22 is the broadcast-key flag', () => {
    expect(decode('b023' + filler + '0001' + '0002' + '456a36' + '65' + 'ff' + 'ff00' + '0201' + '00' + '07')).toEqual({
      hardwareModelName: 'B0', firmwareVersion: '2.3', major: 1, minor: 2, serialNumber: '0117C5456A36',
      temperature: null, light: null, accelerometerCount: 0x0102, movingState: 'still', moving: false,
      flags: { broadcastKeyEnabled: true },
    })
    expect(decode('b043' + filler + '0001' + '0002' + '456a36' + '64' + '14' + '0000' + '0000' + 'ff' + '00')).toMatchObject({
      batteryLevel: 100, temperature: 20, light: 0, movingState: 'disabled', flags: { broadcastKeyEnabled: false },
    })
  })

  it('other models and firmware: major and minor only', () => {
    expect(decode('a031' + filler + '3739' + '2f7c' + '6f61e77f3488452df56d7b')).toEqual({
      hardwareModelName: 'A0', firmwareVersion: '3.1', major: 14137, minor: 12156,
    })
    expect(decode('b010' + filler + '0001' + '0002' + '6f61e77f3488452df56d7b')).toEqual({
      hardwareModelName: 'B0', firmwareVersion: '1.0', major: 1, minor: 2,
    })
  })

  it('unknown model bytes decode by layout and are flagged', () => {
    expect(decode('d523' + filler + '0001' + '0002' + '6f61e77f3488452df56d7b')).toEqual({
      hardwareModelName: 'D5', firmwareVersion: '2.3', major: 1, minor: 2, unknownModel: true,
    })
  })

  it('any length but 23 is not a 0x80E7 frame', () => {
    const ok = 'a010' + filler + '0102' + '0304' + 'ab8fe113f208' + '28' + '00000000'
    expect(decode(ok)).not.toBeNull()
    expect(decode(ok.slice(0, -2))).toBeNull()
    expect(decode(ok + '00')).toBeNull()
    expect(decode('')).toBeNull()
  })

  it('encodes every field it decodes', () => {
    const fields = {
      hardwareModelName: 'B0', firmwareVersion: '2.2', major: 53384, minor: 8090, serialNumber: '0117C5D75AA2',
      batteryLevel: 96, temperature: -67, light: 345.6, accelerometerCount: 51406, movingState: 'still' as const,
    }
    const out: ReadingDraft = {}
    expect(decodeE780(encodeE780(fields), out)).toBe(true)
    expect(out).toEqual({ ...fields, moving: false })
  })
})
