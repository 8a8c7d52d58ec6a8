// The README's quick start, `npm run demo` = `beaconkit scan --fallback-replay fixtures/demo.jsonl`:
// the fallback on this machine without Bluetooth, the recording in virtual time (the real-time
// run lasts the recording's 90 s), and the live table on a terminal.
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { copyFile, mkdtemp, rm, symlink } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, it, expect } from 'vitest'
import { ROOT, jsonLines, runCli, startCli } from './run-cli.js'
import { Tmux } from './tmux.js'

const SAMPLE_KEY = '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'
type Event = { event: string; beacon?: { id: string; secure?: { verified: boolean; keyId?: string } } }

describe('npm run demo on a machine without Bluetooth', () => {
  // (Without the fallback, scan exits 3 with the Bluetooth message: cli-run.test.ts.)
  it.runIf(process.platform === 'linux' && !existsSync('/sys/class/bluetooth'))('says why and replays the bundled recording instead', async () => {
    const run = startCli(['scan', '--fallback-replay', 'fixtures/demo.jsonl', '--key', SAMPLE_KEY, '--json'])
    await run.waitFor(/"event":"found"/)
    run.child.kill('SIGINT')
    const r = await run.done
    expect(r.code).toBe(0)
    expect(r.stderr).toMatch(/no Bluetooth adapter here \(unsupported\); replaying fixtures\/demo\.jsonl instead/)
    expect(jsonLines(r.stdout)[0]).toMatchObject({ event: 'found' })
  })

  // `npm run -s demo | jq`: standard output carries only the demo's JSON lines, never build
  // output. (Without -s, npm itself prints its "> beaconkit demo" banner on standard output.)
  // The script runs in a copy of the project so its build does not replace the dist/ the
  // other tests are running.
  it.runIf(process.platform === 'linux' && !existsSync('/sys/class/bluetooth'))('keeps standard output pure JSON when piped, build included', async () => {
    const copy = await mkdtemp(join(tmpdir(), 'beaconkit-demo-'))
    try {
      for (const f of ['package.json', 'tsup.config.ts', 'tsconfig.json']) await copyFile(join(ROOT, f), join(copy, f))
      for (const d of ['src', 'fixtures', 'node_modules']) await symlink(join(ROOT, d), join(copy, d))
      const child = spawn('npm', ['run', '-s', 'demo'], { cwd: copy, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
      let stdout = ''
      let stderr = ''
      child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d))
      const done = new Promise<void>((resolve) => child.on('close', () => resolve()))
      await new Promise<void>((resolve) => {
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          stdout += d
          if (/"event":"found"/.test(stdout)) resolve()
        })
        child.on('close', () => resolve())
      })
      // npm, its shell and node: the whole group, as Ctrl-C in a terminal would.
      try {
        if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, 'SIGINT')
      } catch (error) {
        // The group may have ended on its own in between (ESRCH); anything else is a failure.
        if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error
      }
      await done
      expect(stderr).toMatch(/no Bluetooth adapter here/)
      const lines = stdout.split('\n').filter((l) => l.trim() !== '')
      expect(lines.length).toBeGreaterThan(0)
      for (const line of lines) expect(() => JSON.parse(line), line).not.toThrow()
      expect(jsonLines(stdout)[0]).toMatchObject({ event: 'found' })
    } finally {
      await rm(copy, { recursive: true, force: true })
    }
  }, 120_000)
})

describe('the demo recording', () => {
  it('replays every device of the demo site and ends by itself, exit 0', async () => {
    const r = await runCli(['replay', 'fixtures/demo.jsonl', '--virtual', '--json', '--key', SAMPLE_KEY])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    const events = jsonLines(r.stdout) as unknown as Event[]
    const found = new Map(events.filter((e) => e.event === 'found').map((e) => [e.beacon?.id, e.beacon]))
    for (const id of ['0117C5000002', '0117C5000003', '0117C5000004', '0117C5000005', '0117C5000007', '0117C5000008']) expect(found.has(id)).toBe(true)
    // The device encrypted with the sample key is verified; the one with an unlisted key is not.
    expect(found.get('0117C5000005')?.secure).toMatchObject({ verified: true, keyId: '0001' })
    expect([...found.values()].some((b) => b?.secure?.keyId === 'beef' && b.secure.verified === false)).toBe(true)
    const gone = events.filter((e) => e.event === 'gone').length
    expect(gone).toBe(events.filter((e) => e.event === 'found').length)
  })

  it('shows the live table on a terminal (tmux), as `npm run demo` does', async () => {
    const tmux = new Tmux('demo')
    try {
      tmux.start('demo', 170, 20, ['replay', 'fixtures/demo.jsonl', '--speed', '10'])
      const text = await tmux.waitFor('demo', (s) => s.includes('0117C5000003') && s.includes('? beef'), 'the demo devices')
      expect(text).toMatch(/^beaconkit replay demo\.jsonl ×10 │ \d+ adverts\/s │ \d+ in range │ \d+ rejected/)
      expect(text).toMatch(/^0117C5000003\s+C0\/4\.1\s/m)
      expect(text).toMatch(/^c0:00:00:00:00:06 .*\? beef/m)
      tmux.run('send-keys', '-t', 'demo', 'C-c')
      expect(await tmux.waitFor('demo', (s) => s.includes('EXIT='), 'the exit code')).toContain('EXIT=0')
    } finally {
      tmux.close()
    }
  })
})
