// close() while the broker has not answered CONNECT yet (a slow broker, or the 3.1.1 fallback
// under way) must let the process end: mqtt.js's graceful end waited for a connection that was
// no longer wanted and left its socket open, so a gateway stopped by systemd hung until killed.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import type { Server, Socket } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const DIST = pathToFileURL(join(fileURLToPath(new URL('../..', import.meta.url)), 'dist', 'index.js')).href

let server: Server
let port = 0
const sockets = new Set<Socket>()

beforeAll(async () => {
  // A broker that accepts the TCP connection and never answers CONNECT.
  server = createServer((socket) => {
    sockets.add(socket)
    socket.on('data', () => undefined)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  port = (server.address() as { port: number }).port
})

afterAll(async () => {
  for (const s of sockets) s.destroy()
  await new Promise((resolve) => server.close(resolve))
})

describe('MqttPublisher.close() before the broker answered', () => {
  it('resolves and leaves nothing that keeps the process alive', async () => {
    const script = `
      import { MqttPublisher } from ${JSON.stringify(DIST)}
      const p = new MqttPublisher({ url: 'mqtt://127.0.0.1:${port}', gatewayId: 'hall' })
      await p.connect()
      await new Promise((r) => setTimeout(r, 200))
      await p.close()
      console.log('closed', p.stats.state)`
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d))
    // A bound on a hang (the bug kept the process alive indefinitely), not on speed.
    const killer = setTimeout(() => child.kill('SIGKILL'), 15_000)
    const [code, signal] = await new Promise<[number | null, string | null]>((resolve) => child.on('exit', (c, s) => resolve([c, s])))
    clearTimeout(killer)
    expect(stdout).toContain('closed closed')
    expect(signal).toBeNull()
    expect(code).toBe(0)
  }, 30_000)
})
