// The fleet's live table on a real terminal (the built command under tmux): `beaconkit fleet
// --embedded-broker` with a simulated site publishing into it, room, gateways and status line
// on screen, Ctrl-C restores the terminal and exits 0; at 80 columns the room stays whole.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from '../support/mosquitto.js'
import { startCli } from '../cli/run-cli.js'
import { Tmux } from '../cli/tmux.js'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'

let tmux: Tmux

beforeAll(() => {
  tmux = new Tmux('fleet-tty')
})

/** A client of the fleet's embedded broker, once it listens. */
async function connectWhenUp(url: string): Promise<MqttClient> {
  const deadline = Date.now() + 20_000
  for (;;) {
    try {
      return await mqtt.connectAsync(url, { clientId: 'tty-leftovers', reconnectPeriod: 0 })
    } catch (e) {
      if (Date.now() > deadline) throw e
      await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
}

afterAll(() => {
  tmux?.close()
})

describe('the fleet table', () => {
  it('shows the site fused from four gateways under the broker status, and exits 0 on Ctrl-C', async () => {
    const port = await freePort()
    tmux.start('fleet', 150, 20, ['fleet', '--embedded-broker', String(port), '--site', 'fixtures/site-demo.json'])
    const gateways = startCli(['simulate', '--site', 'fixtures/site-demo.json', '--mqtt', `mqtt://127.0.0.1:${port}`])
    // Retained statuses of an earlier run (an hour old) and a gateway the site does not list (#35):
    // the status line counts the site's four, and the stranger apart.
    const leftovers = await connectWhenUp(`mqtt://127.0.0.1:${port}`)
    const status = (time: number): string => JSON.stringify({ state: 'online', time, version: '0.0.1' })
    await leftovers.publishAsync('beaconkit/gateways/old-pi/status', status(Date.now() - 3_600_000), { qos: 1, retain: true })
    await leftovers.publishAsync('beaconkit/gateways/stray-pi/status', status(Date.now()), { qos: 1, retain: true })
    await leftovers.endAsync()
    try {
      const counted = '4/4 gateways online (1 other not in the site)'
      const text = await tmux.waitFor('fleet', (s) => s.includes(counted) && /0117C5D00003\s+laptop\s+Office\s/.test(s), 'the laptop in the office, four gateways online')
      const lines = text.split('\n')
      const broker = `broker mqtt://127\\.0\\.0\\.1:${port} \\(embedded\\) connected`
      expect(lines[0]).toMatch(new RegExp(`^beaconkit fleet │ ${broker} │ 4/4 gateways online \\(1 other not in the site\\) │ \\d+ batches/s`))
      // The site file names its beacons (its `beacons` list): the table shows the names.
      expect(lines[1]).toMatch(/^BEACON\s+NAME\s+ROOM\s+POSITION\s+GW\s+BEST RSSI\s+NEAREST/)
      expect(text).toMatch(/0117C5D00003\s+laptop\s+Office\s+[\d.]+,[\d.]+ ±[\d.]+m\s+[1-4]\s+-\d+\s+\S+-pi/)
    } finally {
      gateways.child.kill('SIGTERM')
      await gateways.done
    }
    tmux.run('send-keys', '-t', 'fleet', 'C-c')
    const after = await tmux.waitFor('fleet', (s) => s.includes('EXIT='), 'the exit code')
    expect(after).toContain('EXIT=0')
    expect(after).toMatch(/beaconkit fleet: \d+ beacons found, 4 gateways seen \(1 other not in the site\),/)
  }, 90_000)

  it('keeps the room whole in an 80-column terminal; the other gateways go first', async () => {
    const port = await freePort()
    tmux.start('narrow', 80, 20, ['fleet', '--embedded-broker', String(port), '--site', 'fixtures/site-demo.json'])
    const gateways = startCli(['simulate', '--site', 'fixtures/site-demo.json', '--mqtt', `mqtt://127.0.0.1:${port}`])
    try {
      const text = await tmux.waitFor('narrow', (s) => /\sLiving room\s/.test(s) && /0117C5D00003\s+laptop\s+Office\s/.test(s), 'a beacon in the living room and the laptop in the office')
      const lines = text.split('\n')
      expect(lines[1]).toMatch(/^BEACON\s+NAME\s+ROOM\s/)
      expect(text).not.toContain('Living …')
      expect(text).not.toContain('ALSO HEARD BY')
      expect(lines.every((l) => l.length <= 80)).toBe(true)
    } finally {
      gateways.child.kill('SIGTERM')
      await gateways.done
    }
    tmux.run('send-keys', '-t', 'narrow', 'C-c')
    expect(await tmux.waitFor('narrow', (s) => s.includes('EXIT='), 'the exit code')).toContain('EXIT=0')
  }, 90_000)
})
