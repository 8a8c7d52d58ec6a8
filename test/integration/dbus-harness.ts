/**
 * A real, private dbus-daemon for the BluezSource tests, and the fake bluetoothd
 * (fixtures/fake-bluez.mjs) as a child process on it. Nothing touches the machine's system bus.
 */
import { spawn, spawnSync } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { waitFor } from './wait.js'

const FAKE_BLUEZ = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'fake-bluez.mjs')

/** Why the D-Bus tests cannot run here, or undefined when they can. */
export function dbusUnavailable(): string | undefined {
  const probe = spawnSync('dbus-daemon', ['--version'], { encoding: 'utf8' })
  if (probe.error !== undefined || probe.status !== 0) {
    return 'dbus-daemon is not installed (Debian package `dbus`: `apt-get install -y dbus`); BluezSource tests skipped'
  }
  return undefined
}

/** A private bus; `deny` adds a bus-policy rule refusing calls to that interface of org.bluez (as a locked-down system bus does). */
export interface PrivateBus {
  address: string
  stop(): Promise<void>
}

/** Starts dbus-daemon with a generated config listening on a unix socket in a fresh temp dir. */
export async function startBus(options: { denyInterface?: string } = {}): Promise<PrivateBus> {
  const dir = mkdtempSync(join(tmpdir(), 'beaconkit-dbus-'))
  const socket = join(dir, 'bus')
  const deny = options.denyInterface === undefined ? '' : `<deny send_destination="org.bluez" send_interface="${options.denyInterface}"/>`
  writeFileSync(
    join(dir, 'bus.conf'),
    `<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>session</type>
  <listen>unix:path=${socket}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_destination="*"/>
    <allow receive_sender="*"/>
    ${deny}
  </policy>
</busconfig>
`,
  )
  const daemon = spawn('dbus-daemon', [`--config-file=${join(dir, 'bus.conf')}`, '--nofork', '--nopidfile', '--print-address=1'], {
    // stderr is kept for the failure message only: dbus-daemon warns about fd limits when not root.
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  daemon.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const address = await new Promise<string>((resolve, reject) => {
    const lines = createInterface({ input: daemon.stdout as NodeJS.ReadableStream })
    lines.once('line', (line) => resolve(line.trim()))
    daemon.once('exit', (code) => reject(new Error(`dbus-daemon exited with ${code} before printing its address: ${stderr}`)))
    daemon.once('error', reject)
  })
  return {
    address,
    async stop() {
      if (daemon.exitCode === null) {
        const exited = new Promise((resolve) => daemon.once('exit', resolve))
        daemon.kill('SIGTERM')
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** One line the fake bluetoothd printed. */
export interface FakeBluezEvent {
  ack?: number
  error?: string
  call?: string
  path?: string
  sender?: string
  body?: string
  ready?: boolean
  fatal?: string
  state?: { name: string; powered: boolean; discovering: number; filter: string; monitors: string[] }[]
}

/** Controls one fake bluetoothd process. */
export class FakeBluez {
  readonly events: FakeBluezEvent[] = []
  private nextId = 1
  private constructor(private readonly child: ChildProcess) {
    createInterface({ input: child.stdout as NodeJS.ReadableStream }).on('line', (line) => {
      this.events.push(JSON.parse(line) as FakeBluezEvent)
    })
  }

  /** Spawns the fake and waits until it owns org.bluez (an `impostor` connects without owning it). */
  static async start(address: string, impostor = false): Promise<FakeBluez> {
    const child = spawn(process.execPath, [FAKE_BLUEZ, address, ...(impostor ? ['impostor'] : [])], { stdio: ['pipe', 'pipe', 'inherit'] })
    const fake = new FakeBluez(child)
    await waitFor(() => fake.events.some((e) => e.ready === true || e.fatal !== undefined), 'the fake bluetoothd to own org.bluez')
    const fatal = fake.events.find((e) => e.fatal !== undefined)
    if (fatal !== undefined) throw new Error(`fake bluetoothd: ${fatal.fatal}`)
    return fake
  }

  /** Sends a command and waits for its acknowledgement (the signals it emits are on the bus by then). */
  async send(command: Record<string, unknown>): Promise<void> {
    const id = this.nextId++
    this.child.stdin?.write(`${JSON.stringify({ ...command, id })}\n`)
    await waitFor(() => this.events.some((e) => e.ack === id), `the fake bluetoothd to run ${String(command.op)}`)
    const ack = this.events.find((e) => e.ack === id)
    if (ack?.error !== undefined) throw new Error(`fake bluetoothd ${String(command.op)}: ${ack.error}`)
  }

  /** The adapters as the fake sees them now (powered, discovery sessions, registered monitors). */
  async state(): Promise<NonNullable<FakeBluezEvent['state']>> {
    const before = this.events.length
    await this.send({ op: 'state' })
    const event = this.events.slice(before).find((e) => e.state !== undefined)
    return event?.state ?? []
  }

  /**
   * Method calls logged so far, in order. The log travels over the fake's stdout, which can lag
   * behind its D-Bus replies: for polling in waitFor only; assertions use `calls()`.
   */
  seen(member?: string): FakeBluezEvent[] {
    return this.events.filter((e) => e.call !== undefined && (member === undefined || e.call === member))
  }

  /**
   * Method calls received, in order, complete up to now: the fake logs each call before it
   * replies, and answers a later command after that, so once that command is acknowledged
   * every earlier log line has arrived.
   */
  async calls(member?: string): Promise<FakeBluezEvent[]> {
    await this.send({ op: 'sync' })
    return this.seen(member)
  }

  /** Kills the process the way a crashing bluetoothd goes (SIGKILL): the bus drops its name. */
  async kill(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return
    const exited = new Promise((resolve) => this.child.once('exit', resolve))
    this.child.kill('SIGKILL')
    await exited
  }
}
