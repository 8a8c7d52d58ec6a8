/**
 * Reading and checking option values: strings, numbers, ports, adapters, durations, logging. Every refusal is an
 * InvalidOptionError whose message names the option, says what it takes and points at the help.
 */

import { InvalidOptionError } from '../errors.js'
import { POSITIONING_METHODS, type PositioningMethod } from '../positioning/types.js'
import type { LogFlags } from './command-line.js'
import { LOG_FORMATS, LOG_LEVELS } from '../log/logger.js'
import type { LogFormat, LogThreshold } from '../log/logger.js'

/** Option values as parseArgs returns them. */
export type Values = Record<string, string | boolean | (string | boolean)[] | undefined>

/** Throws the InvalidOptionError for `option`, pointing at the command's help. */
export function fail(option: string, message: string, command?: string): never {
  const hint = command === undefined ? 'beaconkit --help' : `beaconkit ${command} --help`
  throw new InvalidOptionError('invalid_option', `${message} (see \`${hint}\`)`, { option })
}

/** Positional arguments may be secrets typed in the wrong place: echo only short ones. */
export function quote(text: string): string {
  return text.length <= 24 ? `'${text}'` : `(${text.length} characters)`
}

/** A string option, or undefined when not given. */
export function str(values: Values, name: string): string | undefined {
  const v = values[name]
  return typeof v === 'string' ? v : undefined
}

/** A repeatable string option (empty when not given). */
export function strs(values: Values, name: string): string[] {
  const v = values[name]
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : []
}

/** A boolean flag. */
export function bool(values: Values, name: string): boolean {
  return values[name] === true
}

/** A number option checked against `check`; undefined when not given. */
export function number(
  values: Values,
  name: string,
  command: string,
  check: { min?: number; max?: number; integer?: boolean; positive?: boolean; what: string },
): number | undefined {
  const text = str(values, name)
  if (text === undefined) return undefined
  const n = /^[+-]?(\d+(\.\d*)?|\.\d+)(e[+-]?\d+)?$/i.test(text.trim()) ? Number(text) : NaN
  const ok =
    Number.isFinite(n) &&
    (check.integer !== true || Number.isInteger(n)) &&
    (check.min === undefined || n >= check.min) &&
    (check.max === undefined || n <= check.max) &&
    (check.positive !== true || n > 0)
  if (!ok) fail(name, `--${name} must be ${check.what}, not ${quote(text)}`, command)
  return n
}

/**
 * A TCP port option (`--port`, `--embedded-broker`): a whole number 0–65535 (0: a free one), or undefined
 * when not given.
 */
export function tcpPort(values: Values, name: string, command: string): number | undefined {
  return number(values, name, command, { integer: true, min: 0, max: 65535, what: 'a TCP port between 0 and 65535' })
}

/** Exactly `count` positional arguments, or a usage error. */
export function positionals(list: string[], count: number, usage: string, command: string): string[] {
  if (list.length < count) fail('argument', `missing argument: ${usage}`, command)
  if (list.length > count) fail('argument', `unexpected argument ${quote(list[count])}: ${usage}`, command)
  return list
}

/** Repeatable `--hci <n>`: the adapter numbers, in the order given, each once. */
export function hciList(values: Values, command: string): number[] {
  const list: number[] = []
  for (const text of strs(values, 'hci')) {
    const n = hci({ hci: text }, command) as number
    if (list.includes(n)) fail('hci', `--hci ${n} is given twice: name each adapter once`, command)
    list.push(n)
  }
  return list
}

/** `--hci <n>`: the adapter number. */
export function hci(values: Values, command: string): number | undefined {
  return number(values, 'hci', command, {
    integer: true,
    min: 0,
    max: 255,
    what: 'an adapter number such as 0 (hci0) or 1 (hci1)',
  })
}

/** `--duration <seconds>`, in milliseconds. */
export function durationMs(values: Values, command: string): number | undefined {
  const s = number(values, 'duration', command, { positive: true, what: 'a positive number of seconds' })
  return s === undefined ? undefined : s * 1000
}

/** `--seed <n>`, default 1. */
export function seed(values: Values, command: string): number {
  return (
    number(values, 'seed', command, {
      integer: true,
      min: 0,
      max: 2 ** 32 - 1,
      what: 'a whole number between 0 and 4294967295',
    }) ?? 1
  )
}

/** `--speed <factor>`, default 1; refused together with `--virtual`. */
export function speed(values: Values, command: string): number {
  const s =
    number(values, 'speed', command, { positive: true, max: 1e6, what: 'a positive factor such as 1, 10 or 0.5' }) ?? 1
  if (s !== 1 && bool(values, 'virtual'))
    fail('speed', '--speed and --virtual exclude each other: --virtual already runs as fast as possible', command)
  return s
}

/** `--method <name>`: a positioning method, default the grid filter. */
export function positioningMethod(values: Values, command: string): PositioningMethod {
  const text = str(values, 'method') ?? 'filter'
  const method = POSITIONING_METHODS.find((m) => m === text)
  if (method === undefined)
    fail('method', `--method takes one of ${POSITIONING_METHODS.join(', ')}, not ${quote(text)}`, command)
  return method
}

const THRESHOLDS: readonly string[] = [...LOG_LEVELS, 'silent']

/** `--log-level` and `--log-format`; undefined when neither is given (the defaults: info, auto). */
export function parseLog(values: Values, command: string): LogFlags | undefined {
  const level = str(values, 'log-level')
  const format = str(values, 'log-format')
  if (level !== undefined && !THRESHOLDS.includes(level))
    fail('log-level', `--log-level takes ${THRESHOLDS.join(', ')}, not ${quote(level)}`, command)
  if (format !== undefined && !(LOG_FORMATS as readonly string[]).includes(format))
    fail('log-format', `--log-format takes ${LOG_FORMATS.join(', ')}, not ${quote(format)}`, command)
  if (level === undefined && format === undefined) return undefined
  return {
    ...(level === undefined ? {} : { level: level as LogThreshold }),
    ...(format === undefined ? {} : { format: format as LogFormat }),
  }
}
