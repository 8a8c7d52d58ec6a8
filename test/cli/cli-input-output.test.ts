// The command's input and output in a hostile environment: pipes, FIFOs, /dev/zero, /dev/full,
// readers that go away, files that are not recordings. Real child processes, real FIFOs.
import { describe, it, expect, beforeAll } from 'vitest'
import { execFileSync, spawn } from 'node:child_process'
import { closeSync, createWriteStream, existsSync, openSync } from 'node:fs'
import { mkdtemp, readFile, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { CLI, ROOT, jsonLines, logMessages, requireBuild, runCli, startCli } from './run-cli.js'
import type { CliResult } from './run-cli.js'
import { T0, writeRecording } from './recording.js'

const SAMPLE_KEY = '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'
const POSIX = process.platform !== 'win32'

let dir = ''
let recording = ''

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'beaconkit-cli-io-'))
  recording = join(dir, 'site.jsonl')
  await writeRecording(recording)
})

/** Runs the command with stdout going to an already open file descriptor. */
function runToFd(args: string[], fd: number): Promise<CliResult> {
  requireBuild()
  const child = spawn(process.execPath, [CLI, ...args], { cwd: ROOT, stdio: ['ignore', fd, 'pipe'] })
  let stderr = ''
  child.stderr?.setEncoding('utf8').on('data', (d: string) => {
    stderr += d
  })
  return new Promise((resolve) => child.on('close', (code, signal) => resolve({ code, signal, stdout: '', stderr })))
}

/**
 * Runs the command to its end, killing it after 20 s: a regression here is a hang at 100 % CPU
 * (or a wait on a FIFO) that must not outlive the test.
 */
async function runBounded(args: string[]): Promise<CliResult> {
  const run = startCli(args)
  const timer = setTimeout(() => run.child.kill('SIGKILL'), 20_000)
  try {
    return await run.done
  } finally {
    clearTimeout(timer)
  }
}

function mkfifo(name: string): string {
  const path = join(dir, name)
  execFileSync('mkfifo', [path])
  return path
}

describe('replay input', () => {
  it('reads a recording from standard input with `replay -`', async () => {
    const text = await readFile(recording, 'utf8')
    const r = await runCli(['replay', '-', '--virtual', '--json'], { input: text })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const found = jsonLines(r.stdout).filter((l) => l.event === 'found')
    expect(found).toHaveLength(3)
  })

  it.skipIf(!POSIX)('reads a recording from a FIFO', async () => {
    const fifo = mkfifo('rec.fifo')
    const run = startCli(['replay', fifo, '--virtual', '--json'])
    const writer = createWriteStream(fifo)
    writer.end(await readFile(recording))
    const r = await run.done
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(jsonLines(r.stdout).filter((l) => l.event === 'gone')).toHaveLength(3)
  })

  it.each([
    ['an empty file', '', /recording .*empty\.jsonl is empty/],
    ['a text file that is not JSONL', 'root:x:0:0:root:/root:/bin/bash\ndaemon:x:1:1::/usr/sbin:/usr/sbin/nologin\n', /has no valid advertisement line \(2 of 2 lines malformed\)/],
    ['binary data', Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) % 256)), /has no valid advertisement line/],
    ['a header and nothing else', '{"format":"beaconkit-advertisements","version":1}\n', /holds a header but no advertisement/],
  ])('exits 2 for %s, saying it is not a recording', async (_what, content, message) => {
    const file = join(dir, 'empty.jsonl')
    await writeFile(file, content)
    const r = await runCli(['replay', file, '--virtual', '--json'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(message)
    expect(r.stderr).toMatch(/\[not_a_recording\]$/m)
  })

  it('skips a t of 1e300 and a jump of decades at once, instead of ticking through them', async () => {
    const lines = (await readFile(recording, 'utf8')).trimEnd().split('\n')
    const first = JSON.parse(lines[1]) as { t: number }
    // The same beacon, heard in 1970 and again now; then a line from beyond the Date range.
    const early = { ...first, t: 1000 }
    const file = join(dir, 'jump.jsonl')
    await writeFile(file, [JSON.stringify(early), lines[1], '{"t":1e300,"address":"aa:00:00:00:00:01","rssi":-60}', ''].join('\n'))
    const r = await runBounded(['replay', file, '--virtual', '--json'])
    expect(r.code).toBe(0)
    expect(logMessages(r.stderr, 'warn').join('\n')).toMatch(/line 3: "t" must be between 0 and 8640000000000000 ms/)
    const events = jsonLines(r.stdout)
    expect(events.filter((e) => e.event !== 'updated').map((e) => [e.event, e.time])).toEqual([
      ['found', 1100],
      ['gone', 9000],
      ['found', T0 + 100],
      ['gone', T0 + 8000],
    ])
    expect(events.filter((e) => e.event === 'updated').length).toBeLessThan(20)
  })

  it.skipIf(!existsSync('/dev/zero'))('reads /dev/zero (an endless line) in bounded memory and stops on SIGINT', async () => {
    const run = startCli(['replay', '/dev/zero', '--virtual', '--json'])
    const timer = setTimeout(() => run.child.kill('SIGKILL'), 20_000)
    await new Promise<void>((resolve) => {
      run.child.stderr.on('data', () => resolve())
      run.child.on('close', () => resolve())
    })
    run.child.kill('SIGINT')
    const r = await run.done
    clearTimeout(timer)
    expect(r.stderr).toMatch(/line 1: longer than 65536 bytes; line skipped/)
    expect(r.stderr).not.toMatch(/RangeError|\n\s+at /)
    expect(r.code).toBe(0)
  })
})

