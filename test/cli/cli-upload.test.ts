// `--upload` through the built command against real loopback servers: the account is checked
// before anything runs, a refusal at any point ends with exit code 4 and one line, and no
// output ever carries the password, whatever the server echoes or where it redirects.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer as createHttpsServer } from 'node:https'
import { hostname, tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { startEmulator } from '../../src/emulator/emulator.js'
import { loopback } from '../cloud/loopback.js'
import type { Loopback } from '../cloud/loopback.js'
import { SERIAL, writeRecording } from './recording.js'
import { jsonLines, logMessages, runCli, startCli } from './run-cli.js'

const EMAIL = 'gw@site.test'
const PASSWORD = 'Gateway-S3cret-pw-0042'
const CERT = fileURLToPath(new URL('./fixtures/loopback-tls.crt', import.meta.url))
const KEY = fileURLToPath(new URL('./fixtures/loopback-tls.key', import.meta.url))

let dir = ''
let recording = ''
let passwordFile = ''

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'beaconkit-cli-upload-'))
  recording = join(dir, 'site.jsonl')
  await writeRecording(recording)
  passwordFile = join(dir, 'password')
  await writeFile(passwordFile, `${PASSWORD}\n`)
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

/** The password and the forms it could be echoed in, and every run of 8 of its characters. */
function secretsIn(text: string, password = PASSWORD): string[] {
  const basic = Buffer.from(`${EMAIL}:${password}`).toString('base64')
  const forms = [password, encodeURIComponent(password), Buffer.from(password).toString('base64'), basic]
  for (let i = 0; i + 8 <= password.length; i++) forms.push(password.slice(i, i + 8))
  return forms.filter((f) => text.includes(f))
}

function uploadArgs(url: string, pwFile = passwordFile): string[] {
  return ['--upload', '--cloud-url', url, '--email', EMAIL, '--password-file', pwFile]
}

/** Answers POST /sessions with 200 (the account is fine) and everything else with `status`. */
function acceptsLoginOnly(status: number, body: unknown = { code: 'unauthorized', message: 'credentials revoked' }): Promise<Loopback> {
  return loopback((req, res) => {
    const login = req.method === 'POST' && req.url === '/sessions'
    res.writeHead(login ? 200 : status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(login ? { user: { email: EMAIL } } : body))
  })
}

describe('beaconkit --upload checks the account first', () => {
  it.each([['replay'], ['scan']])('%s --upload with a wrong password fails fast: exit 4, one line, nothing sent', async (command) => {
    const emulator = await startEmulator({ accounts: [{ email: EMAIL, password: 'the-right-one' }] })
    try {
      const args = command === 'replay' ? ['replay', recording, '--virtual', '--json'] : ['scan', '--json']
      const r = await runCli([...args, ...uploadArgs(emulator.url)])
      expect(r.code).toBe(4)
      expect(r.stdout).toBe('')
      expect(r.stderr.trimEnd().split('\n')).toHaveLength(1)
      expect(r.stderr).toMatch(/^beaconkit: --upload to http:\/\/127\.0\.0\.1:\d+: POST \/sessions was refused \(HTTP 401\); check the account e-mail and password \[unauthorized\]\n$/)
      expect(secretsIn(r.stderr)).toEqual([])
      expect(emulator.requests).toBe(1)
      expect(emulator.store.uploads(EMAIL)).toEqual([])
    } finally {
      await emulator.close()
    }
  })

  it('uploads as before once the account is accepted', async () => {
    const emulator = await startEmulator({ accounts: [{ email: EMAIL, password: PASSWORD }] })
    try {
      const r = await runCli(['replay', recording, '--virtual', '--json', ...uploadArgs(emulator.url)])
      expect(r.code).toBe(0)
      expect(emulator.store.uploads(EMAIL).map((u) => u.beaconMac)).toContain(SERIAL)
    } finally {
      await emulator.close()
    }
  })

  it('a queue warning (a dead process\'s lock taken over) is one of the command\'s warnings, not a Node process warning', async () => {
    const emulator = await startEmulator({ accounts: [{ email: EMAIL, password: PASSWORD }] })
    const queueDir = join(dir, 'stale-queue')
    try {
      await mkdir(queueDir, { recursive: true })
      // A lock left by a process that no longer runs (pid 2^22 + 1 is above Linux's pid_max default).
      await writeFile(join(queueDir, 'lock'), JSON.stringify({ pid: 4_194_305, hostname: hostname(), token: 'left-behind' }))
      const r = await runCli(['replay', recording, '--virtual', '--json', ...uploadArgs(emulator.url), '--queue-dir', queueDir])
      expect(r.code).toBe(0)
      expect(logMessages(r.stderr, 'warn').join('\n')).toMatch(/^upload queue: .*4194305/m)
      expect(r.stderr).not.toMatch(/\(node:\d+\)/)
    } finally {
      await emulator.close()
    }
  })

  it('runs on with a warning when the account cannot be checked now (5xx): the queue waits for the cloud', async () => {
    const server = await loopback((req, res) => {
      const login = req.method === 'POST' && req.url === '/sessions'
      res.writeHead(login ? 503 : 200, { 'content-type': 'application/json' })
      res.end(login ? '{"message":"maintenance"}' : '{}')
    })
    try {
      const r = await runCli(['replay', recording, '--virtual', '--json', ...uploadArgs(server.url)])
      expect(r.code).toBe(0)
      expect(logMessages(r.stderr, 'warn').join('\n')).toMatch(/^could not check the account at http:\/\/127\.0\.0\.1:\d+ now \(POST \/sessions failed on the server \(HTTP 503\); retry later\); records are queued and sent once it answers$/m)
      const uploads = server.requests.filter((q) => q.url === '/users/me/beacons/logs')
      expect(uploads.length).toBeGreaterThan(0)
      expect(uploads[0].body).toContain(SERIAL)
    } finally {
      await server.close()
    }
  })

  it('ends with exit 4 when the account is refused at the last flush', async () => {
    const server = await acceptsLoginOnly(401)
    try {
      const r = await runCli(['replay', recording, '--virtual', '--json', ...uploadArgs(server.url)])
      expect(r.code).toBe(4)
      expect(r.stderr.trimEnd().split('\n').at(-1)).toMatch(/^beaconkit: --upload to .*\(HTTP 401\).*\[unauthorized\]$/)
      expect(server.requests.map((q) => `${q.method} ${q.url}`)).toEqual(['POST /sessions', 'POST /users/me/beacons/logs'])
      expect(secretsIn(r.stderr + r.stdout)).toEqual([])
    } finally {
      await server.close()
    }
  })

  it('stops the run with exit 4 when the account is refused mid-run', async () => {
    const server = await acceptsLoginOnly(403)
    try {
      const run = startCli(['replay', recording, '--json', ...uploadArgs(server.url)])
      const r = await run.done
      expect(r.code).toBe(4)
      expect(r.stderr.trimEnd().split('\n').at(-1)).toMatch(/\(HTTP 403\).*\[unauthorized\]$/)
      // It did not scan on to the end of the recording (beacon A leaves only after it).
      const lines = jsonLines(r.stdout) as { event: string; beacon?: { id: string } }[]
      expect(lines.some((l) => l.event === 'found')).toBe(true)
      expect(lines.some((l) => l.event === 'gone' && l.beacon?.id.endsWith('|1|1') === true)).toBe(false)
    } finally {
      await server.close()
    }
  })
})

