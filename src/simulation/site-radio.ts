/**
 * The radio model of the site simulator: what RSSI a gateway hears from a beacon at a distance
 * through walls, and how likely it is to hear the packet at all. Pure functions of their inputs
 * (the random numbers are passed in), so the model is tested without a simulation.
 */
import { InvalidOptionError } from '../errors.js'

/** Parameters of the radio model (docs/fleet.md, "The simulated site"). */
export interface RadioModel {
  /** dBm at 1 m, for beacons that give no measured power of their own. Default -59. */
  measuredPower: number
  /** Path-loss exponent: 2 in free space, 2–3 indoors. Default 2.2. */
  pathLossExponent: number
  /**
   * Standard deviation of the log-normal shadowing, dB. Shadowing is slow (bodies, furniture):
   * each beacon–gateway link drifts with time constant `shadowingMs`. Default 4.
   */
  shadowingDb: number
  /** Time constant of a link's shadowing, ms. Default 5000. */
  shadowingMs: number
  /** Standard deviation of the fast fading of each packet, dB. Default 2. */
  fadingDb: number
  /** dB lost per wall crossed, for walls without their own `attenuationDb`. Default 6. */
  wallDb: number
  /** Packets lost even at a strong signal (collisions, the scanner's duty cycle), 0–1. Default 0.05. */
  lossRate: number
  /** Weakest RSSI a gateway hears, dBm; packets below it are not heard at all. Default -95. */
  sensitivityDbm: number
  /** Over this many dB above the sensitivity the loss rises from `lossRate` to certain. Default 10. */
  fadeMarginDb: number
  /** Height of a beacon above the floor, m, for beacons without their own. Default 1.2. */
  beaconHeight: number
  /** Height of a gateway, m, for gateways the site gives no `z`. Default 2.2. */
  gatewayHeight: number
  /** dB lost per floor between a beacon and a gateway (a slab costs 10–20 dB). Default 15. */
  slabDb: number
  /** Storey height, m, for floors without their own `z`. Default 3. */
  storeyHeight: number
}

/** The defaults of {@link RadioModel}. */
export const DEFAULT_RADIO: Readonly<RadioModel> = Object.freeze({
  measuredPower: -59,
  pathLossExponent: 2.2,
  shadowingDb: 4,
  shadowingMs: 5000,
  fadingDb: 2,
  wallDb: 6,
  lossRate: 0.05,
  sensitivityDbm: -95,
  fadeMarginDb: 10,
  beaconHeight: 1.2,
  gatewayHeight: 2.2,
  slabDb: 15,
  storeyHeight: 3,
})

/** The model with `given` over the defaults; throws InvalidOptionError naming a value out of range. */
export function radioModel(given: Partial<RadioModel> = {}): RadioModel {
  const m: RadioModel = { ...DEFAULT_RADIO, ...given }
  const check = (ok: boolean, key: keyof RadioModel, what: string): void => {
    if (!ok)
      throw new InvalidOptionError('invalid_option', `radio.${key} ${what}, not ${String(m[key])}`, {
        option: `radio.${key}`,
      })
  }
  for (const key of Object.keys(DEFAULT_RADIO) as (keyof RadioModel)[])
    check(typeof m[key] === 'number' && Number.isFinite(m[key]), key, 'must be a number')
  check(m.pathLossExponent > 0, 'pathLossExponent', 'must be > 0')
  for (const key of ['shadowingDb', 'fadingDb', 'wallDb', 'beaconHeight', 'gatewayHeight', 'slabDb'] as const)
    check(m[key] >= 0, key, 'must be >= 0')
  check(m.shadowingMs > 0, 'shadowingMs', 'must be > 0 ms')
  check(m.storeyHeight > 0, 'storeyHeight', 'must be > 0 m')
  check(m.fadeMarginDb > 0, 'fadeMarginDb', 'must be > 0 dB')
  check(m.lossRate >= 0 && m.lossRate < 1, 'lossRate', 'must be in [0, 1)')
  return m
}

/** The walls' loss lives with the site (positioning/walls.ts): the room method predicts with the same. */
export { wallLoss } from '../positioning/walls.js'

/** Mean RSSI (dBm) at `distance` metres: log-distance path loss from the power at 1 m. */
export function meanRssi(measuredPower: number, distance: number, exponent: number): number {
  // Closer than 10 cm the model means nothing; a tag on the gateway's case is as loud as it gets.
  return measuredPower - 10 * exponent * Math.log10(Math.max(0.1, distance))
}

/**
 * Probability that a packet arriving at `rssi` is lost: `lossRate` well above the sensitivity,
 * rising linearly to 1 over the fade margin, 1 at and below the sensitivity.
 */
export function lossProbability(
  rssi: number,
  m: Pick<RadioModel, 'lossRate' | 'sensitivityDbm' | 'fadeMarginDb'>,
): number {
  if (rssi <= m.sensitivityDbm) return 1
  const weak = Math.min(1, Math.max(0, (m.sensitivityDbm + m.fadeMarginDb - rssi) / m.fadeMarginDb))
  return m.lossRate + (1 - m.lossRate) * weak
}

/**
 * One step of a link's shadowing (a Gauss–Markov process with standard deviation `sd` and
 * time constant `tauMs`): its value `dtMs` later, given a standard normal draw `z`.
 */
export function shadowingStep(previous: number, dtMs: number, sd: number, tauMs: number, z: number): number {
  const a = Math.exp(-Math.max(0, dtMs) / tauMs)
  return a * previous + Math.sqrt(1 - a * a) * sd * z
}

/**
 * The `radio` object of a site file: any of the {@link RadioModel} keys with a number. Unknown
 * keys are ignored; a key with something other than a number throws InvalidOptionError.
 */
export function radioFromJSON(json: unknown): Partial<RadioModel> {
  if (json === undefined) return {}
  if (typeof json !== 'object' || json === null || Array.isArray(json))
    throw new InvalidOptionError(
      'invalid_option',
      'site: radio is not an object; give e.g. { "pathLossExponent": 2.2, "wallDb": 6 }',
      { option: 'radio' },
    )
  const out: Partial<RadioModel> = {}
  for (const key of Object.keys(DEFAULT_RADIO) as (keyof RadioModel)[]) {
    const v = (json as Record<string, unknown>)[key]
    if (v === undefined) continue
    if (typeof v !== 'number')
      throw new InvalidOptionError(
        'invalid_option',
        `site: radio.${key} is not a number; give a number (default ${DEFAULT_RADIO[key]})`,
        { option: `radio.${key}` },
      )
    out[key] = v
  }
  // Checked together with the defaults, so a value out of range is named here, not at run time.
  radioModel(out)
  return out
}
