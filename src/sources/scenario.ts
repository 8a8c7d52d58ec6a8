/**
 * The site `beaconkit simulate` and `new SimulatedSource()` play: a deterministic mix of the
 * beacons a gateway meets — iBeacon-only tags, vendor beacons with sensors (current and
 * legacy frames), encrypted devices, one walking away, one arriving late, one leaving.
 */

import { InvalidOptionError } from '../errors.js'
import { VENDOR_DEFAULT_UUID } from '../frames/ibeacon.js'
import { E781_MODE } from '../frames/e781.js'
import { parseBroadcastKey } from '../secure/broadcast-key.js'
import { seededRandom } from '../util/random.js'
import { representableLux } from './simulated-device.js'
import type { SimulatedDevice } from './simulated-device.js'

/**
 * The public sample broadcast key (raw form, key id `0001`; see docs/private-broadcast.md and
 * fixtures/README.md). It is public, so never use it on real devices. The encrypted devices
 * of {@link siteScenario} use it: a scanner given it (`new Keyring([SAMPLE_BROADCAST_KEY])`,
 * `beaconkit simulate --key <it>`) reports them verified, without it they stay encrypted.
 */
export const SAMPLE_BROADCAST_KEY = '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'

function hex6(n: number): string {
  return n.toString(16).toUpperCase().padStart(6, '0')
}

function address(i: number): string {
  const b = [0xc0, 0xde, (i >> 16) & 0xff, (i >> 8) & 0xff, i & 0xff, 0x01]
  return b.map((x) => x.toString(16).padStart(2, '0')).join(':')
}

/**
 * `count` simulated devices for {@link SimulatedSource}, the same for the same seed (what
 * `beaconkit simulate --beacons <count> --seed <seed>` plays). Devices cycle through four
 * kinds: iBeacon only; iBeacon + 0x81E7 with sensors; iBeacon + legacy 0x80E7; 0x81E7
 * encrypted under {@link SAMPLE_BROADCAST_KEY}. The second walks from 1 m to 15 m between
 * 10 s and 50 s, the third arrives at 15 s, the last leaves at 45 s.
 *
 * ```ts
 * const source = new SimulatedSource({ devices: siteScenario(200, 7), seed: 7 })
 * ```
 *
 * @param count - how many devices, 1 to 100,000 (default 12)
 * @param seed - the seed of their positions and sensor values (default 1)
 * @throws InvalidOptionError when `count` is not a whole number in range
 */
export function siteScenario(count = 12, seed = 1): SimulatedDevice[] {
  if (!Number.isInteger(count) || count < 1 || count > 100_000) {
    throw new InvalidOptionError(
      'invalid_option',
      `siteScenario needs a whole number of devices between 1 and 100000, not ${String(count)}.`,
      { option: 'count' },
    )
  }
  const random = seededRandom(seed)
  const key = parseBroadcastKey(SAMPLE_BROADCAST_KEY)
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
        device = {
          ...base,
          ibeacon,
          serialNumber,
          hardwareModelName: 'A0',
          firmwareVersion: '2.2',
          vendor: [{ frame: 'e780' }],
          ...sensors,
        }
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
