// End-to-end: replay, simulate, record, scan and upload through the built command.
import { describe, it, expect, beforeAll } from 'vitest'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startEmulator } from '../../src/emulator/emulator.js'
import { jsonLines, logMessages, runCli, startCli } from './run-cli.js'
import { SERIAL, T0, writeRecording } from './recording.js'

const SAMPLE_KEY = '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'
const CORRUPTED = '7b4b5ff594fdaf8f9fc7f2b494e400016f461206'

let dir = ''
let recording = ''

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'beaconkit-cli-run-'))
  recording = join(dir, 'site.jsonl')
  await writeRecording(recording, ['{not json'])
})

type Line = { event: string; time: number; beacon?: { id: string; inRange: boolean }; beacons?: { id: string }[] }

describe('beaconkit replay', () => {
  it('--virtual --json: the exact timeline in DESIGN.md shapes, then exit 0 once every beacon is gone', async () => {
    const r = await runCli(['replay', recording, '--virtual', '--json'])
    expect(r.code).toBe(0)
    const lines = jsonLines(r.stdout) as unknown as Line[]
    const timeline = lines.filter((l) => l.event === 'found' || l.event === 'gone').map((l) => [l.event, l.time - T0, l.beacon?.id])
    const A = 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|1|1'
    const C = 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|2|3'
    // Found within the first second (the scanner may hold an iBeacon briefly to learn its identity).
    for (const id of [A, SERIAL, C]) {
      const found = timeline.find(([event, , which]) => event === 'found' && which === id)
      expect(found?.[1]).toBeGreaterThanOrEqual(0)
      expect(found?.[1]).toBeLessThan(1_000)
    }
    // Gone exactly 8 s after the last advertisement of each beacon.
    expect(timeline).toContainEqual(['gone', 3_100 + 8_000, C])
    expect(timeline).toContainEqual(['gone', 10_000 + 8_000, A])
    expect(timeline).toContainEqual(['gone', 10_050 + 8_000, SERIAL])
    expect(timeline.at(-1)?.[0]).toBe('gone')
    for (const l of lines) {
      expect(['found', 'gone', 'changed', 'updated']).toContain(l.event)
      expect(typeof l.time).toBe('number')
      if (l.event === 'updated') expect(Array.isArray(l.beacons)).toBe(true)
      else expect(typeof l.beacon?.id).toBe('string')
    }
    // `updated` every second of recording time, nearest first.
    const updates = lines.filter((l) => l.event === 'updated')
    expect(updates.length).toBeGreaterThanOrEqual(17)
    expect(updates[2].beacons?.map((b) => b.id)).toEqual([A, SERIAL, C])
    // The malformed line (the last one) is reported with its number, and is not fatal.
    const last = (await readFile(recording, 'utf8')).trimEnd().split('\n').length
    expect(logMessages(r.stderr, 'warn').some((m) => m.startsWith(`line ${last}: not valid JSON`))).toBe(true)
  })

  it('prints JSON lines when standard output is not a terminal, even without --json', async () => {
    const r = await runCli(['replay', recording, '--virtual'])
    expect(r.code).toBe(0)
    expect(jsonLines(r.stdout)[0]).toMatchObject({ event: 'found' })
    expect(jsonLines(r.stdout).at(-1)).toMatchObject({ event: 'gone', time: T0 + 10_050 + 8_000 })
  })

  it('applies the filters', async () => {
    const r = await runCli(['replay', recording, '--virtual', '--json', '--serial', SERIAL.toLowerCase()])
    expect(r.code).toBe(0)
    const ids = new Set((jsonLines(r.stdout) as unknown as Line[]).filter((l) => l.beacon !== undefined).map((l) => l.beacon?.id))
    expect([...ids]).toEqual([SERIAL])
    const strong = await runCli(['replay', recording, '--virtual', '--json', '--min-rssi', '-60'])
    const strongIds = new Set((jsonLines(strong.stdout) as unknown as Line[]).filter((l) => l.beacon !== undefined).map((l) => l.beacon?.id))
    expect([...strongIds]).toEqual(['E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|1|1'])
  })

  it.each(['SIGINT', 'SIGTERM'] as const)('stops cleanly on %s in the middle of a real-time replay, exit 0, with whole lines', async (signal) => {
    const run = startCli(['replay', recording, '--json'])
    await run.waitFor('"event":"found"')
    run.child.kill(signal)
    const r = await run.done
    expect(r.code).toBe(0)
    expect(r.stdout.endsWith('\n')).toBe(true)
    expect(jsonLines(r.stdout).length).toBeGreaterThan(0)
  })

  it('ends quietly with exit 0 when its reader goes away (`| head`)', async () => {
    const run = startCli(['replay', recording, '--json'])
    await run.waitFor('"event":"found"')
    run.child.stdout.destroy()
    const r = await run.done
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
  })

  it.each([
    [['replay', '/nonexistent/site.jsonl'], 2, /Recording \/nonexistent\/site\.jsonl does not exist/],
    [['replay', '/tmp'], 2, /Recording \/tmp cannot be read/],
    [['replay', 'RECORDING', '--upload', '--cloud-url', 'http://example.com', '--email', 'a@b.c', '--password-file', 'PASSWORD'], 4, /plain http to example\.com.*\[insecure_url\]/],
    [['replay', 'RECORDING', '--key', CORRUPTED], 2, /--key: .*digest check/],
    [['replay', 'RECORDING', '--key', 'short'], 2, /--key: .*40 hex digits/],
    [['replay', 'RECORDING', '--keys-file', '/nonexistent/keys'], 2, /does not exist/],
    [['replay', 'RECORDING', '--upload', '--cloud-url', 'http://127.0.0.1:9', '--email', 'a@b.c', '--password-file', '/nonexistent/pw'], 2, /does not exist/],
  ])('refuses %j with a clear message and exit %i', async (args, code, message) => {
    await writeFile(join(dir, 'pw-args'), 'secret-pw\n')
    const r = await runCli(args.map((a) => (a === 'RECORDING' ? recording : a === 'PASSWORD' ? join(dir, 'pw-args') : a)))
    expect(r.stderr).not.toContain('secret-pw')
    expect(r.code).toBe(code)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(message)
    expect(r.stderr).not.toContain(CORRUPTED.slice(0, 28))
  })

  it('uploads the sensor data to the account interface and flushes before exiting', async () => {
    const emulator = await startEmulator({ accounts: [{ email: 'gw@site.test', password: 'pw-123' }] })
    try {
      const pw = join(dir, 'password')
      await writeFile(pw, 'pw-123\n')
      const r = await runCli(['replay', recording, '--virtual', '--json', '--upload', '--cloud-url', emulator.url, '--email', 'gw@site.test', '--password-file', pw, '--queue-dir', join(dir, 'queue')])
      expect(r.stderr).not.toContain('pw-123')
      expect(r.code).toBe(0)
      const uploads = emulator.store.uploads('gw@site.test')
      expect(uploads.length).toBeGreaterThan(0)
      expect(uploads.every((u) => u.beaconMac === SERIAL)).toBe(true)
      expect(uploads[0].sensor).toMatchObject({ temperature: 21, power: 88 })
    } finally {
      await emulator.close()
    }
  })
})

