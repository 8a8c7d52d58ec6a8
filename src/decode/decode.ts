/**
 * One advertisement in, one reading out (docs/protocol.md): every known frame of the
 * advertisement is decoded and the results merged. Pure: no clock, no I/O, never throws.
 */
import type { Advertisement } from '../advertisement.js'
import type { BeaconReading, EddystoneInfo, FrameKind } from '../reading.js'
import type { Keyring } from '../secure/keyring.js'
import type { SecureStats } from '../secure/open.js'
import { beaconIdOf, decodeIBeacon, type IBeaconFrame } from '../frames/ibeacon.js'
import { decodeE780 } from '../frames/e780.js'
import { decodeE781 } from '../frames/e781.js'
import { decodeEddystone, eddystoneMeasuredPower } from '../frames/eddystone.js'
import { transmitPowerDbmOf } from '../frames/bit-fields.js'
import { accuracy, proximity, type ProximityThresholds } from './distance.js'

/** Options of {@link decodeAdvertisement}. */
export interface DecodeOptions {
  /** Broadcast keys for encrypted 0x81E7 frames. Without one, such frames are reported encrypted and unverified. */
  keyring?: Keyring
  /**
   * Time (ms) the decoding happens at. Decoding needs no clock; accepted so a caller replaying
   * recordings can pass its own time and stay deterministic.
   */
  now?: number
  /** Zone bounds for `proximity`; defaults to 0.5 m and 4 m. */
  proximityThresholds?: ProximityThresholds
}

/** Which decoder a service-data uuid selects. */
export type ServiceKind = 'e780' | 'e781' | 'eddystone'

const BASE_UUID_TAIL = '-0000-1000-8000-00805f9b34fb'

/**
 * Classifies a service-data uuid as noble reports it ("81e7"), in any case, or in its 128-bit
 * Bluetooth base form. The on-air bytes `E7 81` are the 16-bit uuid 0x81E7: "e781" is a
 * different uuid and selects nothing.
 */
export function serviceKind(uuid: unknown): ServiceKind | null {
  if (typeof uuid !== 'string') return null
  switch (uuid) {
    // The forms noble produces, without allocating a lower-cased copy.
    case '81e7':
      return 'e781'
    case '80e7':
      return 'e780'
    case 'feaa':
      return 'eddystone'
  }
  let short: string
  if (uuid.length === 4) short = uuid.toLowerCase()
  else if (uuid.length === 36 && uuid.toLowerCase().endsWith(BASE_UUID_TAIL) && uuid.startsWith('0000'))
    short = uuid.slice(4, 8).toLowerCase()
  else return null
  return short === '81e7' ? 'e781' : short === '80e7' ? 'e780' : short === 'feaa' ? 'eddystone' : null
}

/** Lowest and highest RSSI a controller reports (127 means "not available" in HCI). */
const RSSI_MIN = -127
const RSSI_MAX = 20

/** True when the envelope of an advertisement is usable at all. */
export function isValidEnvelope(adv: Advertisement): boolean {
  return (
    typeof adv === 'object' &&
    adv !== null &&
    typeof adv.address === 'string' &&
    adv.address.length > 0 &&
    isValidReading(adv)
  )
}

/** True when an advertisement's RSSI and time are usable (the address checked elsewhere). */
export function isValidReading(adv: Advertisement): boolean {
  return (
    typeof adv.rssi === 'number' &&
    adv.rssi >= RSSI_MIN &&
    adv.rssi <= RSSI_MAX &&
    typeof adv.timestamp === 'number' &&
    Number.isFinite(adv.timestamp)
  )
}

/**
 * The 1 m reference power for distance: the measured power, else (an Eddystone-only beacon)
 * the Eddystone 0 m power minus 41 dB.
 */
export function referencePower(r: Pick<BeaconReading, 'measuredPower' | 'eddystone'>): number | undefined {
  return r.measuredPower ?? (r.eddystone === undefined ? undefined : eddystoneMeasuredPower(r.eddystone))
}