describe('beaconkit --upload never prints the password', () => {
  it('a server echoing it (straddling the 200-character cut, URL-encoded, base64) leaks nothing', async () => {
    const echo = [
      `${'x'.repeat(190)}${PASSWORD}`,
      encodeURIComponent(PASSWORD),
      new URLSearchParams({ password: PASSWORD }).toString(),
      Buffer.from(`${EMAIL}:${PASSWORD}`).toString('base64'),
      Buffer.from(PASSWORD).toString('base64'),
      PASSWORD.slice(3, 15),
    ]
    for (const message of echo) {
      const server = await loopback((_req, res) => {
        res.writeHead(400, { 'content-type': 'application/json' })
        res.end(JSON.stringify({ message }))
      })
      try {
        const r = await runCli(['replay', recording, '--virtual', '--json', ...uploadArgs(server.url)])
        expect([message, secretsIn(r.stdout + r.stderr)]).toEqual([message, []])
        expect(r.code).toBe(4)
        expect(r.stderr).toMatch(/\[bad_request\]/)
      } finally {
        await server.close()
      }
    }
  })
})

describe('beaconkit --upload and redirects', () => {
  it('an https --cloud-url redirected to http: exit 4, code redirected, nothing reaches the http server', async () => {
    const plain = await loopback((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end('{}')
    })
    const tls = createHttpsServer({ key: await readFile(KEY), cert: await readFile(CERT) })
    const secure = await loopback((_req, res) => {
      res.writeHead(307, { location: `${plain.url}/sessions` })
      res.end()
    }, tls)
    try {
      expect(secure.url.startsWith('https://')).toBe(true)
      // The child trusts the test certificate, so the TLS connection succeeds and the redirect is what fails.
      const r = await runCli(['replay', recording, '--virtual', '--json', ...uploadArgs(secure.url)], { env: { NODE_EXTRA_CA_CERTS: CERT } })
      expect(r.code).toBe(4)
      expect(r.stderr).toMatch(new RegExp(`redirected \\(HTTP 307\\) to ${plain.host.replace(/\./g, '\\.')},.*\\[redirected\\]`))
      expect(secure.requests.map((q) => `${q.method} ${q.url}`)).toEqual(['POST /sessions'])
      expect(plain.requests).toEqual([])
      expect(secretsIn(r.stderr)).toEqual([])
    } finally {
      await Promise.all([plain.close(), secure.close()])
    }
  })
})
