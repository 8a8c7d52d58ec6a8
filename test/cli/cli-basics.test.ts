// End-to-end: the built `beaconkit` as a child process — help, errors, keys check, emulate.
import { describe, it, expect } from 'vitest'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { jsonLines, runCli, startCli } from './run-cli.js'

const RAW = '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'
const CORRUPTED = '7b4b5ff594fdaf8f9fc7f2b494e400016f461206'
const WRAPPED = '01Y2GLh1yw3+6Aq0RsnOQ8xNvXTnDUTTLE937Yedd/DnlcV0ixCWo7JQ+VEWRSya80yea6u5aWgnW1ACjKNzFnig=='

describe('beaconkit help', () => {
  it('prints the overview with no arguments and with --help, exit 0', async () => {
    for (const args of [[], ['--help'], ['-h']]) {
      const r = await runCli(args)
      expect(r.code).toBe(0)
      expect(r.stdout).toContain('Usage: beaconkit <command> [options]')
      for (const c of ['scan', 'replay <file.jsonl>', 'record <file.jsonl>', 'simulate', 'emulate', 'keys check <key>']) expect(r.stdout).toContain(c)
    }
  })

  it.each(['scan', 'replay', 'record', 'simulate', 'emulate', 'keys'])('has --help for %s', async (command) => {
    const r = await runCli([command, '--help'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(new RegExp(`^Usage: beaconkit ${command}`))
    expect(r.stderr).toBe('')
  })

  it('suggests commands that work outside this repository (the bundled demo by name, not by path)', async () => {
    const overview = (await runCli([])).stdout
    const replayHelp = (await runCli(['replay', '--help'])).stdout
    expect(overview + replayHelp).not.toMatch(/fixtures\//)
    expect(overview).toMatch(/^Try it: beaconkit replay --demo/m)
    expect(replayHelp).toMatch(/^ {2}--demo +replay the recording bundled with beaconkit/m)
    // From a folder without fixtures/, as in a project that installed beaconkit.
    const elsewhere = await mkdtemp(join(tmpdir(), 'beaconkit-cwd-'))
    const r = await runCli(['replay', '--demo', '--virtual', '--json', '--key', RAW], { cwd: elsewhere })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const found = jsonLines(r.stdout).filter((e) => e.event === 'found')
    expect(found.map((e) => (e.beacon as { id: string }).id)).toContain('0117C5000005')
    const both = await runCli(['replay', 'site.jsonl', '--demo'], { cwd: elsewhere })
    expect(both.code).toBe(2)
    expect(both.stderr).toMatch(/either a recording or --demo, not both/)
  })

  it('prints the version', async () => {
    const r = await runCli(['--version'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^beaconkit \d+\.\d+\.\d+/)
  })
})

describe('beaconkit bad command lines', () => {
  it.each([
    [['nope'], /unknown command 'nope'/],
    [['scan', '--frobnicate'], /unknown option --frobnicate/],
    [['replay'], /missing argument/],
    [['replay', 'x.jsonl', '--speed', '-2'], /--speed must be a positive factor/],
    [['scan', '--min-rssi', 'loud'], /--min-rssi must be a whole number/],
    [['scan', '--upload'], /--upload needs --cloud-url/],
    [['emulate', '--port', 'http'], /--port must be a TCP port/],
  ])('%j: one clear line on stderr, exit 2', async (args, message) => {
    const r = await runCli(args)
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(message)
    expect(r.stderr).toMatch(/--help/)
    expect(r.stderr.trim().split('\n')).toHaveLength(1)
  })
})

describe('beaconkit keys check', () => {
  it('says valid with the key id, never the key', async () => {
    const r = await runCli(['keys', 'check', RAW])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe('valid: key id 0001, does not expire\n')
  })

  it('says corrupted, exit 2', async () => {
    const r = await runCli(['keys', 'check', CORRUPTED])
    expect(r.code).toBe(2)
    expect(r.stdout).toMatch(/^corrupted: .*key id 0001/)
    expect(r.stdout + r.stderr).not.toContain(CORRUPTED.slice(0, 28))
  })

  it('says expired with the date, and valid before it with --now', async () => {
    const expired = await runCli(['keys', 'check', WRAPPED])
    expect(expired.code).toBe(2)
    expect(expired.stdout).toMatch(/^expired: .*2015-12-31/)
    const valid = await runCli(['keys', 'check', '--now', '2015-06-01T00:00:00Z', '--json', WRAPPED])
    expect(valid.code).toBe(0)
    expect(jsonLines(valid.stdout)).toEqual([{ valid: true, status: 'valid', keyId: '6016', expiresAt: '2015-12-31T16:00:00.000Z' }])
    expect(valid.stdout).not.toContain(WRAPPED)
  })

  it('reads the key from standard input with -', async () => {
    const r = await runCli(['keys', 'check', '-'], { input: `${RAW}\n` })
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('key id 0001')
  })

  it('checks a keys file line by line; a missing file is a clear error', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'beaconkit-cli-'))
    const file = join(dir, 'keys.txt')
    await writeFile(file, `# site keys\n${RAW}\n${CORRUPTED}\nnot a key\n`)
    const r = await runCli(['keys', 'check', '--keys-file', file])
    expect(r.code).toBe(2)
    expect(r.stdout.split('\n').filter(Boolean)).toEqual([
      'line 2: valid: key id 0001, does not expire',
      expect.stringMatching(/^line 3: corrupted: /),
      expect.stringMatching(/^line 4: malformed: /),
    ])
    const missing = await runCli(['keys', 'check', '--keys-file', join(dir, 'nope.txt')])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/nope\.txt does not exist/)
  })
})

