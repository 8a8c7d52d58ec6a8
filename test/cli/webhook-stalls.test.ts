// Issue #23 items 10 and 11: `beaconkit webhook --mqtt` with a broker that accepts and never
// acknowledges. Pushes beyond the in-flight bound are answered 503 at once (the platform pushes
// them again) instead of piling up inside mqtt.js, and SIGINT ends the receiver promptly.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { jsonLines, startCli } from './run-cli.js'
import { startSilentBroker } from '../support/silent-broker.js'
import type { SilentBroker } from '../support/silent-broker.js'
import { FORWARD_LIMITS } from '../../src/cli/commands/webhook-forward.js'
import { parseCommandLine } from '../../src/cli/args.js'

let broker: SilentBroker

beforeAll(async () => {
  broker = await startSilentBroker({ puback: false })
})

afterAll(async () => {
  await broker?.close()
})

const push = (msgId: number): string =>
  JSON.stringify({
    appId: 'app-1',
    sn: `SN${msgId}`,
    type: 'text',
    deviceType: 'temp_humi',
    createdTime: 1_767_225_600_000,
    msgId,
    data: { temperature: 21.5, note: 'x'.repeat(1000) },
  })

describe('beaconkit webhook --mqtt with a broker that never acknowledges', () => {
  it('parses --handler-timeout in seconds', () => {
    expect(parseCommandLine(['webhook', '--handler-timeout', '2.5'])).toMatchObject({ handlerTimeoutMs: 2500 })
    expect(() => parseCommandLine(['webhook', '--handler-timeout', '0'])).toThrow(/--handler-timeout/)
  })

  it('answers 503 at once beyond the in-flight bound, 500 after the PUBACK timeout within it, and stops promptly on SIGINT', async () => {
    const cli = startCli(['webhook', '--port', '0', '--json', '--mqtt', broker.url])
    await cli.waitFor(/"event":"listening"/)
    const url = (jsonLines(cli.output())[0] as { url: string }).url
    const extra = 30
    const n = FORWARD_LIMITS.messages + extra
    const answers: { status: number; ms: number }[] = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const started = Date.now()
        const res = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: push(i + 1),
        })
        await res.text()
        return { status: res.status, ms: Date.now() - started }
      }),
    )
    const count = (status: number): number => answers.filter((a) => a.status === status).length
    expect(count(503)).toBeGreaterThanOrEqual(extra)
    expect(count(500) + count(503)).toBe(n)
    expect(count(200)).toBe(0)
    // With more pushes in flight again, SIGINT must end it without waiting for acknowledgements.
    const pending = fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: push(n + 1),
    }).then(
      (r) => r.status,
      () => 0,
    )
    await new Promise((resolve) => setTimeout(resolve, 300))
    const stopping = Date.now()
    cli.child.kill('SIGINT')
    const killer = setTimeout(() => cli.child.kill('SIGKILL'), 20_000)
    const result = await cli.done
    clearTimeout(killer)
    await pending
    expect(result.signal).toBeNull()
    expect(result.code).toBe(0)
    expect(Date.now() - stopping).toBeLessThan(15_000)
    expect(jsonLines(result.stdout).at(-1)).toMatchObject({ event: 'stopped' })
  }, 60_000)
})
