// The live table as a person sees it: the built command under a real pseudo-terminal (tmux),
// checked through what the screen shows.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { writeFile } from 'node:fs/promises'
import { startEmulator } from '../../src/emulator/emulator.js'
import { SERIAL, writeRecording } from './recording.js'
import { Tmux } from './tmux.js'

let tmux: Tmux
let recording = ''
let dir = ''

beforeAll(async () => {
  tmux = new Tmux('tty')
  dir = await mkdtemp(join(tmpdir(), 'beaconkit-tty-'))
  recording = join(dir, 'site.jsonl')
  await writeRecording(recording)
})

afterAll(() => tmux?.close())

describe('the live table on a terminal', () => {
  it('shows the beacons nearest first under a status line, then Ctrl-C restores the terminal and exits 0', async () => {
    tmux.start('wide', 160, 40, ['replay', recording])
    const text = await tmux.waitFor('wide', (s) => s.includes(SERIAL) && s.includes('aa:00:00:00:00:03') && /LAST 30 s/.test(s), 'three beacons')
    const lines = text.split('\n')
    expect(lines[0]).toMatch(/^beaconkit replay site\.jsonl ×1 │ \d+ adverts\/s │ 3 in range │ 0 rejected/)
    expect(lines[1]).toMatch(/^SERIAL\/ADDRESS\s+MODEL\/FW\s+BEACON ID\s+RSSI\s+LAST 30 s\s+SMOOTH\s+DIST\s+PROX\s+BATT\s+TEMP\s+LIGHT\s+MOVE\s+ACC\s+SEC\s+AGE$/)
    // Sorted by distance: the strong iBeacon, then the vendor beacon, then the weak one.
    expect(lines[2]).toMatch(/^aa:00:00:00:00:01 .*\|1\|1\s+-50 .*immediate/)
    expect(lines[3]).toMatch(new RegExp(`^${SERIAL}\\s+C0/4\\.1 .*\\|1\\|2\\s+-75 .*far\\s+88%\\s+21\\.0°C\\s+45lx\\s+no\\s+7\\s`))
    expect(lines[4]).toMatch(/^aa:00:00:00:00:03 .*\|2\|3\s+-90 .*far/)
    expect(lines[2]).toMatch(/[▁▂▃▄▅▆▇█]/)
    expect(tmux.flags('wide')).toEqual({ alternate: true, cursor: false })

    tmux.run('send-keys', '-t', 'wide', 'C-c')
    const after = await tmux.waitFor('wide', (s) => s.includes('EXIT='), 'the exit code')
    expect(after).toContain('EXIT=0')
    expect(after).not.toContain('SERIAL/ADDRESS')
    expect(after).toMatch(/^beaconkit replay site\.jsonl ×1: 3 beacons seen, \d+ advertisements, 0 rejected$/m)
    expect(tmux.flags('wide')).toEqual({ alternate: false, cursor: true })
  })

  it('ends by itself once a replay is over and its beacons aged out, leaving a summary', async () => {
    tmux.start('end', 120, 20, ['replay', recording, '--virtual'])
    const after = await tmux.waitFor('end', (s) => s.includes('EXIT='), 'the exit code')
    expect(after).toMatch(/^beaconkit replay site\.jsonl virtual time: 3 beacons seen, \d+ advertisements, 0 rejected$/m)
    expect(after).toContain('EXIT=0')
    expect(tmux.flags('end')).toEqual({ alternate: false, cursor: true })
  })

  it('shows upload progress and the latest warning in the status line, and the warnings after exit', async () => {
    const emulator = await startEmulator({ accounts: [{ email: 'gw@site.test', password: 'pw' }] })
    try {
      const bad = join(dir, 'with-bad-line.jsonl')
      await writeRecording(bad, ['{not json'])
      await writeFile(join(dir, 'pw'), 'pw\n')
      tmux.start('upload', 160, 20, ['replay', bad, '--speed', '4', '--upload', '--cloud-url', emulator.url, '--email', 'gw@site.test', '--password-file', join(dir, 'pw')])
      const text = await tmux.waitFor('upload', (s) => /⚠ line \d+: not valid JSON/.test(s), 'the warning')
      expect(text.split('\n')[0]).toMatch(/│ uploaded \d+ of \d+ │ ⚠ line \d+: not valid JSON/)
      tmux.run('send-keys', '-t', 'upload', 'C-c')
      const after = await tmux.waitFor('upload', (s) => s.includes('EXIT='), 'the exit code')
      // Logged once the table is gone: a human line with the time and the level on a terminal.
      expect(after).toMatch(/^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} [+-]\d{4}\] WARN: line \d+: not valid JSON; line skipped$/m)
      expect(after).toContain('EXIT=0')
      expect(emulator.store.uploads('gw@site.test').some((u) => u.beaconMac === SERIAL)).toBe(true)
    } finally {
      await emulator.close()
    }
  })

  it('fits a small terminal: no line wider than it, the least important columns dropped, rows counted', async () => {
    tmux.start('small', 60, 4, ['replay', recording, '--speed', '2'])
    const text = await tmux.waitFor('small', (s) => s.includes('more beacon'), 'the rows left out')
    const lines = text.split('\n').filter((l) => l.trim() !== '')
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60)
    expect(lines[1]).toMatch(/^SERIAL\/ADDRESS\s+.*RSSI\s+DIST/)
    expect(lines[1]).not.toContain('LIGHT')
    expect(lines[2]).toContain('aa:00:00:00:00:01')
    expect(lines[3]).toMatch(/^… 2 more beacons/)
    tmux.run('send-keys', '-t', 'small', 'C-c')
    expect(await tmux.waitFor('small', (s) => s.includes('EXIT='), 'the exit code')).toContain('EXIT=0')
  })

  it('shows the simulator, and a scan without Bluetooth fails with its message and exit 3', async () => {
    tmux.start('sim', 160, 30, ['simulate', '--key', '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'])
    const text = await tmux.waitFor('sim', (s) => /✓ 0001/.test(s), 'a verified device')
    expect(text).toMatch(/^beaconkit simulate 12 beacons │/)
    tmux.run('send-keys', '-t', 'sim', 'C-c')
    expect(await tmux.waitFor('sim', (s) => s.includes('EXIT='), 'the exit code')).toContain('EXIT=0')

    tmux.start('scan', 160, 30, ['scan'])
    const after = await tmux.waitFor('scan', (s) => s.includes('EXIT='), 'the exit code')
    expect(after).toMatch(/beaconkit: .*Bluetooth/)
    expect(after).toContain('EXIT=3')
    expect(tmux.flags('scan')).toEqual({ alternate: false, cursor: true })
  })
})
