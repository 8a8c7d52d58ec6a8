import { describe, it, expect } from 'vitest'
import { normalizeSerial, parseLogRecord, toLogRecord, ShapeError } from '../../src/cloud/records.js'
import { reading } from './reading-fixture.js'

describe('toLogRecord', () => {
  it('maps the 2.7 fields from a reading', () => {
    const r = toLogRecord(reading(1, 1_700_000_000_000), 'id-1', { lat: 52.5, lon: 13.4 })
    expect(r).toEqual({
      msgId: 'id-1',
      beaconMac: '0117C5000001',
      beaconUMM: 'FDA50693-A4E2-4FB1-AFCF-C6EB07647825|10001|1',
      updatedTime: 1_700_000_000_000,
      location: { lat: 52.5, lon: 13.4 },
      sensor: { temperature: 21.5, light: 120, power: 88, accelerometer: 7 },
    })
  })

  it('omits sensors that are switched off, absent or not finite, and location when not configured', () => {
    const r = toLogRecord(
      reading(2, 5, { temperature: null, light: undefined, batteryLevel: Number.NaN, accelerometerCount: undefined, beaconID: undefined }),
      'id',
      undefined,
    )
    expect(r).toEqual({ msgId: 'id', beaconMac: '0117C5000002', updatedTime: 5, sensor: {} })
    expect(Object.keys(r?.sensor ?? {})).toEqual([])
  })

  it('returns undefined without a serial number', () => {
    expect(toLogRecord(reading(3, 5, { serialNumber: undefined }), 'id', undefined)).toBeUndefined()
  })
})

describe('record validation', () => {
  it('normalises serial numbers and refuses malformed ones', () => {
    expect(normalizeSerial('0117c5456a36')).toBe('0117C5456A36')
    expect(normalizeSerial('01:17:C5:45:6A:36')).toBe('0117C5456A36')
    expect(normalizeSerial('0117C5456A3')).toBeUndefined()
    expect(normalizeSerial('0117C5456A3G')).toBeUndefined()
  })

  it('names the field at fault', () => {
    const bad = (v: unknown): string => {
      try {
        parseLogRecord(v, 'logs[2]', true)
        return 'accepted'
      } catch (e) {
        expect(e).toBeInstanceOf(ShapeError)
        return (e as Error).message
      }
    }
    const ok = { msgId: 'a', beaconMac: 'X', updatedTime: 1, sensor: {} }
    expect(bad(ok)).toBe('accepted')
    expect(bad(null)).toBe('logs[2] must be an object')
    expect(bad({ ...ok, msgId: undefined })).toBe('logs[2].msgId is required')
    expect(bad({ ...ok, updatedTime: '1' })).toBe('logs[2].updatedTime must be a finite number')
    expect(bad({ ...ok, sensor: { power: null } })).toBe('accepted')
    expect(bad({ ...ok, sensor: { power: 'full' } })).toBe('logs[2].sensor.power must be a finite number')
    expect(bad({ ...ok, location: { lat: 91, lon: 0 } })).toBe('logs[2].location.lat must be between -90 and 90')
    expect(bad({ ...ok, location: { lat: 1 } })).toBe('logs[2].location.lon is required')
    expect(bad({ ...ok, msgId: 'x'.repeat(129) })).toBe('logs[2].msgId must be 1 to 128 characters')
  })
})
