// The site editor (issue #40): how long a save takes as a page sees it, on a real
// `beaconkit fleet --http --edit` process (dist/, `npm run build` first) with an empty broker of
// its own: a PUT /api/site is checked by the site-check model, written atomically (temp, fsync,
// rename, .bak) and handed to the running fleet, whose map then sends `event: site` to every open
// page. Two sites: a house (7 rooms, 7 gateways, 20 named tags) and the editor's largest (200
// rooms of 50 corners, 500 gateways, 10,000 named tags). Each save changes one room's name.
//   node bench/site-edit.bench.mjs [--saves 40]
import { spawn } from 'node:child_process'
import { mkdtempSync, statSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { setTimeout } from 'node:timers'
import { URL, fileURLToPath } from 'node:url'

const cli = fileURLToPath(new URL('../dist/cli/main.js', import.meta.url))
const i = process.argv.indexOf('--saves')
const SAVES = i === -1 ? 40 : Number(process.argv[i + 1])

function site(rooms, corners, gateways, tags) {
  const cols = Math.ceil(Math.sqrt(rooms))
  const polygon = (r) => {
    const cx = (r % cols) * 10 + 5
    const cy = Math.floor(r / cols) * 10 + 5
    return Array.from({ length: corners }, (_, k) => {
      const a = (k / corners) * 2 * Math.PI
      return [Number((cx + 4 * Math.cos(a)).toFixed(2)), Number((cy + 4 * Math.sin(a)).toFixed(2))]
    })
  }
  const g = {}
  for (let k = 0; k < gateways; k++) g[`gw-${k}`] = { x: (k % cols) * 10 + 5, y: Math.floor((k % rooms) / cols) * 10 + 5 }
  return {
    area: { minX: 0, minY: 0, maxX: cols * 10, maxY: Math.ceil(rooms / cols) * 10 },
    gateways: g,
    rooms: Array.from({ length: rooms }, (_, r) => ({ name: `Room ${r}`, polygon: polygon(r) })),
    beacons: Array.from({ length: tags }, (_, t) => ({ id: `TAG${String(t).padStart(8, '0')}`, name: `Tag ${t}` })),
  }
}

async function startFleet(dir) {
  const child = spawn(process.execPath, [cli, 'fleet', '--embedded-broker', '0', '--http', '127.0.0.1:0', '--edit', '--json'], { cwd: dir })
  child.stdout.resume()
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d))
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; ) {
    const m = /live map at (http:\/\/[^\s"]+)/.exec(stderr)
    if (m !== null) return { child, url: m[1] }
    await new Promise((r) => setTimeout(r, 50))
  }
  child.kill('SIGKILL')
  throw new Error(`the fleet did not start: ${stderr}`)
}

/** An open page's event stream: resolves `next()` at its next `event: site`. */
function siteEvents(url) {
  let waiting
  let buffer = ''
  const req = request(new URL('/api/events', url), (res) => {
    res.setEncoding('utf8').on('data', (d) => {
      buffer += d
      let end
      while ((end = buffer.indexOf('\n\n')) !== -1) {
        const block = buffer.slice(0, end)
        buffer = buffer.slice(end + 2)
        if (block.split('\n').includes('event: site') && waiting !== undefined) {
          const w = waiting
          waiting = undefined
          w(performance.now())
        }
      }
    })
  })
  req.end()
  return { next: () => new Promise((resolve) => (waiting = resolve)), close: () => req.destroy() }
}

/** PUT `body` as JSON to `path` on `url`: resolves with the status once the answer is read. */
function put(url, path, body) {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, url), { method: 'PUT', headers: { 'Content-Type': 'application/json' } }, (res) => {
      let text = ''
      res.setEncoding('utf8').on('data', (d) => (text += d))
      res.on('end', () => resolve({ status: res.statusCode, text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]

async function run(label, json) {
  const dir = mkdtempSync(join(tmpdir(), 'beaconkit-site-edit-bench-'))
  const { child, url } = await startFleet(dir)
  const events = siteEvents(url)
  await new Promise((r) => setTimeout(r, 300))
  const saved = []
  const shown = []
  let bytes = 0
  try {
    for (let k = 0; k < SAVES; k++) {
      json.rooms[0].name = `Room 0 (save ${k})`
      const body = JSON.stringify({ version: k, site: json })
      bytes = Buffer.byteLength(body)
      const event = events.next()
      const t0 = performance.now()
      const res = await put(url, '/api/site', body)
      const t1 = performance.now()
      if (res.status !== 200) throw new Error(`save ${k}: ${res.status} ${res.text}`)
      const t2 = await event
      saved.push(t1 - t0)
      shown.push(t2 - t0)
    }
  } finally {
    events.close()
    child.kill('SIGTERM')
  }
  const file = statSync(join(dir, 'site.json')).size
  const ms = (x) => `${x.toFixed(1)} ms`
  console.log(
    `| ${label} | ${(bytes / 1024).toFixed(0)} KiB | ${(file / 1024).toFixed(0)} KiB | ${ms(quantile(saved, 0.5))} | ${ms(quantile(saved, 0.95))} | ${ms(quantile(shown, 0.5))} | ${ms(quantile(shown, 0.95))} |`,
  )
}

console.log(`site editor saves, ${SAVES} each, node ${process.version}`)
console.log('| site | request | file | save median | save p95 | page told median | page told p95 |')
console.log('|---|---|---|---|---|---|---|')
await run('house: 7 rooms × 6 corners, 7 gateways, 20 tags', site(7, 6, 7, 20))
await run('largest: 200 rooms × 50 corners, 500 gateways, 10,000 tags', site(200, 50, 500, 10_000))
