/**
 * The site `beaconkit simulate` plays: a deterministic mix of the beacons a gateway meets —
 * iBeacon-only tags, vendor beacons with sensors (current and legacy frames), encrypted
 * devices, one walking away, one arriving late, one leaving.
 */

import { VENDOR_DEFAULT_UUID } from '../frames/ibeacon.js'
import { E781_MODE } from '../frames/e781.js'
import { parseBroadcastKey } from '../secure/broadcast-key.js'
import { representableLux } from '../sources/simulated.js'
import { seededRandom } from '../random.js'
import type { SimulatedDevice } from '../sources/simulated.js'

/**
 * The public sample key of PROTOCOL.md (key id 0001). The simulated encrypted devices use it,
 * so `beaconkit simulate --key <it>` shows them verified and without it they stay encrypted.
 */
export const SAMPLE_KEY = '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'

function hex6(n: number): string {
  return n.toString(16).toUpperCase().padStart(6, '0')
}

function address(i: number): string {
  const b = [0xc0, 0xde, (i >> 16) & 0xff, (i >> 8) & 0xff, i & 0xff, 0x01]
  return b.map((x) => x.toString(16).padStart(2, '0')).join(':')
}

/** `count` simulated devices, the same for the same seed. */
export function siteScenario(count: number, seed: number): SimulatedDevice[] {
  const random = seededRandom(seed)
  const key = parseBroadcastKey(SAMPLE_KEY)
  const devices: SimulatedDevice[] = []
  for (let i = 0; i < count; i++) {
    const distance = Math.round((0.3 + random() * 10) * 10) / 10
    const major = 1 + (i >> 8)
    const minor = (i & 0xff) + 1
    const ibeacon = { proximityUUID: VENDOR_DEFAULT_UUID, major, minor, measuredPower: -59 }
    const serialNumber = `0117C5${hex6(0x100000 + i)}`
    const sensors = {
      batteryLevel: 40 + Math.floor(random() * 61),
      temperature: 15 + Math.floor(random() * 15),
      light: representableLux(Math.round(random() * 500)),
    }
    const base = { address: address(i), distance, major, minor, measuredPower: -59 }
    let device: SimulatedDevice
    switch (i % 4) {
      case 0:
        device = { ...base, ibeacon }
        break
      case 1:
        device = {
          ...base,
          ibeacon,
          serialNumber,
          hardwareModelName: 'C0',
          firmwareVersion: '4.1',
          vendor: [{ frame: 'e781', mode: E781_MODE.full }],
          ...sensors,
        }
        break
      case 2:
        device = { ...base, ibeacon, serialNumber, hardwareModelName: 'A0', firmwareVersion: '2.2', vendor: [{ frame: 'e780' }], ...sensors }
        break
      default:
        device = {
          ...base,
          serialNumber,
          hardwareModelName: 'C0',
          firmwareVersion: '4.1',
          key,
          vendor: [
            { frame: 'e781', mode: E781_MODE.identity },
            { frame: 'e781', mode: E781_MODE.sensors },
          ],
          ...sensors,
        }
    }
    devices.push(device)
  }
  // The moments worth watching: a walk away, a late arrival, a departure.
  if (count > 1) devices[1].distance = { from: 1, to: 15, startMs: 10_000, durationMs: 40_000 }
  if (count > 2) devices[2].appearAtMs = 15_000
  if (count > 3) devices[count - 1].leaveAtMs = 45_000
  return devices
}
