// The live table as a person sees it: the built command under a real pseudo-terminal (tmux),
// checked through what the screen shows. Without tmux this fails and says so: it never passes
// by skipping.
import { describe, it, expect, beforeAll, afterAll } from 'vitest'
import { execFileSync } from 'node:child_process'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLI, ROOT, requireBuild } from './run-cli.js'
import { SERIAL, writeRecording } from './recording.js'

const SOCKET = `beaconkit-test-${process.pid}`

function tmux(...args: string[]): string {
  return execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' })
}

function screen(session: string): string {
  return tmux('capture-pane', '-p', '-t', session)
}

/** tmux's own view of the pane: alternate screen on? cursor visible? */
function flags(session: string): { alternate: boolean; cursor: boolean } {
  const [alternate, cursor] = tmux('display-message', '-p', '-t', session, '#{alternate_on} #{cursor_flag}').trim().split(' ')
  return { alternate: alternate === '1', cursor: cursor === '1' }
}

/** Polls the screen until `test` holds; the deadline is generous (slow CI), it is not what is tested. */
async function waitForScreen(session: string, test: (text: string) => boolean, what: string, deadlineMs = 20_000): Promise<string> {
  const end = Date.now() + deadlineMs
  let text = ''
  while (Date.now() < end) {
    text = screen(session)
    if (test(text)) return text
    await new Promise((r) => setTimeout(r, 200))
  }
  throw new Error(`the screen never showed ${what}; last screen:\n${text}`)
}

function start(session: string, width: number, height: number, args: string[]): void {
  const command = [process.execPath, CLI, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ')
  // bash waits for the command, then prints its exit code and keeps the pane open to be read.
  tmux('new-session', '-d', '-x', String(width), '-y', String(height), '-s', session, '-c', ROOT, `bash -c "${command.replace(/"/g, '\\"')}; echo EXIT=\\$?; sleep 120"`)
}

let recording = ''

beforeAll(async () => {
  requireBuild()
  try {
    execFileSync('tmux', ['-V'], { encoding: 'utf8' })
  } catch {
    throw new Error('the TTY tests need tmux (a pseudo-terminal to run the live table in): install it, e.g. `sudo apt-get install tmux`')
  }
  const dir = await mkdtemp(join(tmpdir(), 'beaconkit-tty-'))
  recording = join(dir, 'site.jsonl')
  await writeRecording(recording)
})

afterAll(() => {
  try {
    tmux('kill-server')
  } catch {
    // No server left: every session already ended.
  }
})

describe('the live table on a terminal', () => {
  it('shows the beacons nearest first under a status line, then Ctrl-C restores the terminal and exits 0', async () => {
    start('wide', 160, 40, ['replay', recording])
    const text = await waitForScreen('wide', (s) => s.includes(SERIAL) && s.includes('aa:00:00:00:00:03') && /LAST 30 s/.test(s), 'three beacons')
    const lines = text.split('\n')
    expect(lines[0]).toMatch(/^beaconkit replay site\.jsonl ×1 │ \d+ adverts\/s │ 3 in range │ 0 rejected/)
    expect(lines[1]).toMatch(/^SERIAL\/ADDRESS\s+MODEL\/FW\s+BEACON ID\s+RSSI\s+LAST 30 s\s+SMOOTH\s+DIST\s+PROX\s+BATT\s+TEMP\s+LIGHT\s+MOVE\s+ACC\s+SEC\s+AGE$/)
    // Sorted by distance: the strong iBeacon, then the vendor beacon, then the weak one.
    expect(lines[2]).toMatch(/^aa:00:00:00:00:01 .*\|1\|1\s+-50 .*immediate/)
    expect(lines[3]).toMatch(new RegExp(`^${SERIAL}\\s+C0/4\\.1 .*\\|1\\|2\\s+-75 .*far\\s+88%\\s+21\\.0°C\\s+45lx\\s+no\\s+7\\s`))
    expect(lines[4]).toMatch(/^aa:00:00:00:00:03 .*\|2\|3\s+-90 .*far/)
    expect(lines[2]).toMatch(/[▁▂▃▄▅▆▇█]/)
    expect(flags('wide')).toEqual({ alternate: true, cursor: false })

    tmux('send-keys', '-t', 'wide', 'C-c')
    const after = await waitForScreen('wide', (s) => s.includes('EXIT='), 'the exit code')
    expect(after).toContain('EXIT=0')
    expect(after).not.toContain('SERIAL/ADDRESS')
    expect(after).toMatch(/^beaconkit replay site\.jsonl ×1: 3 beacons seen, \d+ advertisements, 0 rejected$/m)
    expect(flags('wide')).toEqual({ alternate: false, cursor: true })
  })

  it('ends by itself once a replay is over and its beacons aged out, leaving a summary', async () => {
    start('end', 120, 20, ['replay', recording, '--virtual'])
    const after = await waitForScreen('end', (s) => s.includes('EXIT='), 'the exit code')
    expect(after).toMatch(/^beaconkit replay site\.jsonl virtual time: 3 beacons seen, \d+ advertisements, 0 rejected$/m)
    expect(after).toContain('EXIT=0')
    expect(flags('end')).toEqual({ alternate: false, cursor: true })
  })

  it('fits a small terminal: no line wider than it, the least important columns dropped, rows counted', async () => {
    start('small', 60, 4, ['replay', recording, '--speed', '2'])
    const text = await waitForScreen('small', (s) => s.includes('more beacon'), 'the rows left out')
    const lines = text.split('\n').filter((l) => l.trim() !== '')
    for (const line of lines) expect(line.length).toBeLessThanOrEqual(60)
    expect(lines[1]).toMatch(/^SERIAL\/ADDRESS\s+.*RSSI\s+DIST/)
    expect(lines[1]).not.toContain('LIGHT')
    expect(lines[2]).toContain('aa:00:00:00:00:01')
    expect(lines[3]).toMatch(/^… 2 more beacons/)
    tmux('send-keys', '-t', 'small', 'C-c')
    expect(await waitForScreen('small', (s) => s.includes('EXIT='), 'the exit code')).toContain('EXIT=0')
  })
})
