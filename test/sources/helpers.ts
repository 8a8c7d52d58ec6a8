/** Small builders of recording lines for the source and scanner tests. */
import { formatAdvertisementLine, formatRecordingHeader } from '../../src/advertisement.js'
import { encodeE781 } from '../../src/frames/e781.js'
import { encodeIBeacon } from '../../src/frames/ibeacon.js'

export const UUID = '23A01AF0-232A-4518-9C0E-323FB773F5EF'
export const T0 = 1_767_225_600_000

/** An iBeacon advertisement line at T0 + ms. */
export function ibeaconLine(ms: number, address: string, major: number, minor: number, rssi = -60): string {
  return formatAdvertisementLine({
    address,
    rssi,
    timestamp: T0 + ms,
    manufacturerData: encodeIBeacon({ proximityUUID: UUID, major, minor, measuredPower: -59 }),
  })
}

/** A plaintext 0x81E7 mode-0x30 line (serial, major/minor, sensors) at T0 + ms. */
export function vendorLine(ms: number, address: string, serial: string, extra: { temperature?: number; batteryLevel?: number; rssi?: number } = {}): string {
  const data = encodeE781({
    mode: 0x30,
    hardwareModelName: 'C0',
    firmwareVersion: '4.1',
    serialNumber: serial,
    major: 1,
    minor: 2,
    batteryLevel: extra.batteryLevel ?? 90,
    temperature: extra.temperature ?? 22,
    light: null,
    movingState: 'still',
    accelerometerCount: 0,
    measuredPower: -59,
    transmitPower: 5,
    advertisingInterval: 417.5,
  })
  return formatAdvertisementLine({ address, rssi: extra.rssi ?? -60, timestamp: T0 + ms, serviceData: [{ uuid: '81e7', data }] })
}

export const header = (): string => formatRecordingHeader({ test: true })