describe('beaconkit replay --upload and Ctrl-C', () => {
  it('flushes the upload queue when interrupted, then exits 0', async () => {
    const emulator = await startEmulator({ accounts: [{ email: 'gw@site.test', password: 'pw-123' }] })
    try {
      const pw = join(dir, 'password-sigint')
      await writeFile(pw, 'pw-123\n')
      const run = startCli(['replay', recording, '--json', '--upload', '--cloud-url', emulator.url, '--email', 'gw@site.test', '--password-file', pw])
      await run.waitFor(`"serialNumber":"${SERIAL}"`)
      // A partial batch would wait up to 5 s; the interrupt must not lose it.
      run.child.kill('SIGINT')
      const r = await run.done
      expect(r.code).toBe(0)
      expect(emulator.store.uploads('gw@site.test').map((u) => u.beaconMac)).toContain(SERIAL)
    } finally {
      await emulator.close()
    }
  })
})

describe('beaconkit simulate', () => {
  it('--virtual: encrypted devices are verified with the sample key and stay unverified without it', async () => {
    const withKey = await runCli(['simulate', '--virtual', '--duration', '15', '--json', '--key', SAMPLE_KEY])
    expect(withKey.code).toBe(0)
    const found = (jsonLines(withKey.stdout) as unknown as { event: string; beacon?: { secure?: { verified: boolean } } }[]).filter((l) => l.event === 'found')
    expect(found.length).toBeGreaterThanOrEqual(10)
    expect(found.some((l) => l.beacon?.secure?.verified === true)).toBe(true)
    const without = await runCli(['simulate', '--virtual', '--duration', '15', '--json'])
    const secure = (jsonLines(without.stdout) as unknown as { beacon?: { secure?: { verified: boolean } } }[]).filter((l) => l.beacon?.secure !== undefined)
    expect(secure.length).toBeGreaterThan(0)
    expect(secure.every((l) => l.beacon?.secure?.verified === false)).toBe(true)
  })

  it('is deterministic for a seed', async () => {
    const a = await runCli(['simulate', '--virtual', '--duration', '5', '--json', '--seed', '42', '--beacons', '5'])
    const b = await runCli(['simulate', '--virtual', '--duration', '5', '--json', '--seed', '42', '--beacons', '5'])
    expect(a.code).toBe(0)
    expect(a.stdout).toBe(b.stdout)
  })
})

