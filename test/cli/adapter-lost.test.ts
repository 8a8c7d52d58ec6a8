// A source that reports its adapter lost for good (NobleSource after adapterLostMs without
// poweredOn) ends a view command with exit 3 and one line, so a supervisor restarts it.
import { describe, expect, it } from 'vitest'
import { EventEmitter } from 'eventemitter3'
import { runView } from '../../src/cli/commands/view.js'
import { BluetoothUnavailableError } from '../../src/errors.js'
import { logMessages } from './run-cli.js'
import type { AdvertisementSourceEvents } from '../../src/sources/source.js'

class LosingSource extends EventEmitter<AdvertisementSourceEvents> {
  constructor(private readonly error: Error) {
    super()
  }
  async start(): Promise<void> {
    setImmediate(() => this.emit('error', this.error))
  }
  async stop(): Promise<void> {}
}

function run(error: Error): Promise<{ code: number; stderr: string }> {
  let stderr = ''
  const stdout = { write: () => true, isTTY: false, on: () => undefined, off: () => undefined }
  const streams = { stdout, stderr: { write: (t: string) => (stderr += t) } }
  const view = { json: true, keys: [], filter: {} }
  return runView({ source: new LosingSource(error), label: 'scan', view, durationMs: 2000 }, streams).then((code) => ({ code, stderr }))
}

describe('an adapter lost for good', () => {
  it('ends the command with exit 3 and the error line', async () => {
    const { code, stderr } = await run(new BluetoothUnavailableError('adapter_lost', 'hci0 went away (EBADFD) and did not come back'))
    expect(code).toBe(3)
    expect(stderr).toMatch(/hci0 went away.*\[adapter_lost\]/)
  })

  it('other source errors stay warnings', async () => {
    const { code, stderr } = await run(new Error('one bad packet'))
    expect(code).toBe(0)
    // A JSON log record (stderr is not a terminal here) at level warn.
    expect(logMessages(stderr, 'warn')).toContain('one bad packet')
  })
})
