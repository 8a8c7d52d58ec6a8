// `npm run demo:fleet`: the bundled four-gateway site (fixtures/site-demo.json) simulated into the
// fleet table, with nothing installed: `beaconkit fleet --embedded-broker` runs the broker and the
// table in one process, `beaconkit simulate --site` the four gateways in another. Arguments after
// `--` go to the fleet command (`npm run demo:fleet -- --json --duration 30`). Ctrl-C stops both.
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(import.meta.resolve('../'))
const cli = fileURLToPath(import.meta.resolve('../dist/cli/main.js'))
const site = 'fixtures/site-demo.json'

/** A free loopback port (the OS picks it), so a broker already on 1883 is left alone. */
async function freePort() {
  const server = createServer()
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address()
  await new Promise((resolve) => server.close(resolve))
  return port
}

const port = await freePort()
const url = `mqtt://127.0.0.1:${port}`
const fleet = spawn(process.execPath, [cli, 'fleet', '--embedded-broker', String(port), '--site', site, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' })
// The gateways retry until the fleet's broker listens; their chatter would tear the table.
const gateways = spawn(process.execPath, [cli, 'simulate', '--site', site, '--mqtt', url], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] })
let stopping = false
const stop = (signal) => {
  if (stopping) return
  stopping = true
  if (gateways.exitCode === null) gateways.kill(signal)
  if (fleet.exitCode === null) fleet.kill(signal)
}
// Ctrl-C reaches both children through the terminal; SIGTERM to this script is passed on.
process.on('SIGINT', () => stop('SIGINT'))
process.on('SIGTERM', () => stop('SIGTERM'))
gateways.on('exit', (code) => {
  if (!stopping && code !== 0) {
    process.stderr.write(`demo:fleet: the simulated gateways stopped (exit ${code})\n`)
    stop('SIGTERM')
  }
})
fleet.on('exit', (code) => {
  stop('SIGTERM')
  process.exitCode = code ?? 1
})
