import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspect } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'
import { BroadcastKeyError, InvalidOptionError } from '../../src/errors.js'
import { parseBroadcastKey } from '../../src/secure/broadcast-key.js'
import { Keyring, keyringVersion } from '../../src/secure/keyring.js'
import { randomKeyString, secretFragments, seeded } from './helpers.js'

const RAW = '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'
const WRAPPED = '01Y2GLh1yw3+6Aq0RsnOQ8xNvXTnDUTTLE937Yedd/DnlcV0ixCWo7JQ+VEWRSya80yea6u5aWgnW1ACjKNzFnig=='
const rand = seeded(7)

function thrown(fn: () => unknown): Error {
  try {
    fn()
  } catch (err) {
    return err as Error
  }
  throw new Error('expected an error')
}

describe('Keyring: adding, removing, listing', () => {
  it('starts empty, takes keys and strings, and looks them up by key id in any case or as a number', () => {
    const ring = new Keyring()
    expect(ring.size).toBe(0)
    expect(ring.keyIds()).toEqual([])
    const other = randomKeyString(rand, 0xab12)
    ring.add(parseBroadcastKey(RAW)).add(other)
    expect(ring.size).toBe(2)
    expect(ring.keyIds()).toEqual(['0001', 'ab12'])
    expect(ring.has('0001')).toBe(true)
    expect(ring.has('AB12')).toBe(true)
    expect(ring.has(0xab12)).toBe(true)
    expect(ring.has('ab13')).toBe(false)
    expect(ring.get('ab12')?.equals(parseBroadcastKey(other))).toBe(true)
    expect(ring.get('ffff')).toBeUndefined()
  })

  it('changes its version on every change of keys, and only then', () => {
    const ring = new Keyring()
    const v0 = keyringVersion(ring)
    ring.add(RAW)
    const v1 = keyringVersion(ring)
    expect(v1).not.toBe(v0)
    ring.add(RAW) // the same key again: no change
    ring.remove('0002') // nothing removed
    expect(keyringVersion(ring)).toBe(v1)
    ring.remove('0001')
    expect(keyringVersion(ring)).not.toBe(v1)
  })

  it('takes an iterable in the constructor', () => {
    const ring = new Keyring([RAW, parseBroadcastKey(WRAPPED, { now: 0 })])
    expect(ring.keyIds()).toEqual(['0001', '6016'])
  })

  it('removes by key id and reports whether something was removed', () => {
    const ring = new Keyring([RAW])
    expect(ring.remove('0002')).toBe(false)
    expect(ring.remove('0001')).toBe(true)
    expect(ring.size).toBe(0)
    expect(ring.has('0001')).toBe(false)
  })

  it('refuses a different key with the same key id, naming the id but not the key', () => {
    const ring = new Keyring([RAW])
    const clash = randomKeyString(rand, 0x0001)
    const err = thrown(() => ring.add(clash))
    expect(err).toBeInstanceOf(BroadcastKeyError)
    expect((err as BroadcastKeyError).code).toBe('duplicate_key_id')
    expect(err.message).toContain('0001')
    for (const f of [...secretFragments(clash), ...secretFragments(RAW)]) expect(err.message).not.toContain(f)
    expect(ring.size).toBe(1)
    expect(ring.get('0001')?.equals(parseBroadcastKey(RAW))).toBe(true)
  })

  it('treats adding the very same key again as a no-op', () => {
    const ring = new Keyring([RAW])
    ring.add(RAW.toUpperCase())
    expect(ring.size).toBe(1)
  })

  it('refuses key id 0000, which marks plaintext frames', () => {
    const err = thrown(() => new Keyring([randomKeyString(rand, 0)]))
    expect((err as BroadcastKeyError).code).toBe('malformed')
  })

  it('rejects a bad key id argument with a typed error', () => {
    const ring = new Keyring()
    expect(thrown(() => ring.has('xyz'))).toBeInstanceOf(InvalidOptionError)
    expect(thrown(() => ring.remove(70000))).toBeInstanceOf(InvalidOptionError)
  })

  it('holds thousands of keys at once and finds each by its id', () => {
    const r = seeded(99)
    const strings = new Map<number, string>()
    while (strings.size < 5000) {
      const id = 1 + Math.floor(r() * 0xffff)
      if (!strings.has(id)) strings.set(id, randomKeyString(r, id))
    }
    const ring = new Keyring(strings.values())
    expect(ring.size).toBe(5000)
    for (const [id, s] of strings) expect(ring.get(id)?.equals(parseBroadcastKey(s))).toBe(true)
  })

  it('prints key ids only', () => {
    const ring = new Keyring([RAW, parseBroadcastKey(WRAPPED, { now: 0 })])
    const outputs = [
      JSON.stringify(ring),
      inspect(ring),
      inspect(ring, { showHidden: true, depth: Infinity, customInspect: false }),
      String(ring),
      JSON.stringify({ ...ring }),
      JSON.stringify(ring.keyIds().map((id) => ring.get(id))),
    ]
    for (const out of outputs) {
      for (const f of [...secretFragments(RAW), ...secretFragments('19c6c20ed86ab36167d7fa070d8060166df61f1b')]) {
        expect(out).not.toContain(f)
      }
    }
    expect(JSON.parse(JSON.stringify(ring))).toEqual({ keyIds: ['0001', '6016'] })
    expect(inspect(ring)).toBe("Keyring { size: 2, keyIds: ['0001', '6016'] }")
  })
})

