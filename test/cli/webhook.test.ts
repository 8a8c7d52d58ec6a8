// `beaconkit webhook` as a real child process: the emulator pushes to it; each push comes out
// as a JSON line and, with --mqtt, on the embedded broker; with the broker gone pushes are
// refused so the platform pushes them again.
import { afterEach, describe, expect, it } from 'vitest'
import { startEmulator } from '../../src/emulator/emulator.js'
import type { Emulator } from '../../src/emulator/emulator.js'
import { DeveloperClient } from '../../src/developer/client.js'
import { startBroker } from '../../src/mqtt/broker.js'
import { parseCommandLine } from '../../src/cli/args.js'
import { InvalidOptionError } from '../../src/errors.js'
import { Subscriber } from '../support/mqtt-subscriber.js'
import { jsonLines, logMessages, startCli } from './run-cli.js'

const cleanups: (() => Promise<unknown>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c()
})

async function receiver(args: string[]): Promise<{ url: string; cli: ReturnType<typeof startCli> }> {
  const cli = startCli(['webhook', '--port', '0', '--json', ...args])
  cleanups.push(async () => {
    cli.child.kill('SIGTERM')
    await cli.done
  })
  await cli.waitFor(/"event":"listening"/)
  const url = (jsonLines(cli.output())[0] as { url: string }).url
  return { url, cli }
}

async function emulator(webhookUrl: string): Promise<Emulator> {
  const emu = await startEmulator({ webhookUrl, developer: { taskDelayMs: 5, redeliveryDelayMs: 5 } })
  cleanups.push(() => emu.close())
  return emu
}

describe('beaconkit webhook', () => {
  it('parses its flags', () => {
    expect(parseCommandLine(['webhook'])).toEqual({ command: 'webhook', port: 8080, host: '127.0.0.1', json: false })
    expect(parseCommandLine(['webhook', '--port', '0', '--json', '--mqtt', 'mqtt://127.0.0.1:1883', '--mqtt-prefix', 'site'])).toEqual({
      command: 'webhook',
      port: 0,
      host: '127.0.0.1',
      json: true,
      mqtt: { url: 'mqtt://127.0.0.1:1883', topicPrefix: 'site' },
    })
    expect(() => parseCommandLine(['webhook', '--mqtt-prefix', 'x'])).toThrow(InvalidOptionError)
    expect(() => parseCommandLine(['webhook', '--port', 'x'])).toThrow(/--port must be a TCP port/)
    expect(parseCommandLine(['emulate', '--port', '0', '--webhook-url', 'http://127.0.0.1:8081/'])).toMatchObject({ command: 'emulate', webhookUrl: 'http://127.0.0.1:8081/' })
  })

  it('counts a flood of malformed pushes: one warning at once, the rest summed up in one line, not one line each', async () => {
    const { url, cli } = await receiver([])
    for (let i = 0; i < 200; i++) await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{not json' })
    cli.child.kill('SIGTERM')
    const result = await cli.done
    expect(result.code).toBe(0)
    const warnings = logMessages(result.stderr, 'warn').filter((l) => l.includes('refused'))
    expect(warnings[0]).toBe('push refused (malformed): the push is not JSON')
    // The other 199 in one or two summary lines (an interval may end mid-flood), never 199 lines.
    expect(warnings.length).toBeLessThanOrEqual(3)
    const summed = warnings.slice(1).map((l) => Number(/^(\d+) pushes refused \(malformed\) in the last \d+ s$/.exec(l)?.[1]))
    expect(summed.reduce((a, b) => a + b, 0)).toBe(199)
  })

  it('prints each push as a JSON line, and stops cleanly with its counters', async () => {
    const { url, cli } = await receiver([])
    const emu = await emulator(url)
    const sn = emu.developer.store.ownDevices()[2].sn
    expect(await emu.developer.pushData(sn, { temperature: 20.5 })).toMatchObject({ delivered: true })
    const sent = await new DeveloperClient({ baseUrl: emu.url }).setInterval([sn], 120)
    await emu.developer.idle()
    await cli.waitFor(/"event":"task"/)
    cli.child.kill('SIGTERM')
    const result = await cli.done
    expect(result.code).toBe(0)
    const lines = jsonLines(result.stdout)
    expect(lines.find((l) => l.event === 'data')).toMatchObject({ message: { sn, type: 'text', data: { temperature: 20.5 } } })
    expect(lines.find((l) => l.event === 'task')).toMatchObject({ message: { taskId: String(sent.ok[0].taskId), data: { resultCode: 0 } } })
    expect(lines.at(-1)).toMatchObject({ event: 'stopped', stats: { data: 1, events: 1 } })
  })

  it('--mqtt forwards pushes to <p>/webhook/data/<sn> and <p>/webhook/tasks/<id>; without a broker pushes are refused and re-pushed', async () => {
    const broker = await startBroker({ port: 0 })
    cleanups.push(() => broker.close())
    const sub = await Subscriber.connect(broker.url, ['site/webhook/#'])
    cleanups.push(() => sub.close())
    const { url } = await receiver(['--mqtt', broker.url, '--mqtt-prefix', 'site'])
    const emu = await emulator(url)
    const sn = emu.developer.store.ownDevices()[3].sn
    expect(await emu.developer.pushData(sn, { battery: 77 })).toMatchObject({ delivered: true, attempts: [200] })
    const sent = await new DeveloperClient({ baseUrl: emu.url }).setInterval([sn], 120)
    await emu.developer.idle()
    await sub.until((ms) => ms.length >= 2, 'two forwarded pushes')
    expect(JSON.parse(sub.on(`site/webhook/data/${sn}`)[0].payload)).toMatchObject({ sn, data: { battery: 77 } })
    expect(sub.on(`site/webhook/tasks/${sent.ok[0].taskId}`)).toHaveLength(1)
    expect(sub.messages.every((m) => !m.retain && m.qos === 1)).toBe(true)
    await sub.close()
    await broker.close()
    cleanups.splice(0, 2)
    const refused = await emu.developer.pushData(sn, { battery: 76 })
    expect(refused).toMatchObject({ delivered: false })
    // 500 from the receiver, or no answer at all while the link still believed in the broker.
    expect(refused?.attempts).toHaveLength(3)
    expect(refused?.attempts.every((s) => s === 500 || s === 0)).toBe(true)
  })
})
