// The radio of the process bench/gateway.bench.mjs measures, preloaded with `node --import`
// before the gateway's own code: it installs the integration tests' fake HCI socket (bundled
// by the bench into BEACONKIT_BENCH_HCI_DIR) before anything loads noble, and feeds adapter
// hci0 from UDP datagrams, one HCI event each, that the bench sends from its own process in
// real time. A datagram socket, not an in-process loop, so the gateway pays what the native
// HCI socket costs it (a wake-up and a read per event, then a 'data' emit into noble's
// hci.js) and nothing of the traffic's generation. Not a *.bench.mjs: bench/run.mjs skips it.
//
// The bench talks to it over the same socket: this side says `hello` to BEACONKIT_BENCH_PORT
// once the gateway enables scanning (at once with BEACONKIT_BENCH_LEVEL=radio, where nothing
// scans and the events are only read), and answers any datagram that is not an HCI event with
// this process's counters and CPU time, plus what the gateway script puts in
// `globalThis.beaconkitBenchStats()`.
import { createSocket } from 'node:dgram'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'

const HCI_EVENT_PKT = 0x04
const benchPort = Number(process.env.BEACONKIT_BENCH_PORT)
const readOnly = process.env.BEACONKIT_BENCH_LEVEL === 'radio'
const { installFakeHciSocket } = await import(pathToFileURL(join(process.env.BEACONKIT_BENCH_HCI_DIR ?? '', 'install-fake-hci.js')).href)
const device = installFakeHciSocket().device(0)

let received = 0
let delivered = 0
// A receive buffer of a few MiB: on a shared machine the gateway is sometimes off the core for
// a while, and what overflows is lost as it would be from a full HCI socket (counted below).
const socket = createSocket({ type: 'udp4', recvBufferSize: 4 << 20 })
socket.on('message', (msg, from) => {
  if (msg[0] === HCI_EVENT_PKT) {
    received++
    // As the controller: reports only while scanning is enabled.
    if (!readOnly && device.scanEnabled && device.deliver(msg)) delivered++
    return
  }
  const cpu = process.cpuUsage()
  const mem = process.memoryUsage()
  const extra = globalThis.beaconkitBenchStats?.() ?? {}
  socket.send(JSON.stringify({ received, delivered, cpuUs: cpu.user + cpu.system, sysUs: cpu.system, rss: mem.rss, heapUsed: mem.heapUsed, ...extra }), from.port, from.address)
})
await new Promise((resolve) => socket.bind(0, '127.0.0.1', resolve))
// noble's socket holds the process open while it scans, as the native one does; this must not.
socket.unref()
const hello = () => socket.send('hello', benchPort, '127.0.0.1')
if (readOnly) hello()
else device.on('scanEnable', (enabled) => enabled && hello())
