/**
 * The `--input` value: `<format>[:<base>][@<offset dB>]`, e.g. `espresense`, `omg:home`,
 * `theengs:home@-4`. A format's base defaults to its firmware's default topic (`home` for
 * OpenMQTTGateway and Theengs Gateway, `espresense` for ESPresense). The formats are the
 * registry's (formats.ts).
 */
import { InvalidOptionError } from '../errors.js'
import type { ForeignFormat, ForeignInput } from './foreign.js'
import { inputFormat, inputFormats } from './formats.js'

/** `a, b or c`: the registry's formats as the error message lists them. */
function usages(): string {
  const all = inputFormats().map((f) => f.usage)
  return all.length < 2 ? all.join('') : `${all.slice(0, -1).join(', ')} or ${all[all.length - 1]}`
}

/** Parses one `--input` value. @throws InvalidOptionError (option `input`) naming what is wrong. */
export function parseInputSpec(text: string): ForeignInput {
  const m = /^([a-z][a-z0-9-]*)(?::([^@]+))?(?:@([-+]?\d+(?:\.\d+)?))?$/.exec(text)
  const known = m === null ? undefined : inputFormat(m[1] as string)
  if (m === null || known === undefined) {
    throw new InvalidOptionError(
      'invalid_option',
      `--input ${JSON.stringify(text.slice(0, 80))} is not an input: use ${usages()}, ` +
        // ESPHome proxies are no MQTT format (esphome/input-spec.ts), but an input all the same.
        'optionally @<RSSI offset dB> (e.g. omg:home@-4), or esphome:<host>[:<port>] for an ESPHome proxy',
      { option: 'input' },
    )
  }
  // A registered name outside the shipped list (formats.ts) is a format all the same.
  const format = known.name as ForeignFormat
  const base = m[2] ?? known.defaultBase
  if (/[+#]/.test(base) || base.split('/').includes('')) {
    throw new InvalidOptionError(
      'invalid_option',
      `--input ${format}: the base topic ${JSON.stringify(base.slice(0, 80))} must be topic levels ` +
        'without wildcards, e.g. home',
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
