// BluezSource: what scanning through bluetoothd costs.
//
// 1. Update rate (a model over the simulator, no radio here): the same simulated site as seen
//    by noble (every advertisement: HCI duplicate filtering off) and as bluetoothd's discovery
//    delivers it. With our SetDiscoveryFilter bluetoothd runs "filtered" discovery (kernel
//    Start Service Discovery), so it reports RSSI on every report it gets (no 8 dBm threshold)
//    and, with DuplicateData, the data of every report; but the kernel leaves the controller's
//    LE duplicate filter on during active discovery (unless an advertisement monitor is
//    registered or the controller has the strict-duplicate quirk), and the filter only resets
//    when a discovery cycle (10.24 s) restarts. What a controller counts as a duplicate varies:
//    same address and data (most), or same address alone (strict).
// 2. Cost: D-Bus PropertiesChanged signals from a fake bluetoothd on a private dbus-daemon into
//    BluezSource, CPU µs of this process per advertisement emitted.
//   npm run build && node bench/bluez.bench.mjs
import { spawn, spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { BluezSource, SimulatedSource } from '../dist/index.js'
import { row } from './lib.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const CYCLE_MS = 10_240
const GONE_MS = 8_000
const MINUTES = 10

function site() {
  const devices = []
  const uuid = '23A01AF0-232A-4518-9C0E-323FB773F5EF'
  for (let i = 0; i < 12; i++) {
    const base = { address: `c0:00:00:00:00:${i.toString(16).padStart(2, '0')}`, distance: 2 + (i % 6), intervalMs: i % 3 === 0 ? 1000 : 500 }
    const ibeacon = { proximityUUID: uuid, major: 1, minor: i, measuredPower: -59 }
    // A third iBeacon-only (constant payload), a third with a sensor frame, a third sensor + rotating identity.
    if (i % 3 === 0) devices.push({ ...base, ibeacon })
    else if (i % 3 === 1) devices.push({ ...base, ibeacon, serialNumber: `0117C5A0000${i.toString(16)}`, vendor: [{ frame: 'e780' }], temperature: 21 + i, batteryLevel: 90 })
    else devices.push({ ...base, ibeacon, serialNumber: `0117C5B0000${i.toString(16)}`, vendor: [{ frame: 'e781', mode: 0x30 }], rotateIBeaconMs: 60_000, temperature: 20, light: 300 })
  }
  return devices
}

const payload = (adv) => `${adv.manufacturerData ? Buffer.from(adv.manufacturerData).toString('hex') : ''}|${(adv.serviceData ?? []).map((s) => s.uuid + Buffer.from(s.data).toString('hex')).join(',')}`

/** Reports a controller passes in each discovery cycle: the first of each duplicate key. */
function throughDuplicateFilter(advs, key) {
  const seen = new Set()
  let cycle = -1
  return advs.filter((adv) => {
    const c = Math.floor((adv.timestamp - advs[0].timestamp) / CYCLE_MS)
    if (c !== cycle) {
      cycle = c
      seen.clear()
    }
    const k = key(adv)
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

function summarise(name, advs, addresses) {
  const perAddress = new Map(addresses.map((a) => [a, []]))
  for (const adv of advs) perAddress.get(adv.address)?.push(adv.timestamp)
  let maxGap = 0
  let flapping = 0
  for (const times of perAddress.values()) {
    let gap = 0
    for (let i = 1; i < times.length; i++) gap = Math.max(gap, times[i] - times[i - 1])
    maxGap = Math.max(maxGap, gap)
    if (gap > GONE_MS) flapping++
  }
  row(`${name}: RSSI updates per beacon per minute`, advs.length / addresses.length / MINUTES, '/min')
  row(`${name}: longest silence of a beacon`, maxGap / 1000, 's')
  row(`${name}: beacons silent > 8 s (reported gone and found again)`, flapping, `of ${addresses.length}`)
}

function updateRate() {
  const devices = site()
  const sim = new SimulatedSource({ devices, seed: 1, virtual: true })
  const advs = [...sim.advertisements(MINUTES * 60_000)]
  const addresses = devices.map((d) => d.address)
  console.log(`\n### Update rate: ${devices.length} simulated beacons, ${MINUTES} min (model, see the file comment)\n`)
  console.log('| what | value |\n| --- | --- |')
  summarise('noble (duplicates allowed)', advs, addresses)
  summarise('BlueZ, controller filters same address + data', throughDuplicateFilter(advs, (a) => `${a.address}/${payload(a)}`), addresses)
  summarise('BlueZ, controller filters same address (strict)', throughDuplicateFilter(advs, (a) => a.address), addresses)
}

async function startBus(dir) {
  writeFileSync(
    join(dir, 'bus.conf'),
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN" "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>session</type><listen>unix:path=${join(dir, 'bus')}</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/><allow receive_sender="*"/></policy></busconfig>`,
  )
  const daemon = spawn('dbus-daemon', [`--config-file=${join(dir, 'bus.conf')}`, '--nofork', '--nopidfile', '--print-address=1'], { stdio: ['ignore', 'pipe', 'ignore'] })
  const address = await new Promise((resolve, reject) => {
    createInterface({ input: daemon.stdout }).once('line', resolve)
    daemon.once('exit', (code) => reject(new Error(`dbus-daemon exited with ${code}`)))
  })
  return { daemon, address }
}

async function cost() {
  if (spawnSync('dbus-daemon', ['--version']).status !== 0) {
    console.log('\n(dbus-daemon not installed: the D-Bus cost rows are skipped)')
    return
  }
  const dir = mkdtempSync(join(tmpdir(), 'beaconkit-bench-dbus-'))
  const { daemon, address } = await startBus(dir)
  const fake = spawn(process.execPath, [join(here, '..', 'test', 'integration', 'fixtures', 'fake-bluez.mjs'), address], { stdio: ['pipe', 'pipe', 'inherit'] })
  const lines = createInterface({ input: fake.stdout })
  const acks = new Map()
  let ready
  const isReady = new Promise((r) => (ready = r))
  lines.on('line', (line) => {
    const m = JSON.parse(line)
    if (m.ready) ready()
    if (m.ack !== undefined) acks.get(m.ack)?.()
  })
  let id = 0
  const send = (c) => new Promise((r) => {
    acks.set(++id, r)
    fake.stdin.write(`${JSON.stringify({ ...c, id })}\n`)
  })
  await isReady
  await send({ op: 'addAdapter', name: 'hci0', powered: true })
  await send({ op: 'device', adapter: 'hci0', address: 'c0:11:22:33:44:55', props: { rssi: -60 } })
  const source = new BluezSource({ busAddress: address })
  let count = 0
  let done
  let target = Infinity
  source.on('advertisement', () => {
    if (++count === target) done()
  })
  await source.start()
  const mfr = { 76: '0215e2c56db5dffb48d2b060d0f5a71096e000010002c5' }
  console.log('\n### D-Bus signal in → advertisement out (BluezSource over a real dbus-daemon)\n')
  console.log('| what | value |\n| --- | --- |')
  for (const [label, n] of [['warm-up', 2000], ['measured', 20_000]]) {
    count = 0
    target = n
    const finished = new Promise((r) => (done = r))
    const cpu0 = process.cpuUsage()
    const t0 = process.hrtime.bigint()
    await send({ op: 'changed', adapter: 'hci0', address: 'c0:11:22:33:44:55', props: { rssi: -61, mfr }, repeat: n })
    await finished
    const wallS = Number(process.hrtime.bigint() - t0) / 1e9
    const cpu = process.cpuUsage(cpu0)
    if (label === 'measured') {
      row('BluezSource CPU per advertisement (socket read, D-Bus decode, mapping, emit)', (cpu.user + cpu.system) / n, 'µs')
      row('advertisements/s end to end (fake bluetoothd → dbus-daemon → BluezSource, all on this machine)', n / wallS, '/s')
    }
  }
  await source.stop()
  fake.kill('SIGKILL')
  daemon.kill('SIGTERM')
  rmSync(dir, { recursive: true, force: true })
}

updateRate()
await cost()
