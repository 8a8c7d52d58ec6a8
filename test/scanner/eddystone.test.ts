// Issue 7 end to end: an Eddystone-only device (0x81E7 mode 0x50 announcing its serial number)
// whose UID and TLM frames come in separate packets from the same address is tracked as one
// beacon, identified by its serial number, with TLM temperature and a distance from the UID's
// 0 m power.
import { describe, expect, it } from 'vitest'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { ReplaySource } from '../../src/sources/replay.js'
import { formatAdvertisementLine } from '../../src/advertisement.js'
import { encodeE781 } from '../../src/frames/e781.js'
import { encodeEddystoneTlm, encodeEddystoneUid } from '../../src/frames/eddystone.js'
import { accuracy } from '../../src/decode/distance.js'
import type { Beacon } from '../../src/reading.js'

const T0 = Date.UTC(2026, 0, 1)
const address = 'e7:00:00:00:00:50'
const serial = encodeE781({ mode: 0x50, hardwareModelName: 'C8', firmwareVersion: '4.3', serialNumber: '0117C5000050' })
const uid = encodeEddystoneUid({ namespace: '00112233445566778899', instance: 'aabbccddeeff', txPowerAt0m: -20 })
const tlm = encodeEddystoneTlm({ version: 0, batteryMilliVolts: 2950, temperature: 21.5, advertisingCount: 1000, secondsSinceBoot: 3600 })

function recording(): string[] {
  const lines: string[] = []
  for (let s = 0; s < 5; s++) {
    const t = T0 + s * 1000
    lines.push(formatAdvertisementLine({ address, rssi: -70, timestamp: t, serviceData: [{ uuid: '81e7', data: serial }, { uuid: 'feaa', data: uid }] }))
    lines.push(formatAdvertisementLine({ address, rssi: -70, timestamp: t + 500, serviceData: [{ uuid: 'feaa', data: tlm }] }))
  }
  return lines
}

describe('an Eddystone-only device in the scanner', () => {
  it('is one beacon, by serial number, with UID and TLM merged and TLM temperature', async () => {
    const scanner = new BeaconScanner({ source: new ReplaySource(recording(), { virtual: true }) })
    const found: Beacon[] = []
    const gone: Beacon[] = []
    scanner.on('found', (b) => found.push(b))
    scanner.on('gone', (b) => gone.push(b))
    await scanner.start()
    await scanner.drain()
    await scanner.stop()
    expect(found.map((b) => b.id)).toEqual(['0117C5000050'])
    expect(gone.map((b) => b.id)).toEqual(['0117C5000050'])
    const b = gone[0]
    expect(b.eddystone?.uid).toEqual({ namespace: '00112233445566778899', instance: 'aabbccddeeff', txPowerAt0m: -20 })
    expect(b.eddystone?.tlm).toEqual({ version: 0, batteryMilliVolts: 2950, temperature: 21.5, advertisingCount: 1000, secondsSinceBoot: 3600 })
    expect(b.temperature).toBe(21.5)
    expect(b.batteryLevel).toBeUndefined()
    expect(new Set(b.frames)).toEqual(new Set(['e781', 'eddystone']))
    // No measured power is known: the 1 m reference is the UID's 0 m power minus 41 dB.
    expect(b.measuredPower).toBeUndefined()
    expect(b.accuracy).toBe(accuracy(b.smoothedRssi, -61))
    expect(b.accuracy).toBeGreaterThan(0)
  })
})
