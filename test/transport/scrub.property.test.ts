// No error ever shows the password: not whole, not encoded the ways a server or a proxy may
// echo it (URL, form, base64 as in the basic-auth header), not as a run of 8 or more of its
// characters, wherever the echo falls relative to the 200-character cut.
import { describe, it, expect, afterAll, beforeAll } from 'vitest'
import fc from 'fast-check'
import { inspect } from 'node:util'
import { AccountClient } from '../../src/cloud/account-client.js'
import { Scrubber, scrubSecrets } from '../../src/transport/scrub.js'
import { AccountError } from '../../src/errors.js'
import { loopback } from '../cloud/loopback.js'
import type { Loopback } from '../cloud/loopback.js'

/**
 * Everything that must not appear, computed here independently of the scrubber. A password
 * shorter than 8 characters must not appear whole; a longer one must not appear as any run of
 * 8 of its characters (which covers the whole and every longer part).
 */
function forbidden(password: string, email: string): string[] {
  const basic = Buffer.from(`${email}:${password}`, 'utf8').toString('base64')
  const uri = encodeURIComponent(password)
  const encodings = [
    password,
    uri,
    uri.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase()),
    new URLSearchParams({ p: password }).toString().slice(2),
    Buffer.from(password, 'utf8').toString('base64'),
    Buffer.from(password, 'utf8').toString('base64url'),
    basic,
    `Basic ${basic}`,
  ]
  const runs: string[] = []
  for (let i = 0; i + 8 <= password.length; i++) runs.push(password.slice(i, i + 8))
  return [...new Set([...encodings, ...runs])]
}

function leaks(text: string, password: string, email: string): string[] {
  return forbidden(password, email).filter((f) => text.includes(f))
}

// '*' is left out: the mask is '***', so text around a mask could spell a password made of
// stars without revealing anything. Everything else a keyboard (and more) types is in.
const passwordChar = fc.oneof(
  fc.constantFrom(...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'),
  fc.constantFrom(...' !"#$%&\'()+,-./:;<=>?@[\\]^_`{|}~'),
  fc.constantFrom('é', 'ß', '€', 'Ω', '中', '😀'),
)
const password = fc.string({ unit: passwordChar, minLength: 1, maxLength: 40 })
const filler = fc.string({ unit: fc.constantFrom(...'abc XYZ 012 .,:/'), maxLength: 260 })

/** The ways a server or a network stack might echo it, including a part of it. */
function echo(pw: string, email: string, how: number, from: number, length: number): string {
  switch (how) {
    case 0:
      return pw
    case 1:
      return encodeURIComponent(pw)
    case 2:
      return new URLSearchParams({ password: pw, email }).toString()
    case 3:
      return `Authorization: Basic ${Buffer.from(`${email}:${pw}`, 'utf8').toString('base64')}`
    case 4:
      return Buffer.from(pw, 'utf8').toString('base64')
    case 5:
      return `{"password":${JSON.stringify(pw)}}`
    default: {
      const start = from % pw.length
      return pw.slice(start, start + 8 + (length % 32))
    }
  }
}

const echoed = fc.record({
  pw: password,
  email: fc.emailAddress(),
  how: fc.integer({ min: 0, max: 6 }),
  from: fc.nat(),
  length: fc.nat(),
  before: filler,
  after: filler,
  cut: fc.integer({ min: 1, max: 400 }),
})

describe('scrubbing secrets', () => {
  it('masks the password, its encodings and every 8-character run of it, then cuts', () => {
    fc.assert(
      fc.property(echoed, ({ pw, email, how, from, length, before, after, cut }) => {
        const basic = Buffer.from(`${email}:${pw}`, 'utf8').toString('base64')
        const text = `${before}${echo(pw, email, how, from, length)}${after}`
        const out = new Scrubber([pw, basic]).scrub(text, cut)
        expect(leaks(out, pw, email)).toEqual([])
        expect(out.length).toBeLessThanOrEqual(cut)
      }),
      { numRuns: 2000 },
    )
  })

  it('leaves text without secrets alone, and masks an echo straddling the cut before cutting', () => {
    expect(scrubSecrets('nothing to hide here', ['S3cret-pa55word!'])).toBe('nothing to hide here')
    const pw = 'S3cret-pa55word!'
    const text = `${'x'.repeat(195)}${pw} trailing`
    const out = scrubSecrets(text, [pw], 200)
    expect(out.startsWith(`${'x'.repeat(195)}***`)).toBe(true)
    expect(out).not.toContain('S3cre')
  })

  it('is linear enough for a 64 KiB server message', () => {
    const pw = 'S3cret-pa55word!'
    const text = `${'abcdefgh'.repeat(8192)}${pw}`
    expect(scrubSecrets(text, [pw]).endsWith('***')).toBe(true)
  })
})

describe('AccountClient errors echoing the password', () => {
  let server: Loopback
  let answer = ''
  beforeAll(async () => {
    server = await loopback((_req, res) => {
      res.writeHead(400, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ message: answer }))
    })
  })
  afterAll(() => server.close())

  it('never carry it, in the message, inspect or JSON, through a real server', async () => {
    await fc.assert(
      fc.asyncProperty(echoed, async ({ pw, email, how, from, length, before, after }) => {
        answer = `${before}${echo(pw, email, how, from, length)}${after}`
        const client = new AccountClient({ baseUrl: server.url, email, password: pw })
        const e = await client.verify().then(
          () => undefined,
          (err: unknown) => err,
        )
        expect(e).toBeInstanceOf(AccountError)
        expect(leaks(`${(e as Error).message}\n${client.scrub(answer)}`, pw, email)).toEqual([])
        // inspect adds the stack's frames (function and file names such as "AsyncProperty"),
        // which a generated password may share without anything leaking: the frames come from
        // the code, not from the server, so they are left out; everything else inspect shows
        // (the message, the code, the status, the cause) is checked.
        const shown = inspect(e).split('\n').filter((l) => !/^\s+at /.test(l)).join('\n')
        if (pw.length >= 8) expect(leaks(`${shown}\n${JSON.stringify(e)}`, pw, email)).toEqual([])
      }),
      { numRuns: 150 },
    )
  })
})
