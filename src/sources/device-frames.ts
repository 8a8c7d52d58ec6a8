/**
 * The bytes a simulated device sends: its iBeacon frame and its vendor frames, built from its
 * description at one moment. Shared by the single-gateway simulator and the site simulator, so
 * both send the same frames for the same device.
 */
import type { ServiceData } from '../advertisement.js'
import { encodeE780 } from '../frames/e780.js'
import { encodeE781 } from '../frames/e781.js'
import { encodeIBeacon } from '../frames/ibeacon.js'
import type { IBeaconFrame } from '../frames/ibeacon.js'
import type { MovingState } from '../reading.js'
import { representableLux } from './simulated-device.js'
import type { SimulatedDevice, SimulatedVendorFrame } from './simulated-device.js'

/** How a device moves at one moment: what its accelerometer reports. */
export interface DeviceMotion {
  moving: boolean
  /** Steps counted since the start (wraps at 16 bits in the frame). */
  steps: number
}

/** The iBeacon values of rotation period `k`: scrambled, but a pure function of `k` (no PRNG draw). */
function rotated(frame: IBeaconFrame, k: number): IBeaconFrame {
  const x = Math.imul(k + 1, 0x9e3779b1) >>> 0
  return { ...frame, major: x >>> 16, minor: x & 0xffff }
}

/** The manufacturer data of the device's iBeacon frame at `t` (ms after the start), rotated when it rotates. */
export function iBeaconData(
  spec: Pick<SimulatedDevice, 'rotateIBeaconMs'> & { ibeacon: IBeaconFrame },
  t: number,
): Uint8Array {
  const frame =
    spec.rotateIBeaconMs === undefined ? spec.ibeacon : rotated(spec.ibeacon, Math.floor(t / spec.rotateIBeaconMs))
  return encodeIBeacon(frame)
}

/**
 * The service data of one vendor frame. Draws one number from `random` for an encrypted
 * frame's random code (only for 0x81E7), so callers keep their PRNG sequence.
 */
export function vendorServiceData(
  spec: Omit<SimulatedDevice, 'distance'>,
  frame: SimulatedVendorFrame,
  motion: DeviceMotion,
  random: () => number,
): ServiceData {
  const movingState: MovingState = motion.moving ? 'moving' : 'still'
  const common = {
    hardwareModelName: spec.hardwareModelName ?? (frame.frame === 'e780' ? 'B0' : 'C0'),
    firmwareVersion: spec.firmwareVersion ?? (frame.frame === 'e780' ? '2.3' : '4.1'),
    serialNumber: spec.serialNumber ?? '0117C5000000',
    major: spec.major ?? spec.ibeacon?.major ?? 0,
    minor: spec.minor ?? spec.ibeacon?.minor ?? 0,
    batteryLevel: spec.batteryLevel ?? 90,
    temperature: spec.temperature === undefined ? 22 : spec.temperature,
    light: representableLux(spec.light === undefined ? 120 : spec.light),
    accelerometerCount: motion.steps & 0xffff,
    movingState,
  }
  if (frame.frame === 'e780') return { uuid: '80e7', data: encodeE780(common) }
  const randomCode = 1 + Math.floor(random() * 0xfffe)
  const data = encodeE781(
    {
      ...common,
      mode: frame.mode,
      measuredPower: spec.measuredPower ?? -59,
      transmitPower: 5,
      advertisingInterval: 417.5,
    },
    spec.key === undefined ? {} : { key: spec.key, randomCode },
  )
  return { uuid: '81e7', data }
}
