// Issue #23 item 10: a broker that accepts and never acknowledges (or never answers CONNECT, or
// is frozen with SIGSTOP) must not hold a stopping command. Real child processes of the built
// CLI against a misbehaving broker that speaks the MQTT wire protocol (test/support/silent-broker.ts).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startCli } from './run-cli.js'
import type { CliResult } from './run-cli.js'
import { startSilentBroker } from '../support/silent-broker.js'
import type { SilentBroker } from '../support/silent-broker.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'

/** Flush stall (5 s without an acknowledgement) + 2 s for the DISCONNECT, plus a generous margin for a loaded machine. */
const STOP_BOUND_MS = 5000 + 2000 + 10_000

/** The run's result, or the run killed and `timedOut` when it outlived `ms`. */
async function within(run: ReturnType<typeof startCli>, ms: number): Promise<CliResult & { timedOut: boolean; ms: number }> {
  const started = Date.now()
  let timedOut = false
  const timer = setTimeout(() => {
    timedOut = true
    run.child.kill('SIGKILL')
  }, ms)
  const result = await run.done
  clearTimeout(timer)
  return { ...result, timedOut, ms: Date.now() - started }
}

describe('stopping with a broker that never acknowledges', () => {
  let silent: SilentBroker
  let deaf: SilentBroker

  beforeAll(async () => {
    silent = await startSilentBroker({ connack: true, puback: false, suback: false })
    deaf = await startSilentBroker({ connack: false })
  })

  afterAll(async () => {
    await silent?.close()
    await deaf?.close()
  })

  it('simulate --mqtt --duration ends within the duration plus the deadline: exit 1, a "stopped; N not acknowledged" line, a warning that acks stopped', async () => {
    const run = startCli(['simulate', '--beacons', '3', '--mqtt', silent.url, '--gateway-id', 'stall', '--json', '--duration', '3'])
    const result = await within(run, 3000 + 10_000 + STOP_BOUND_MS)
    expect(result.timedOut, result.stderr).toBe(false)
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/stopped; \d+ messages? not acknowledged by the broker/)
    expect(result.stderr).toContain('has acknowledged nothing for')
    expect(silent.stats.publishes).toBeGreaterThan(0)
  }, 60_000)

  it('SIGTERM starts the same bounded stop (exit 1, stopped line), never exit 13', async () => {
    const run = startCli(['simulate', '--beacons', '3', '--mqtt', silent.url, '--gateway-id', 'term', '--json'])
    await run.waitFor('"found"')
    run.child.kill('SIGTERM')
    const result = await within(run, STOP_BOUND_MS)
    expect(result.timedOut, result.stderr).toBe(false)
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/stopped; \d+ messages? not acknowledged/)
  }, 60_000)

  it('a broker that drops the connection in the middle of the stop: still bounded, exit 1 with the stopped line', async () => {
    const run = startCli(['simulate', '--beacons', '3', '--mqtt', silent.url, '--gateway-id', 'dropped', '--json'])
    await run.waitFor('"found"')
    run.child.kill('SIGTERM')
    await new Promise((resolve) => setTimeout(resolve, 1000))
    silent.dropAll()
    const result = await within(run, STOP_BOUND_MS)
    expect(result.timedOut, result.stderr).toBe(false)
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/stopped; \d+ messages? not acknowledged/)
  }, 60_000)

  it('a second signal ends the stop at once', async () => {
    const run = startCli(['simulate', '--beacons', '3', '--mqtt', silent.url, '--gateway-id', 'twice', '--json'])
    await run.waitFor('"found"')
    run.child.kill('SIGINT')
    await new Promise((resolve) => setTimeout(resolve, 500))
    run.child.kill('SIGINT')
    const result = await within(run, 5000)
    expect(result.timedOut).toBe(false)
    expect(result.code).toBe(130)
  }, 30_000)

  it('fleet --duration with a broker that never sends SUBACK nor PUBACK: bounded, exit 1, the subscription warning', async () => {
    const run = startCli(['fleet', '--mqtt', silent.url, '--json', '--duration', '7'])
    const result = await within(run, 7000 + STOP_BOUND_MS)
    expect(result.timedOut, result.stderr).toBe(false)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('has acknowledged nothing for')
    expect(result.stderr).toMatch(/stopped; 1 message not acknowledged/)
  }, 60_000)

  it('simulate --site --duration with a silent broker: every gateway stops at once, bounded, exit 1', async () => {
    const run = startCli(['simulate', '--site', 'fixtures/site-demo.json', '--mqtt', silent.url, '--duration', '3'])
    const result = await within(run, 3000 + STOP_BOUND_MS)
    expect(result.timedOut, result.stderr).toBe(false)
    expect(result.code).toBe(1)
    expect(result.stderr).toMatch(/stopped; \d+ messages not acknowledged/)
  }, 60_000)

  it('simulate --mqtt --duration with a broker that never answers CONNECT: bounded, exit 1', async () => {
    // The run waits up to 10 s for the first connection before it starts.
    const run = startCli(['simulate', '--beacons', '3', '--mqtt', deaf.url, '--gateway-id', 'deaf', '--json', '--duration', '2'])
    const result = await within(run, 10_000 + 2000 + STOP_BOUND_MS)
    expect(result.timedOut, result.stderr).toBe(false)
    expect(result.code).toBe(1)
    expect(result.stderr).toContain('not reachable yet')
    expect(result.stderr).toMatch(/stopped; \d+ messages not acknowledged/)
  }, 60_000)
})

describe.skipIf(!MOSQUITTO)(needsMosquitto('stopping with a frozen (SIGSTOPped) Mosquitto'), () => {
  let broker: Mosquitto

  beforeAll(async () => {
    broker = await Mosquitto.start()
  })

  afterAll(async () => {
    if (broker?.pid !== undefined) process.kill(broker.pid, 'SIGCONT')
    await broker?.close()
  })

  it('simulate --mqtt --duration ends within the duration plus the deadline, exit 1, never 13', async () => {
    const run = startCli(['simulate', '--beacons', '5', '--mqtt', broker.url, '--gateway-id', 'frozen', '--json', '--duration', '8'])
    await run.waitFor('"found"')
    process.kill(broker.pid as number, 'SIGSTOP')
    try {
      const result = await within(run, 8000 + STOP_BOUND_MS)
      expect(result.timedOut, result.stderr).toBe(false)
      expect(result.code).toBe(1)
      expect(result.stderr).toMatch(/stopped; \d+ messages? not acknowledged/)
    } finally {
      process.kill(broker.pid as number, 'SIGCONT')
    }
  }, 60_000)
})
