// The live table shows the broker state in its status line (the built command under tmux,
// publishing to the embedded broker).
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startBroker } from '../../src/mqtt/broker.js'
import type { RunningBroker } from '../../src/mqtt/broker.js'
import { writeRecording } from '../cli/recording.js'
import { Tmux } from '../cli/tmux.js'

let tmux: Tmux
let broker: RunningBroker
let recording = ''

beforeAll(async () => {
  tmux = new Tmux('mqtt-tty')
  recording = join(await mkdtemp(join(tmpdir(), 'beaconkit-mqtt-tty-')), 'site.jsonl')
  await writeRecording(recording)
  broker = await startBroker({ port: 0 })
})

afterAll(async () => {
  tmux?.close()
  await broker?.close()
})

describe('the live table with --mqtt', () => {
  it('shows the broker state in the status line', async () => {
    tmux.start('mqtt', 160, 20, ['replay', recording, '--mqtt', broker.url, '--gateway-id', 'tty'])
    const text = await tmux.waitFor('mqtt', (s) => s.includes('mqtt connected (tty)'), 'the broker state')
    expect(text.split('\n')[0]).toMatch(/^beaconkit replay site\.jsonl ×1 │ .* │ mqtt connected \(tty\)/)
    tmux.run('send-keys', '-t', 'mqtt', 'C-c')
    const after = await tmux.waitFor('mqtt', (s) => s.includes('EXIT='), 'the exit code')
    expect(after).toContain('EXIT=0')
  })
})
