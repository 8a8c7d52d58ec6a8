import { chmod, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { InvalidOptionError } from '../../../src/errors.js'
import { EspHomeKeys } from '../../../src/inputs/esphome/keys.js'
import { espHomeInputTarget, parseEspHomeTarget } from '../../../src/inputs/esphome/target.js'

const KEY = Buffer.alloc(32, 0x11).toString('base64')
const KEY2 = Buffer.alloc(32, 0x22).toString('base64')

async function file(text: string, mode: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'esphome-keys-'))
  const path = join(dir, 'keys')
  await writeFile(path, text)
  await chmod(path, mode)
  return path
}

describe('parseEspHomeTarget', () => {
  it('reads names, IPv4 and bracketed IPv6, with 6053 by default', () => {
    expect(parseEspHomeTarget('Hall-Proxy.local')).toEqual({ host: 'hall-proxy.local', port: 6053 })
    expect(parseEspHomeTarget('192.168.1.40:6054')).toEqual({ host: '192.168.1.40', port: 6054 })
    expect(parseEspHomeTarget('[fd00::12]:6053')).toEqual({ host: 'fd00::12', port: 6053 })
  })

  it('refuses what is not a host and port', () => {
    for (const bad of ['', 'a b', 'host:0', 'host:70000', 'fd00::12', '-host', 'host:', '[zz]:1', 'host/x'])
      expect(parseEspHomeTarget(bad)).toBeUndefined()
    expect(() => espHomeInputTarget('no such host!')).toThrow(/esphome:<host>\[:<port>\]/)
  })
})

describe('EspHomeKeys', () => {
  it('reads host:port lines with comments and finds a key by target', async () => {
    const path = await file(`# proxies\nhall-proxy.local:6053 ${KEY}  # hall\r\n\n[fd00::12]:6053 ${KEY2}\n`, 0o600)
    const keys = await EspHomeKeys.fromFile(path)
    expect(keys.size).toBe(2)
    expect(Buffer.from(keys.get({ host: 'hall-proxy.local', port: 6053 }) as Uint8Array).toString('base64')).toBe(KEY)
    expect(keys.get({ host: 'fd00::12', port: 6053 })).toBeDefined()
    expect(keys.get({ host: 'hall-proxy.local', port: 6054 })).toBeUndefined()
  })

  it('refuses a file other users can read, without printing a key', async () => {
    const path = await file(`hall-proxy.local:6053 ${KEY}\n`, 0o644)
    const error = await EspHomeKeys.fromFile(path).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidOptionError)
    expect((error as InvalidOptionError).code).toBe('config_not_private')
    expect((error as Error).message).toContain('chmod 600')
    expect((error as Error).message).not.toContain(KEY)
  })

  it('names the line of a bad entry and never the key', () => {
    const cases: Array<[string, RegExp]> = [
      [`hall-proxy.local ${KEY}`, /line 1: the first word must be <host>:<port>/],
      [`hall:6053 ${KEY.slice(0, 40)}`, /line 1: the key must be 32 bytes/],
      [`hall:6053`, /line 1: expected <host>:<port> <base64 key>/],
      [`hall:6053 ${KEY}\nhall:6053 ${KEY2}`, /line 2: a second key for hall:6053/],
    ]
    for (const [text, message] of cases) {
      const error = (() => {
        try {
          EspHomeKeys.fromText(text)
        } catch (e) {
          return e as InvalidOptionError
        }
      })()
      expect(error?.code).toBe('invalid_option')
      expect(error?.message).toMatch(message)
      expect(error?.message).not.toContain(KEY.slice(0, 20))
    }
  })

  it('shows targets only in JSON, inspect and text', () => {
    const keys = EspHomeKeys.fromText(`hall:6053 ${KEY}`)
    for (const shown of [JSON.stringify(keys), inspect(keys, { showHidden: true, depth: 5 }), String(keys)]) {
      expect(shown).toContain('hall:6053')
      expect(shown).not.toContain(KEY)
      expect(shown).not.toContain('11111111')
    }
  })
})
