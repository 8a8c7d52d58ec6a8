/**
 * A small, exact recording for the command-line tests, built with the SDK's own encoders and
 * line format: three beacons over 10 s, one of which leaves early.
 */
import { writeFile } from 'node:fs/promises'
import { formatAdvertisementLine, formatRecordingHeader } from '../../src/advertisement.js'
import type { Advertisement } from '../../src/advertisement.js'
import { E781_MODE, encodeE781 } from '../../src/frames/e781.js'
import { encodeIBeacon } from '../../src/frames/ibeacon.js'

/** Recording time of the first advertisement (2026-01-01T00:00:00Z). */
export const T0 = 1_767_225_600_000
export const UUID = 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0'
/** The vendor beacon's serial number. */
export const SERIAL = '0117C5000002'

/** The advertisements, in time order. */
export function recordingAdvertisements(): Advertisement[] {
  const ads: Advertisement[] = []
  for (let t = 0; t <= 10_000; t += 250) {
    // A: iBeacon only, near, the whole time.
    ads.push({ address: 'aa:00:00:00:00:01', rssi: -50, timestamp: T0 + t, manufacturerData: encodeIBeacon({ proximityUUID: UUID, major: 1, minor: 1, measuredPower: -59 }) })
    // B: iBeacon plus a vendor frame with sensors, farther away.
    ads.push({
      address: 'aa:00:00:00:00:02',
      rssi: -75,
      timestamp: T0 + t + 50,
      manufacturerData: encodeIBeacon({ proximityUUID: UUID, major: 1, minor: 2, measuredPower: -59 }),
      serviceData: [
        {
          uuid: '81e7',
          data: encodeE781({
            mode: E781_MODE.full,
            hardwareModelName: 'C0',
            firmwareVersion: '4.1',
            serialNumber: SERIAL,
            major: 1,
            minor: 2,
            batteryLevel: 88,
            temperature: 21,
            light: 45,
            accelerometerCount: 7,
            movingState: 'still',
            measuredPower: -59,
          }),
        },
      ],
    })
    // C: iBeacon only, leaves after 3 s.
    if (t <= 3_000) {
      ads.push({ address: 'aa:00:00:00:00:03', rssi: -90, timestamp: T0 + t + 100, manufacturerData: encodeIBeacon({ proximityUUID: UUID, major: 2, minor: 3, measuredPower: -59 }) })
    }
  }
  return ads
}

/** Writes the recording (header, then one line per advertisement) to `path`. */
export async function writeRecording(path: string, extraLines: string[] = []): Promise<void> {
  const lines = [formatRecordingHeader({ note: 'test/cli recording' }), ...recordingAdvertisements().map(formatAdvertisementLine), ...extraLines]
  await writeFile(path, `${lines.join('\n')}\n`)
}
