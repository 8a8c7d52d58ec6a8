// A port in use is a transient failure (issue #35 item 17): the command exits 75 (EX_TEMPFAIL),
// which the shipped systemd units restart, instead of 2 (bad option or config), which they
// leave failed for good. The help lists the code.
import { createServer } from 'node:net'
import type { Server } from 'node:net'
import { readFile } from 'node:fs/promises'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from './run-cli.js'

let taken: Server
let port: number
beforeAll(async () => {
  taken = createServer()
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
  port = (taken.address() as { port: number }).port
})
afterAll(async () => {
  await new Promise((resolve) => taken.close(resolve))
})

/** The exit statuses a unit tells systemd not to restart. */
async function preventedStatuses(unit: string): Promise<string[]> {
  const text = await readFile(new URL(`../../examples/systemd/${unit}`, import.meta.url), 'utf8')
  return (/^RestartPreventExitStatus=(.*)$/m.exec(text)?.[1] ?? '').split(/\s+/)
}

describe('exit codes of a port in use', () => {
  it.each([
    ['the metrics server', ['replay', 'fixtures/demo.jsonl', '--virtual', '--json', '--metrics']],
    ['the live map', ['replay', 'fixtures/demo.jsonl', '--virtual', '--json', '--http']],
    ['the embedded broker', ['fleet', '--json', '--duration', '2', '--embedded-broker']],
  ])('%s: exit 75 with [port_in_use], a status the shipped units restart', async (_what, args) => {
    const r = await runCli([...args, String(port)])
    expect(r.code).toBe(75)
    expect(r.stderr).toMatch(new RegExp(`port ${port} on 127\\.0\\.0\\.1 is in use.*\\[port_in_use\\]`))
    for (const unit of ['beaconkit-gateway.service', 'beaconkit-fleet.service']) expect(await preventedStatuses(unit)).not.toContain('75')
  }, 30_000)

  it('a bad option still exits 2, and the help of scan and fleet lists 75', async () => {
    expect((await runCli(['replay', 'fixtures/demo.jsonl', '--metrics', 'not-a-port'])).code).toBe(2)
    for (const command of ['scan', 'fleet']) expect((await runCli([command, '--help'])).stdout).toMatch(/75 a transient failure/)
  })
})
