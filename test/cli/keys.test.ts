import { describe, it, expect } from 'vitest'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkKey, checkKeysText, formatVerdict, loadKeyring, runKeysCheck } from '../../src/cli/keys.js'
import { BroadcastKeyError } from '../../src/errors.js'

// Public samples of PROTOCOL.md section 3.
const RAW = '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'
const CORRUPTED = '7b4b5ff594fdaf8f9fc7f2b494e400016f461206'
const WRAPPED = '01Y2GLh1yw3+6Aq0RsnOQ8xNvXTnDUTTLE937Yedd/DnlcV0ixCWo7JQ+VEWRSya80yea6u5aWgnW1ACjKNzFnig=='
const BEFORE_EXPIRY = Date.parse('2015-06-01T00:00:00Z')

function collect(): { write(t: string): void; text: () => string } {
  let text = ''
  return { write: (t: string) => void (text += t), text: () => text }
}

describe('keys check', () => {
  it('reports a valid raw key with its key id and no expiry', () => {
    expect(checkKey(RAW)).toEqual({ valid: true, status: 'valid', keyId: '0001' })
    expect(formatVerdict(checkKey(RAW))).toBe('valid: key id 0001, does not expire')
  })

  it('reports a corrupted key without printing it', () => {
    const v = checkKey(CORRUPTED)
    expect(v).toMatchObject({ valid: false, status: 'corrupted', keyId: '0001' })
    expect(formatVerdict(v)).toMatch(/^corrupted: /)
    expect(JSON.stringify(v)).not.toContain(CORRUPTED.slice(0, 28))
  })

  it('reports the wrapped sample as expired today and valid before its expiry', () => {
    const expired = checkKey(WRAPPED)
    expect(expired).toMatchObject({ valid: false, status: 'expired', expiresAt: '2015-12-31T16:00:00.000Z' })
    const valid = checkKey(WRAPPED, BEFORE_EXPIRY)
    expect(valid).toEqual({ valid: true, status: 'valid', keyId: '6016', expiresAt: '2015-12-31T16:00:00.000Z' })
    expect(formatVerdict(valid)).toBe('valid: key id 6016, valid until 2015-12-31T16:00:00.000Z')
  })

  it('reports malformed text', () => {
    expect(checkKey('hello')).toMatchObject({ valid: false, status: 'malformed' })
  })

  it('checks every line of a keys file, with line numbers, comments and duplicates', () => {
    const verdicts = checkKeysText(`# fleet keys\n${RAW}\n\n${CORRUPTED}  # typo\n${RAW}\n`)
    expect(verdicts.map((v) => [v.line, v.status])).toEqual([
      [2, 'valid'],
      [4, 'corrupted'],
      [5, 'duplicate'],
    ])
  })

  it('prints JSON lines and exits 2 when a key is bad, 0 when all are good', async () => {
    const out = collect()
    expect(await runKeysCheck({ key: RAW, json: true }, out)).toBe(0)
    expect(JSON.parse(out.text())).toEqual({ valid: true, status: 'valid', keyId: '0001' })
    const bad = collect()
    expect(await runKeysCheck({ key: WRAPPED, json: false }, bad)).toBe(2)
    expect(bad.text()).toMatch(/^expired: .*2015/)
    expect(bad.text()).not.toContain(WRAPPED)
  })
})

describe('loadKeyring', () => {
  it('is undefined without keys, and merges --keys-file with every --key', async () => {
    expect(await loadKeyring([], undefined)).toBeUndefined()
    const dir = await mkdtemp(join(tmpdir(), 'beaconkit-keys-'))
    const file = join(dir, 'keys.txt')
    await writeFile(file, `${RAW}\n`)
    const ring = await loadKeyring([WRAPPED], file, BEFORE_EXPIRY)
    expect(ring?.keyIds()).toEqual(['0001', '6016'])
  })

  it('names the bad --key by position and never echoes it', async () => {
    const error = await loadKeyring([RAW, CORRUPTED], undefined).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(BroadcastKeyError)
    expect((error as BroadcastKeyError).code).toBe('digest_mismatch')
    expect((error as Error).message).toMatch(/^--key #2: /)
    expect((error as Error).message).not.toContain(CORRUPTED.slice(0, 28))
  })
})