describe('beaconkit emulate', () => {
  it('serves the account interface until SIGINT, then exits 0', async () => {
    const run = startCli(['emulate', '--port', '0', '--json'])
    await run.waitFor('"event":"listening"')
    run.child.kill('SIGINT')
    const r = await run.done
    const [listening, stopped] = jsonLines(r.stdout)
    expect(listening).toMatchObject({ event: 'listening', email: 'demo@example.com' })
    expect(String(listening.url)).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(stopped).toMatchObject({ event: 'stopped' })
    expect(r.code).toBe(0)
  })

  it('answers real HTTP for the account it was given, and never prints that password', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'beaconkit-cli-'))
    const pw = join(dir, 'pw')
    await writeFile(pw, 's3cret-pass\n')
    const run = startCli(['emulate', '--port', '0', '--json', '--email', 'ops@site.test', '--password-file', pw])
    await run.waitFor('"event":"listening"')
    const url = String(jsonLines(run.output())[0].url)
    const auth = (p: string): string => `Basic ${Buffer.from(`ops@site.test:${p}`).toString('base64')}`
    const ok = await fetch(`${url}/users/me/beacons`, { headers: { authorization: auth('s3cret-pass') } })
    expect(ok.status).toBe(200)
    await ok.arrayBuffer()
    const denied = await fetch(`${url}/users/me/beacons`, { headers: { authorization: auth('wrong') } })
    expect(denied.status).toBe(401)
    await denied.arrayBuffer()
    run.child.kill('SIGTERM')
    const r = await run.done
    expect(r.code).toBe(0)
    expect(r.stdout + r.stderr).not.toContain('s3cret-pass')
  })

  it('refuses a missing password file and a port in use', async () => {
    const r = await runCli(['emulate', '--password-file', '/nonexistent/pw'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/does not exist/)
    const first = startCli(['emulate', '--port', '0', '--json'])
    await first.waitFor('"event":"listening"')
    const port = String(jsonLines(first.output())[0].port)
    const second = await runCli(['emulate', '--port', port])
    // A transient failure (EX_TEMPFAIL), not a bad option: a service manager tries again.
    expect(second.code).toBe(75)
    expect(second.stderr).toMatch(new RegExp(`port ${port} .* is in use.*\\[port_in_use\\]`))
    first.child.kill('SIGINT')
    expect((await first.done).code).toBe(0)
  })
})
