/**
 * The `--input` value: `<format>[:<base>][@<offset dB>]`, e.g. `espresense`, `omg:home`,
 * `theengs:home@-4`. A format's base defaults to its firmware's default topic (`home` for
 * OpenMQTTGateway and Theengs Gateway, `espresense` for ESPresense).
 */
import { InvalidOptionError } from '../errors.js'
import type { ForeignFormat, ForeignInput } from './foreign.js'

const DEFAULT_BASE: Record<ForeignFormat, string> = { omg: 'home', theengs: 'home', espresense: 'espresense' }

/** How an input is named in messages and docs. */
export const FORMAT_NAMES: Record<ForeignFormat, string> = {
  omg: 'OpenMQTTGateway',
  theengs: 'Theengs Gateway',
  espresense: 'ESPresense',
}

/** Parses one `--input` value. @throws InvalidOptionError (option `input`) naming what is wrong. */
export function parseInputSpec(text: string): ForeignInput {
  const m = /^(omg|theengs|espresense)(?::([^@]+))?(?:@([-+]?\d+(?:\.\d+)?))?$/.exec(text)
  if (m === null) {
    throw new InvalidOptionError(
      'invalid_option',
      `--input ${JSON.stringify(text.slice(0, 80))} is not an input: use espresense, omg[:<base>] or theengs[:<base>], optionally @<RSSI offset dB> (e.g. omg:home@-4)`,
      { option: 'input' },
    )
  }
  const format = m[1] as ForeignFormat
  const base = m[2] ?? DEFAULT_BASE[format]
  if (/[+#]/.test(base) || base.split('/').includes('')) {
    throw new InvalidOptionError(
      'invalid_option',
      `--input ${format}: the base topic ${JSON.stringify(base.slice(0, 80))} must be topic levels without wildcards, e.g. home`,
      { option: 'input' },
    )
  }
  const offset = m[3] === undefined ? undefined : Number(m[3])
  if (offset !== undefined && Math.abs(offset) > 40)
    throw new InvalidOptionError(
      'invalid_option',
      `--input ${format}: an RSSI offset of ${offset} dB is not an antenna difference (at most ±40)`,
      { option: 'input' },
    )
  return { format, base, ...(offset === undefined || offset === 0 ? {} : { rssiOffsetDb: offset }) }
}
