import type { BeaconReading } from '../../src/reading.js'

/** A vendor-frame reading of beacon `n` at time `t`. */
export function reading(n: number, t: number, extra: Partial<BeaconReading> = {}): BeaconReading {
  const serial = `0117C5${n.toString(16).toUpperCase().padStart(6, '0')}`
  return {
    address: `c0:00:00:${((n >> 16) & 0xff).toString(16).padStart(2, '0')}:${((n >> 8) & 0xff).toString(16).padStart(2, '0')}:${(n & 0xff).toString(16).padStart(2, '0')}`,
    timestamp: t,
    rssi: -60,
    frames: ['ibeacon', 'e780'],
    serialNumber: serial,
    proximityUUID: 'FDA50693-A4E2-4FB1-AFCF-C6EB07647825',
    major: 10001,
    minor: n & 0xffff,
    beaconID: `FDA50693-A4E2-4FB1-AFCF-C6EB07647825|10001|${n & 0xffff}`,
    temperature: 21.5,
    light: 120,
    batteryLevel: 88,
    accelerometerCount: 7,
    ...extra,
  }
}
