/**
 * Where a proxy is: `<host>[:<port>]` as `--input esphome:<host>[:<port>]` and the keys file write
 * it. A host is a DNS name (`hall-proxy.local`), an IPv4 address, or an IPv6 address in brackets
 * (`[fd00::12]:6053`); the port defaults to the native API's 6053.
 */
import { InvalidOptionError } from '../../errors.js'

/** The native API's default port (`api: port:`). */
export const DEFAULT_ESPHOME_PORT = 6053

/** One proxy's address. */
export interface EspHomeTarget {
  /** As written, lower-cased; an IPv6 address without its brackets. */
  host: string
  port: number
}

const NAME = /^(?=.{1,253}$)[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/
const IPV6 = /^[0-9a-f:.]{2,45}$/

/** Parses `<host>[:<port>]`; undefined when it is not one. */
export function parseEspHomeTarget(text: string): EspHomeTarget | undefined {
  const t = text.trim().toLowerCase()
  const m = /^(?:\[([^\]]+)\]|([^:[\]]+))(?::(\d{1,5}))?$/.exec(t)
  if (m === null) return undefined
  const host = m[1] ?? m[2]
  if (m[1] !== undefined ? !IPV6.test(host) || !host.includes(':') : !NAME.test(host)) return undefined
  const port = m[3] === undefined ? DEFAULT_ESPHOME_PORT : Number(m[3])
  if (port < 1 || port > 65535) return undefined
  return { host, port }
}

/** `host:port` (`[v6]:port`): one spelling per target, the keys file's lookup key. */
export function targetText(t: EspHomeTarget): string {
  return t.host.includes(':') ? `[${t.host}]:${t.port}` : `${t.host}:${t.port}`
}

/**
 * The target of an `--input esphome:<host>[:<port>]` value (the part after `esphome:`).
 * @throws InvalidOptionError (option `input`) saying what a target looks like.
 */
export function espHomeInputTarget(text: string): EspHomeTarget {
  const t = parseEspHomeTarget(text)
  if (t === undefined)
    throw new InvalidOptionError(
      'invalid_option',
      `--input esphome:${JSON.stringify(text.slice(0, 80))} is not a proxy address: use ` +
        'esphome:<host>[:<port>], e.g. esphome:hall-proxy.local or esphome:192.168.1.40:6053',
      { option: 'input' },
    )
  return t
}
