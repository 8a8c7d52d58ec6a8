/**
 * A checked model as the options it stands for: `mqtt.url` becomes the value of `--mqtt`, and
 * so on (fields.ts). The command line's parser then reads these options exactly as if they had
 * been typed, beneath the ones that were typed, so the flags win and every check and default
 * of the command line applies to a config file and the environment alike.
 */

import { CONFIG_FIELDS } from './fields.js'
import { valueAt } from './load.js'

/** Option values as `util.parseArgs` returns them (strings, flags, repeated strings). */
export type OptionValues = Record<string, string | boolean | string[]>

/** The options a model fills, with where each came from (for messages). */
export interface ModelOptions {
  readonly values: OptionValues
  /** Option → where it was set, e.g. `gateway.yaml: mqtt.url` or `BEACONKIT_MQTT_URL`. */
  readonly origins: ReadonlyMap<string, string>
}

/**
 * The options of `model` that `accepts` says the command takes (a gateway's config may carry a
 * fleet section and the other way round: each command reads its own). A setting that is false
 * or an empty list sets nothing, so it never turns on a flag.
 */
export function modelOptions(
  model: unknown,
  accepts: (option: string) => boolean,
  originOf: (path: string) => string,
): ModelOptions {
  const values: OptionValues = {}
  const origins = new Map<string, string>()
  for (const field of CONFIG_FIELDS) {
    const value = valueAt(model, field.path)
    if (value === undefined) continue
    const [option, text] = optionValue(field.option, field.kind, value)
    if (text === undefined || !accepts(option)) continue
    values[option] = text
    origins.set(option, originOf(field.path))
  }
  return { values, origins }
}

function optionValue(option: string, kind: string, value: unknown): [string, string | boolean | string[] | undefined] {
  switch (kind) {
    case 'boolean':
      return [option, value === true ? true : undefined]
    case 'enabled':
      // `embeddedBroker: true` is the flag alone (port 1883); a number is its port.
      return [option, value === true ? '1883' : typeof value === 'number' ? String(value) : undefined]
    case 'strings':
    case 'numbers':
      return [option, Array.isArray(value) && value.length > 0 ? value.map(String) : undefined]
    case 'site':
      // A path is the flag; the site itself (or the beacon names) travels as JSON text.
      return typeof value === 'string' ? [option, value] : [`${option}-json`, JSON.stringify(value)]
    default:
      return [option, String(value)]
  }
}

/** Two partial models as one: `over`'s settings replace `under`'s (lists whole, objects key by key). */
export function mergeModels(under: unknown, over: unknown): unknown {
  if (!isPlainObject(under) || !isPlainObject(over)) return over === undefined ? under : over
  const out: Record<string, unknown> = { ...under }
  for (const [key, value] of Object.entries(over)) out[key] = mergeModels(under[key], value)
  return out
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}