describe('Keyring.fromText / fromFile', () => {
  const k2 = randomKeyString(rand, 0x1234)
  const text = [
    '# fleet keys, rotated 2026-11',
    '',
    `${RAW}   # old key, remove after rollout`,
    `  ${k2.toUpperCase()}  `,
    '\t',
    `${WRAPPED}`,
  ].join('\r\n')

  it('reads one key per line, skipping comments and blank lines', () => {
    const ring = Keyring.fromText(text, { now: new Date('2015-01-01T00:00:00Z') })
    expect(ring.keyIds()).toEqual(['0001', '1234', '6016'])
  })

  it('names the line of a bad key, keeps the code, and never shows the key', () => {
    const err = thrown(() => Keyring.fromText(text)) as BroadcastKeyError
    expect(err).toBeInstanceOf(BroadcastKeyError)
    expect(err.code).toBe('expired')
    expect(err.message).toMatch(/line 6\b/)
    expect(err.expiresAt?.toISOString()).toBe('2015-12-31T16:00:00.000Z')
    const corrupt = RAW.slice(0, 39) + '6'
    const err2 = thrown(() => Keyring.fromText(`# a\n${RAW}\n${corrupt}\n`)) as BroadcastKeyError
    expect(err2.code).toBe('digest_mismatch')
    expect(err2.message).toMatch(/line 3\b/)
    for (const f of secretFragments(corrupt)) expect(err2.message).not.toContain(f)
    const err3 = thrown(() => Keyring.fromText(`${RAW}\n${RAW.slice(0, 28)}00016f461205\n${randomKeyString(rand, 1)}`)) as BroadcastKeyError
    expect(err3.code).toBe('duplicate_key_id')
    expect(err3.message).toMatch(/line 3\b/)
  })

  const dirs: string[] = []
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true })
  })

  it('reads a real file', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'beaconkit-keys-'))
    dirs.push(dir)
    const path = join(dir, 'keys.txt')
    await writeFile(path, text, { mode: 0o600 })
    const ring = await Keyring.fromFile(path, { now: 0 })
    expect(ring.keyIds()).toEqual(['0001', '1234', '6016'])
    await expect(Keyring.fromFile(path)).rejects.toThrow(/keys\.txt, line 6/)
  })

  it('reports a missing or unreadable file with a typed error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'beaconkit-keys-'))
    dirs.push(dir)
    await expect(Keyring.fromFile(join(dir, 'nope.txt'))).rejects.toMatchObject({ code: 'file_not_found' })
    await expect(Keyring.fromFile(dir)).rejects.toMatchObject({ code: 'unreadable_file' })
    const locked = join(dir, 'locked.txt')
    await writeFile(locked, RAW)
    await chmod(locked, 0o000)
    if (process.getuid?.() !== 0) await expect(Keyring.fromFile(locked)).rejects.toBeInstanceOf(InvalidOptionError)
  })
})
