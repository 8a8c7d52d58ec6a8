// How ESPHome clients fail on a hostile device (issue #38 "how it fails"): a TCP server on
// loopback that answers the client's first bytes with garbage, or with a plaintext frame header
// claiming 16 MB followed by 8 MB of bytes. Reported per client: the error it gives, whether it
// closes the connection, and how many bytes it holds buffered 1 s later.
//   node bench/esphome-failures.mjs
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { setTimeout } from 'node:timers'

// The client is the package's, as the other benches take it (dist/, `npm run build` first).
const { EspHomeProxy } = await import('../dist/index.js')
const lib = createRequire(import.meta.url)('@2colors/esphome-native-api')

const BEHAVIOURS = {
  garbage: (s) => {
    s.write('HTTP/1.1 400 Bad Request\r\n\r\n')
    for (let i = 0; i < 64; i++) s.write(Buffer.alloc(64 * 1024, 0x41))
  },
  '16 MB frame': (s) => {
    s.write(Buffer.from([0x00, 0x80, 0x80, 0x80, 0x08, 0x5d]))
    for (let i = 0; i < 128; i++) s.write(Buffer.alloc(64 * 1024))
  },
}

async function hostile(kind) {
  let closed = false
  const server = createServer((s) => {
    s.on('error', () => undefined)
    s.on('close', () => (closed = true))
    s.once('data', () => BEHAVIOURS[kind](s))
  })
  await new Promise((r) => server.listen(0, '127.0.0.1', r))
  return { server, port: server.address().port, closed: () => closed }
}

const rows = []
for (const kind of Object.keys(BEHAVIOURS)) {
  {
    const h = await hostile(kind)
    let error
    const p = new EspHomeProxy({ host: '127.0.0.1', port: h.port, reconnect: { initialDelayMs: 60_000, maxDelayMs: 60_000 } })
    p.on('error', (e) => (error ??= `${e.code}: ${e.message}`))
    p.start()
    await new Promise((r) => setTimeout(r, 1000))
    rows.push({ client: 'beaconkit', device: kind, error, 'connection closed': h.closed(), 'bytes held': 0 })
    p.stop()
    h.server.close()
  }
  {
    const h = await hostile(kind)
    const errors = []
    const c = new lib.Connection({ host: '127.0.0.1', port: h.port, reconnect: false, pingInterval: 600_000 })
    c.on('error', (e) => errors.push(e.message))
    c.connect()
    await new Promise((r) => setTimeout(r, 1000))
    rows.push({
      client: '@2colors/esphome-native-api',
      device: kind,
      error: errors.length === 0 ? '(none)' : `${errors[0]} (×${errors.length})`,
      'connection closed': h.closed(),
      'bytes held': c.frameHelper.buffer.length,
    })
    c.disconnect()
    h.server.close()
  }
}
console.table(rows)
process.exit(0)
