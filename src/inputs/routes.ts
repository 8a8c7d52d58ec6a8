/**
 * The bridge's inputs as routes: each configured input with its format's parser and topic
 * filters, looked up in the registry (formats.ts). Inputs that are one set of topics (OMG and
 * Theengs under one base) are one route, so each message is parsed and counted once.
 */
import type { ForeignInput } from './foreign.js'
import type { InputFormat } from './format.js'
import { inputFormat } from './formats.js'
import type { ForeignParser } from './message.js'

/** One input the bridge listens to. */
export interface Route {
  input: ForeignInput
  format: InputFormat
  parse: ForeignParser
  filters: string[]
}

/** The routes of `inputs`, the first of inputs sharing their filters. @throws TypeError for an unknown format. */
export function routesOf(inputs: readonly ForeignInput[]): Route[] {
  const seen = new Set<string>()
  const routes: Route[] = []
  for (const input of inputs) {
    const format = inputFormat(input.format)
    if (format === undefined) throw new TypeError(`ForeignBridge: no input format ${JSON.stringify(input.format)}`)
    const filters = format.filters(input.base)
    const key = filters.join(' ')
    if (seen.has(key)) continue
    seen.add(key)
    routes.push({ input, format, parse: format.parser(input.base), filters })
  }
  return routes
}

/** `<format>:<base>` of each route: what the bridge shows of its inputs. */
export function routeNames(routes: readonly Route[]): string[] {
  return routes.map((r) => `${r.input.format}:${r.input.base}`)
}