describe('beaconkit record', () => {
  it('records the simulator to a file that replays', async () => {
    const file = join(dir, 'recorded.jsonl')
    const r = await runCli(['record', file, '--simulate', '--duration', '1.5'])
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(/^recorded \d+ advertisements from \d+ devices to /)
    const lines = (await readFile(file, 'utf8')).trim().split('\n')
    expect(JSON.parse(lines[0])).toMatchObject({ format: 'beaconkit-advertisements', version: 1 })
    expect(lines.length).toBeGreaterThan(10)
    const replay = await runCli(['replay', file, '--virtual', '--json'])
    expect(replay.code).toBe(0)
    expect(jsonLines(replay.stdout).some((l) => l.event === 'found')).toBe(true)
  })

  it('--json: a counter line per second, then a summary line', async () => {
    const file = join(dir, 'recorded-json.jsonl')
    const r = await runCli(['record', file, '--simulate', '--duration', '1.2', '--json'])
    expect(r.code).toBe(0)
    const lines = jsonLines(r.stdout)
    expect(lines.at(0)).toMatchObject({ event: 'recording', file })
    const last = lines.at(-1) as { event: string; advertisements: number; written: number; dropped: number; devices: number }
    expect(last.event).toBe('recorded')
    expect(last.written).toBe(last.advertisements)
    expect(last.dropped).toBe(0)
    expect(last.devices).toBeGreaterThan(5)
    expect((await readFile(file, 'utf8')).trim().split('\n')).toHaveLength(last.written + 1)
  })

  it('refuses to overwrite an existing recording unless --force is given', async () => {
    const file = join(dir, 'precious.jsonl')
    const precious = '{"format":"beaconkit-advertisements","version":1}\n{"t":1,"a":"aa:bb:cc:dd:ee:ff","r":-60}\n'
    await writeFile(file, precious)
    const refused = await runCli(['record', file, '--simulate', '--duration', '1'])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toMatch(/precious\.jsonl already exists.*--force/)
    expect(await readFile(file, 'utf8')).toBe(precious)
    const forced = await runCli(['record', file, '--simulate', '--duration', '1', '--force'])
    expect(forced.code).toBe(0)
    const lines = (await readFile(file, 'utf8')).trim().split('\n')
    expect(JSON.parse(lines[0])).toMatchObject({ format: 'beaconkit-advertisements', source: 'simulator' })
    expect(lines.length).toBeGreaterThan(2)
    expect((await runCli(['record', '--help'])).stdout).toMatch(/--force +overwrite <file\.jsonl> if it exists/)
  })

  it('refuses a folder that does not exist, before starting anything', async () => {
    const r = await runCli(['record', '/nonexistent/dir/x.jsonl', '--simulate'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/cannot write .*the folder \/nonexistent\/dir does not exist/)
  })

  it('fails cleanly without Bluetooth and leaves no file behind', async () => {
    const file = join(dir, 'nobt.jsonl')
    const r = await runCli(['record', file])
    expect(r.code).toBe(3)
    expect(r.stderr).toMatch(/Bluetooth/)
    await expect(readFile(file)).rejects.toThrow()
  })
})

describe('beaconkit scan', () => {
  it('fails cleanly on a machine without Bluetooth: the BluetoothUnavailableError message, exit 3', async () => {
    const r = await runCli(['scan', '--json'])
    expect(r.code).toBe(3)
    expect(r.stdout).toBe('')
    expect(r.stderr).toMatch(/^beaconkit: .*Bluetooth.* \[(unsupported|no_adapter|not_installed|permission_denied|start_failed)\]\n$/)
  })

  it('with several adapters of which none can start: every adapter named in one message, exit 3', async () => {
    const r = await runCli(['scan', '--hci', '0', '--hci', '1', '--json'])
    expect(r.code).toBe(3)
    expect(r.stdout).toBe('')
    // One reason for both (no Bluetooth here at all), or each adapter's own.
    expect(r.stderr).toMatch(/^beaconkit: No adapter could start \((hci0, hci1\): |hci0: .*; hci1: .*\)\. ).* \[(unsupported|no_adapter|not_installed|permission_denied|start_failed)\]\n$/)
  })
})