/** What the stateful decoder adds for encrypted frames. */
export interface FrameContext {
  keyring?: Keyring
  expectedSerial?: string
  stats?: SecureStats
  proximityThresholds?: ProximityThresholds
}

/**
 * Decodes an advertisement into a reading, or `null` when it carries no known frame (or its
 * envelope is unusable). Never throws: a frame that does not parse is skipped while the other
 * frames of the same advertisement still decode.
 */
export function decodeAdvertisement(adv: Advertisement, options: DecodeOptions = {}): BeaconReading | null {
  try {
    return decodeFrames(adv, { keyring: options.keyring, proximityThresholds: options.proximityThresholds })
  } catch {
    // Unreachable for well-typed input; a caller passing arbitrary JS objects gets null, never a throw.
    return null
  }
}

/** The decoding itself, shared by {@link decodeAdvertisement} and the caching `Decoder`. */
export function decodeFrames(adv: Advertisement, ctx: FrameContext): BeaconReading | null {
  if (!isValidEnvelope(adv)) return null
  const frames: FrameKind[] = []
  // Frame decoders write straight into the reading with named stores: copying a draft over
  // with Object.assign (a keyed store) past a dozen properties turns the object into a slow
  // dictionary, which made decoding 5× slower.
  const reading: BeaconReading = { address: adv.address, timestamp: adv.timestamp, rssi: adv.rssi, frames }
  let ibeacon: IBeaconFrame | null = null
  const md = adv.manufacturerData
  if (md instanceof Uint8Array) {
    ibeacon = decodeIBeacon(md)
    if (ibeacon !== null) frames.push('ibeacon')
  }
  let eddystone: EddystoneInfo | undefined
  const sd = adv.serviceData
  if (Array.isArray(sd)) {
    for (let i = 0; i < sd.length; i++) {
      const element = sd[i]
      if (typeof element !== 'object' || element === null || !(element.data instanceof Uint8Array)) continue
      const kind = serviceKind(element.uuid)
      if (kind === 'e780') {
        if (decodeE780(element.data, reading) && !frames.includes('e780')) frames.push('e780')
      } else if (kind === 'e781') {
        if (decodeE781(element.data, reading, ctx) && !frames.includes('e781')) frames.push('e781')
      } else if (kind === 'eddystone') {
        const frame = decodeEddystone(element.data)
        if (frame !== null) {
          eddystone = eddystone === undefined ? frame : { ...eddystone, ...frame }
          if (!frames.includes('eddystone')) frames.push('eddystone')
        }
      }
    }
  }
  if (frames.length === 0) return null

  if (ibeacon !== null) {
    reading.proximityUUID = ibeacon.proximityUUID
    // A vendor frame's major/minor override the iBeacon's (they also override a rotating identity).
    // (Vendor frames always set the two together.)
    if (reading.major === undefined || reading.minor === undefined) {
      reading.major = ibeacon.major
      reading.minor = ibeacon.minor
    }
    reading.beaconID = beaconIdOf(ibeacon.proximityUUID, reading.major, reading.minor)
    // The vendor's measured power wins when it is set (non-zero; vendor decoders omit a zero).
    if (reading.measuredPower === undefined) reading.measuredPower = ibeacon.measuredPower
  }
  if (eddystone !== undefined) {
    reading.eddystone = eddystone
    const tlm = eddystone.tlm
    // TLM temperature fills in for a device whose vendor frames do not carry one. A TLM that
    // says "not supported" (0x8000) leaves it absent: null means a sensor switched off.
    if (
      reading.temperature === undefined &&
      tlm !== undefined &&
      'batteryMilliVolts' in tlm &&
      tlm.temperature !== null
    ) {
      reading.temperature = tlm.temperature
    }
  }
  if (reading.transmitPower !== undefined) {
    const dbm = transmitPowerDbmOf(reading)
    if (dbm !== undefined) reading.transmitPowerDbm = dbm
  }
  reading.accuracy = accuracy(adv.rssi, referencePower(reading))
  reading.proximity = proximity(reading.accuracy, ctx.proximityThresholds)
  return reading
}
