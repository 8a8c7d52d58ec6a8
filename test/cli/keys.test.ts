import { describe, it, expect } from 'vitest'
import { execFileSync } from 'node:child_process'
import { chmod, mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { checkKey, checkKeysText, formatVerdict, runKeysCheck } from '../../src/cli/commands/keys.js'
import { loadKeyring } from '../../src/gateway/settings/keys.js'
import { BroadcastKeyError } from '../../src/errors.js'
import { Keyring } from '../../src/secure/keyring.js'
import { randomKeyString, seeded } from '../secure/helpers.js'

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
    const other = randomKeyString(seeded(3), 1)
    const verdicts = checkKeysText(`# fleet keys\n${RAW}\n\n${CORRUPTED}  # typo\n${RAW}\n${other}\n`)
    expect(verdicts.map((v) => [v.line, v.status])).toEqual([
      [2, 'valid'],
      [4, 'corrupted'],
      [5, 'valid'],
      [6, 'duplicate'],
    ])
    expect(formatVerdict(verdicts[2])).toBe('line 5: valid: key id 0001, does not expire (the same key as line 2; the repeat is ignored)')
    expect(verdicts[3].message).toMatch(/second, different key with key id 0001 \(line 2 has the first\)/)
  })

  it('agrees with Keyring on duplicates: the same key twice loads, a different key with the same id does not', () => {
    const twice = `${RAW}\n${RAW}\n`
    expect(checkKeysText(twice).every((v) => v.valid)).toBe(true)
    expect(Keyring.fromText(twice).size).toBe(1)
    const clash = `${RAW}\n${randomKeyString(seeded(3), 1)}\n`
    expect(checkKeysText(clash).map((v) => v.valid)).toEqual([true, false])
    expect(() => Keyring.fromText(clash)).toThrow(expect.objectContaining({ code: 'duplicate_key_id' }))
  })

  it('reads keys files with CR-only (old Mac), CRLF and LF line endings alike', () => {
    const other = randomKeyString(seeded(4), 2)
    for (const eol of ['\r', '\r\n', '\n']) {
      const text = ['# fleet keys', RAW, '', `${other} # second`].join(eol)
      expect(checkKeysText(text).map((v) => [v.line, v.status])).toEqual([
        [2, 'valid'],
        [4, 'valid'],
      ])
      expect(Keyring.fromText(text).keyIds()).toEqual(['0001', '0002'])
    }
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
    const ring = await loadKeyring([WRAPPED], file, { now: BEFORE_EXPIRY })
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

describe('keys files', () => {
  async function keysFile(text: string, mode = 0o600): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'beaconkit-keys-'))
    const file = join(dir, 'keys.txt')
    await writeFile(file, text)
    await chmod(file, mode)
    return file
  }

  it('refuses a file with no key (only comments) instead of loading zero keys', async () => {
    const file = await keysFile('# keys go here\n\n')
    await expect(loadKeyring([], file)).rejects.toMatchObject({ code: 'invalid_option', message: expect.stringMatching(/holds no keys/) })
  })

  it('warns when other users can read a keys file, as ssh does (not on Windows)', async () => {
    const warnings: string[] = []
    await loadKeyring([], await keysFile(`${RAW}\n`, 0o644), { warn: (w) => warnings.push(w) })
    await loadKeyring([], await keysFile(`${RAW}\n`, 0o600), { warn: (w) => warnings.push(w) })
    if (process.platform === 'win32') expect(warnings).toEqual([])
    else {
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toMatch(/can be read by other users \(mode 0644\); protect it with chmod 600 .*keys\.txt$/)
    }
  })

  it('never echoes a key typed where the keys file goes', async () => {
    for (const key of [RAW, WRAPPED, CORRUPTED]) {
      const error = (await loadKeyring([], key).catch((e: unknown) => e)) as Error & { code: string }
      expect(error.code).toBe('file_not_found')
      expect(error.message).not.toContain(key.slice(0, 16))
      expect(error.message).toMatch(/looks like a broadcast key/)
    }
  })

  it.skipIf(process.platform === 'win32')('refuses a FIFO with a typed error instead of waiting for a writer', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'beaconkit-keys-'))
    const fifo = join(dir, 'keys.fifo')
    execFileSync('mkfifo', [fifo])
    await expect(loadKeyring([], fifo)).rejects.toMatchObject({ code: 'not_a_file', option: 'keys-file' })
    await expect(Keyring.fromFile(fifo)).rejects.toMatchObject({ code: 'not_a_file' })
  })
})