describe('replay speed', () => {
  it('--speed 20 prints the same events at the same recording times as --virtual', async () => {
    const virtual = await runCli(['replay', recording, '--virtual', '--json'])
    const fast = await runCli(['replay', recording, '--speed', '20', '--json'])
    expect(fast.code).toBe(0)
    expect(virtual.code).toBe(0)
    expect(jsonLines(virtual.stdout).filter((e) => e.event === 'gone')).toHaveLength(3)
    expect(jsonLines(fast.stdout)).toEqual(jsonLines(virtual.stdout))
  })
})

describe('secret files that are not plain files', () => {
  it.skipIf(!POSIX)('refuses a FIFO as --keys-file or --password-file at once (exit 2), instead of waiting for a writer', async () => {
    const fifo = mkfifo('secret.fifo')
    const keys = await runBounded(['replay', recording, '--virtual', '--json', '--keys-file', fifo])
    expect(keys.code).toBe(2)
    expect(keys.stderr).toMatch(/keys file .*secret\.fifo is not a regular file .*\[not_a_file\]/)
    const check = await runBounded(['keys', 'check', '--keys-file', fifo])
    expect(check.code).toBe(2)
    expect(check.stderr).toMatch(/\[not_a_file\]/)
    const password = await runBounded(['replay', recording, '--virtual', '--json', '--upload', '--cloud-url', 'http://127.0.0.1:9', '--email', 'a@b.c', '--password-file', fifo])
    expect(password.code).toBe(2)
    expect(password.stderr).toMatch(/--password-file .*secret\.fifo is not a regular file .*\[not_a_file\]/)
  })

  it('never echoes a key given where a file goes', async () => {
    const r = await runCli(['replay', recording, '--virtual', '--keys-file', SAMPLE_KEY])
    expect(r.code).toBe(2)
    expect(r.stderr).not.toContain(SAMPLE_KEY.slice(0, 12))
    expect(r.stderr).toMatch(/looks like a broadcast key/)
  })

  it.skipIf(!POSIX)('warns on stderr when other users can read the keys file', async () => {
    const file = join(dir, 'open-keys.txt')
    await writeFile(file, `${SAMPLE_KEY}\n`, { mode: 0o644 })
    const r = await runCli(['keys', 'check', '--keys-file', file])
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/^beaconkit: warning: keys file .*open-keys\.txt can be read by other users \(mode 0644\); protect it with chmod 600/)
  })
})

describe('output errors', () => {
  it.skipIf(!existsSync('/dev/full'))('stops with one line and exit 1 when standard output is full (/dev/full)', async () => {
    const fd = openSync('/dev/full', 'w')
    try {
      const r = await runToFd(['replay', recording, '--virtual', '--json'], fd)
      expect(r.code).toBe(1)
      expect(r.stderr).toBe('beaconkit: cannot write to standard output (ENOSPC: no space left on device); stopped\n')
    } finally {
      closeSync(fd)
    }
  })

  it('ends quietly with exit 0 when its reader goes away during a virtual replay (`| head -1`)', async () => {
    const run = startCli(['replay', recording, '--virtual', '--json'])
    await run.waitFor('\n')
    run.child.stdout.destroy()
    const r = await run.done
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
  })
})
