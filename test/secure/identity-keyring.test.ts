import { chmod, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspect } from 'node:util'
import { afterEach, describe, expect, it } from 'vitest'
import { IdentityKeyError, InvalidOptionError } from '../../src/errors.js'
import { parseIdentityKey } from '../../src/secure/identity-key.js'
import { IdentityKeyring, MAX_IDENTITY_KEYS } from '../../src/secure/identity-keyring.js'

const PHONE = 'ec0234a357c8ad05341010a60a397d9b'
const WATCH = '00112233445566778899aabbccddeeff'

/** What an error thrown by `f` says, with every field it carries. */
function thrown(f: () => unknown): { error: IdentityKeyError; text: string } {
  try {
    f()
  } catch (error) {
    if (!(error instanceof IdentityKeyError)) throw error
    return { error, text: `${error.message} ${inspect(error)} ${JSON.stringify(error)}` }
  }
  throw new Error('expected an IdentityKeyError')
}

describe('IdentityKeyring.fromText', () => {
  it('reads names and keys, skipping comments and blank lines, any line ending', () => {
    const ring = IdentityKeyring.fromText(
      `# household\r\nalice-phone ${PHONE}  # paired 2026-11\n\n\tbob.watch\t${WATCH.toUpperCase()}\r`,
    )
    expect(ring.names()).toEqual(['alice-phone', 'bob.watch'])
    expect(ring.nameForKeyHex(WATCH)).toBe('bob.watch')
    expect(ring.nameForKeyHex(PHONE.toUpperCase())).toBe('alice-phone')
    expect(ring.nameForKeyHex('ff'.repeat(16))).toBeUndefined()
  })

  it.each([
    ['a line with one field', `alice-phone\n`, 'malformed', 1],
    ['a line with three fields', `# c\nalice phone ${PHONE}\n`, 'malformed', 2],
    ['a key of 31 digits', `alice ${PHONE.slice(1)}\n`, 'malformed', 1],
    ['a key with a non-hex digit', `alice ${PHONE.slice(0, 31)}g\n`, 'malformed', 1],
    ['an all-zero key', `alice ${'0'.repeat(32)}\n`, 'malformed', 1],
    ['a name with a slash', `ali/ce ${PHONE}\n`, 'invalid_name', 1],
    ['a name of 65 characters', `${'a'.repeat(65)} ${PHONE}\n`, 'invalid_name', 1],
    ['the same name twice', `alice ${PHONE}\n\nalice ${WATCH}\n`, 'duplicate_name', 3],
    ['the same key under two names', `alice ${PHONE}\nbob ${PHONE.toUpperCase()}\n`, 'duplicate_key', 2],
    ['key and name swapped', `${PHONE} alice\n`, 'malformed', 1],
  ])('refuses %s with the line number and without the key', (_, text, code, line) => {
    const { error, text: said } = thrown(() => IdentityKeyring.fromText(text, { source: 'IRK file irk.txt' }))
    expect(error.code).toBe(code)
    expect(error.line).toBe(line)
    expect(error.message).toContain(`IRK file irk.txt, line ${line}:`)
    for (const key of [PHONE, WATCH, PHONE.slice(1), PHONE.slice(0, 31)])
      expect(said.toLowerCase()).not.toContain(key.toLowerCase())
  })

  it('names the first line of a duplicated name', () => {
    const { error } = thrown(() => IdentityKeyring.fromText(`alice ${PHONE}\nalice ${WATCH}\n`))
    expect(error.message).toMatch(/line 2: .*first on line 1/)
  })

  it(`holds at most ${MAX_IDENTITY_KEYS} keys`, () => {
    const lines = Array.from(
      { length: MAX_IDENTITY_KEYS + 1 },
      (_, i) => `k${i} ${(i + 1).toString(16).padStart(32, '0')}`,
    )
    const { error } = thrown(() => IdentityKeyring.fromText(lines.join('\n')))
    expect(error.code).toBe('too_many_keys')
    expect(error.line).toBe(MAX_IDENTITY_KEYS + 1)
  })

  it('accepts the very same key under the very same name again', () => {
    const ring = new IdentityKeyring([parseIdentityKey('alice', PHONE), parseIdentityKey('alice', PHONE)])
    expect(ring.size).toBe(1)
  })
})

describe('keys stay secret', () => {
  it('shows names only in JSON, util.inspect and String()', () => {
    const ring = IdentityKeyring.fromText(`alice ${PHONE}\nbob ${WATCH}\n`)
    const key = ring.get('alice')!
    const texts = [
      JSON.stringify(ring),
      JSON.stringify(key),
      JSON.stringify({ ...key }),
      inspect(ring, { depth: 10, showHidden: true }),
      inspect(key, { depth: 10, showHidden: true }),
      inspect(ring.keys()),
      String(ring),
      String(key),
    ]
    for (const t of texts) {
      expect(t.toLowerCase()).not.toContain(PHONE)
      expect(t.toLowerCase()).not.toContain(WATCH)
    }
    expect(JSON.parse(JSON.stringify(ring))).toEqual({ names: ['alice', 'bob'] })
    expect(JSON.parse(JSON.stringify(key))).toEqual({ name: 'alice' })
    expect(inspect(ring)).toBe("IdentityKeyring { size: 2, names: ['alice', 'bob'] }")
  })
})

describe('IdentityKeyring.fromFile', () => {
  const dirs: string[] = []
  afterEach(async () => {
    for (const d of dirs.splice(0)) await rm(d, { recursive: true, force: true })
  })

  async function irkFile(text: string, mode: number): Promise<string> {
    const dir = await mkdtemp(join(tmpdir(), 'beaconkit-irk-'))
    dirs.push(dir)
    const file = join(dir, 'irk.txt')
    await writeFile(file, text)
    await chmod(file, mode)
    return file
  }

  it('reads a private file (mode 600)', async () => {
    const ring = await IdentityKeyring.fromFile(await irkFile(`alice ${PHONE}\n`, 0o600))
    expect(ring.names()).toEqual(['alice'])
  })

  it.skipIf(process.platform === 'win32').each([0o640, 0o604, 0o644])(
    'refuses a file of mode %o that others can read, without printing a key',
    async (mode) => {
      const file = await irkFile(`alice ${PHONE}\n`, mode)
      const error = await IdentityKeyring.fromFile(file).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(IdentityKeyError)
      expect((error as IdentityKeyError).code).toBe('not_private')
      expect((error as IdentityKeyError).message).toContain(`chmod 600 ${file}`)
      expect(`${inspect(error)}`.toLowerCase()).not.toContain(PHONE)
    },
  )

  it('names the file and the line of a bad line', async () => {
    const file = await irkFile(`alice ${PHONE}\nbob nonsense\n`, 0o600)
    await expect(IdentityKeyring.fromFile(file)).rejects.toMatchObject({
      code: 'malformed',
      line: 2,
      message: expect.stringContaining(`IRK file ${file}, line 2:`),
    })
  })

  it('refuses a missing file with the typed file error', async () => {
    const error = await IdentityKeyring.fromFile(join(tmpdir(), 'no-such-irk-file.txt')).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(InvalidOptionError)
    expect((error as InvalidOptionError).code).toBe('file_not_found')
  })
})
