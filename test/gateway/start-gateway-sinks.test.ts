// The composition root with sinks the caller built (`config.sinks`, as runSite hands it a
// publisher on a connection of its own): attached and started after the built-in sinks, closed
// in reverse before them, the scanner stopped first, a failed start rolled back; and the
// scanner's timing from `config.scanner`. Real parts: the live map on a real HTTP port.
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { startGateway } from '../../src/gateway/start-gateway.js'
import type { ScannerEventSource, ScannerSink } from '../../src/scanner/sink.js'
import { ReplaySource } from '../../src/sources/replay.js'
import { PushSource } from '../support/push-source.js'

const DEMO = fileURLToPath(new URL('../../fixtures/demo.jsonl', import.meta.url))
const QUIET = { warn: () => undefined, stderr: { write: () => true } }

/** A sink that writes what happens to it into `log`, and whose start can fail. */
function loggingSink(name: string, log: string[], options: { startError?: Error; onClose?: () => Promise<void> } = {}): ScannerSink {
  return {
    attach(events: ScannerEventSource) {
      log.push(`${name} attach`)
      const updated = (): void => undefined
      events.on('updated', updated)
      return () => {
        events.off('updated', updated)
        log.push(`${name} detach`)
      }
    },
    async start() {
      log.push(`${name} start`)
      if (options.startError !== undefined) throw options.startError
    },
    async close() {
      await options.onClose?.()
      log.push(`${name} close`)
    },
  }
}

describe('startGateway with the caller’s sinks', () => {
  it('starts them after the built-in sinks, in order; stop stops the scanner, then closes them in reverse before the built-in ones', async () => {
    const log: string[] = []
    const source = new PushSource()
    let mapUrl = ''
    const mapAnswers: number[] = []
    // Each caller sink checks, while it closes, that the scanner is already stopped and the map (built in, started first) still serves.
    const onClose = async (): Promise<void> => {
      log.push(`source running: ${String(source.running)}`)
      mapAnswers.push((await fetch(mapUrl)).status)
    }
    const gateway = await startGateway(
      { source, http: { listen: '127.0.0.1:0' }, sinks: [loggingSink('a', log, { onClose }), loggingSink('b', log, { onClose })] },
      {
        warn: () => undefined,
        stderr: {
          write: (text: string) => {
            mapUrl = /live map at (\S+)/.exec(text)?.[1] ?? ''
            log.push('map started')
            return true
          },
        },
      },
    )
    expect(log).toEqual(['map started', 'a attach', 'a start', 'b attach', 'b start'])
    await gateway.start()
    expect(source.running).toBe(true)
    log.length = 0
    await gateway.stop()
    expect(log).toEqual(['source running: false', 'b close', 'b detach', 'source running: false', 'a close', 'a detach'])
    expect(mapAnswers.every((status) => status < 500)).toBe(true)
    expect(mapAnswers).toHaveLength(2)
    // The map closed last: it no longer answers.
    await expect(fetch(mapUrl)).rejects.toThrow()
  })

  it('a sink that cannot start is closed with those started before it; a sink after it is never attached', async () => {
    const log: string[] = []
    const failing = startGateway(
      { source: new PushSource(), sinks: [loggingSink('a', log), loggingSink('b', log, { startError: new Error('no broker') }), loggingSink('c', log)] },
      QUIET,
    )
    await expect(failing).rejects.toThrow('no broker')
    expect(log).toEqual(['a attach', 'a start', 'b attach', 'b start', 'b close', 'b detach', 'a close', 'a detach'])
  })

  it('runs the scanner on the configured timing', async () => {
    const ticks = async (scanner?: { updateIntervalMs: number }): Promise<number> => {
      let updates = 0
      const counter: ScannerSink = {
        attach(events) {
          const updated = (): void => void updates++
          events.on('updated', updated)
          return () => events.off('updated', updated)
        },
        close: async () => undefined,
      }
      const gateway = await startGateway({ source: new ReplaySource(DEMO, { virtual: true }), ...(scanner === undefined ? {} : { scanner }), sinks: [counter] }, QUIET)
      await gateway.start()
      await gateway.scanner.drain()
      await gateway.stop()
      return updates
    }
    // The demo replay spans 90 s: a tick a second by default, one per 10 s when asked.
    expect(await ticks()).toBeGreaterThan(60)
    expect(await ticks({ updateIntervalMs: 10_000 })).toBeLessThan(15)
  })
})
