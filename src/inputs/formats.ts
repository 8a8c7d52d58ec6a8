/**
 * The registry of foreign input formats: the one place that lists them. The bridge, the
 * `--input` parser and its error message read formats from here and know none by name, so a new
 * format is its own file (an {@link InputFormat}) and one line below.
 */
import { espresense } from './espresense.js'
import type { InputFormat } from './format.js'
import { omg, theengs } from './omg.js'

/** The formats beaconkit ships, one a line, in the order the `--input` error lists them. */
export const BUILT_IN_FORMATS = [
  espresense, // ESPresense rooms
  omg, // OpenMQTTGateway
  theengs, // Theengs Gateway: OpenMQTTGateway's format under its own name
] as const

const registry = new Map<string, InputFormat>(BUILT_IN_FORMATS.map((f) => [f.name, f]))

/** The format of that `--input` name, or undefined. */
export function inputFormat(name: string): InputFormat | undefined {
  return registry.get(name)
}

/** Every format, in registration order. */
export function inputFormats(): InputFormat[] {
  return [...registry.values()]
}

/**
 * Adds a format beside the built-in ones (a program's own gateway firmware, a test); returns
 * what removes it again. @throws TypeError when the name is taken or not a plain lower-case name.
 */
export function registerInputFormat(format: InputFormat): () => void {
  if (!/^[a-z][a-z0-9-]*$/.test(format.name))
    throw new TypeError(`input format name ${JSON.stringify(format.name)}: use lower-case letters, digits and -`)
  if (registry.has(format.name)) throw new TypeError(`input format ${format.name} is registered already`)
  registry.set(format.name, format)
  return () => {
    if (registry.get(format.name) === format) registry.delete(format.name)
  }
}
