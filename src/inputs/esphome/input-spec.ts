/**
 * The `--input esphome:<host>[:<port>][@<offset dB>]` value (#38). ESPHome is not an MQTT format
 * (no topics, no payload parser), so it is not in the registry of formats.ts: the fleet's
 * mapping sends a value starting with `esphome:` here and every other one to parseInputSpec.
 */
import { InvalidOptionError } from '../../errors.js'
import { espHomeInputTarget, targetText } from './target.js'
import type { EspHomeTarget } from './target.js'

/** One proxy of a fleet: where it is and the RSSI offset of its antenna. */
export interface EspHomeInput {
  target: EspHomeTarget
  /** Added to every RSSI the proxy reports (dB): an ESP32's antenna is not a Pi's. Default 0. */
  rssiOffsetDb?: number
}

/** The prefix of an ESPHome input. */
export const ESPHOME_INPUT = 'esphome:'

/** Whether an `--input` value is an ESPHome proxy's. */
export function isEspHomeInput(text: string): boolean {
  return text.startsWith(ESPHOME_INPUT)
}

/**
 * Parses `esphome:<host>[:<port>][@<dB>]`. @throws InvalidOptionError (option `input`): no host
 * (there is no default proxy), a host that is not one, an offset beyond ±40 dB.
 */
export function parseEspHomeInput(text: string): EspHomeInput {
  const rest = text.slice(ESPHOME_INPUT.length)
  const m = /^(.*?)(?:@([-+]?\d+(?:\.\d+)?))?$/.exec(rest)
  const where = m?.[1] ?? ''
  if (where === '')
    throw new InvalidOptionError(
      'invalid_option',
      '--input esphome: needs the proxy, e.g. esphome:hall-proxy.local or esphome:192.168.1.40:6053',
      { option: 'input' },
    )
  const target = espHomeInputTarget(where)
  const offset = m?.[2] === undefined ? undefined : Number(m[2])
  if (offset !== undefined && Math.abs(offset) > 40)
    throw new InvalidOptionError(
      'invalid_option',
      `--input esphome: an RSSI offset of ${offset} dB is not an antenna difference (at most ±40)`,
      { option: 'input' },
    )
  return { target, ...(offset === undefined || offset === 0 ? {} : { rssiOffsetDb: offset }) }
}

/** An input as `--input` writes it (the target in its one spelling). */
export function espHomeInputText(input: EspHomeInput): string {
  const offset = input.rssiOffsetDb === undefined ? '' : `@${input.rssiOffsetDb}`
  return `${ESPHOME_INPUT}${targetText(input.target)}${offset}`
}
