/**
 * A real Mosquitto for tests: a generated config in a temp dir, a free loopback port, started
 * and waited for (it accepts a connection), stopped and restarted on the same port. Tests that
 * need it use `describe.skipIf(!MOSQUITTO)(needsMosquitto('title'), …)`, so a skip says why.
 */

import { spawn } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { connect, createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

const BINARY = ['/usr/sbin/mosquitto', '/usr/bin/mosquitto', '/usr/local/sbin/mosquitto'].find((p) => existsSync(p))

/** The mosquitto binary, when installed. */
export const MOSQUITTO: string | undefined = BINARY

/** Why Mosquitto tests are skipped. */
export const MOSQUITTO_SKIP = 'mosquitto is not installed (apt-get install -y mosquitto); skipping tests against a real broker'

/** A describe title that says why it is skipped when Mosquitto is missing. */
export function needsMosquitto(title: string): string {
  return MOSQUITTO === undefined ? `${title} [skipped: ${MOSQUITTO_SKIP}]` : title
}

/** A free TCP port on loopback (the OS picks it; closed again before returning). */
export async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  const port = typeof address === 'object' && address !== null ? address.port : 0
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

/** TLS listener settings (PEM file paths). */
export interface MosquittoTls {
  caFile: string
  certFile: string
  keyFile: string
}

/** Options of {@link Mosquitto.start}. */
export interface MosquittoOptions {
  tls?: MosquittoTls
  /** Log every PUBLISH the broker receives (debug level), for {@link Mosquitto.received}. */
  logPublishes?: boolean
  /** Extra config lines. */
  extra?: string[]
}

function tryConnect(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: '127.0.0.1' })
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

/** One Mosquitto process per test file; `restart()` keeps its port. */
export class Mosquitto {
  private child: ChildProcess | undefined
  private log = ''

  private constructor(
    readonly dir: string,
    readonly port: number,
    private readonly conf: string,
  ) {}

  /** The broker's process id while it runs (to SIGSTOP it: a frozen broker). */
  get pid(): number | undefined {
    return this.child?.pid
  }

  /** `mqtt://127.0.0.1:<port>` (or `mqtts://` with TLS). */
  get url(): string {
    return `${this.conf.includes('certfile') ? 'mqtts' : 'mqtt'}://127.0.0.1:${this.port}`
  }

  /** Generates a config and starts the broker. */
  static async start(options: MosquittoOptions = {}): Promise<Mosquitto> {
    if (MOSQUITTO === undefined) throw new Error(MOSQUITTO_SKIP)
    const dir = await mkdtemp(join(tmpdir(), 'beaconkit-mosquitto-'))
    const port = await freePort()
    const lines = [
      `listener ${port} 127.0.0.1`,
      'allow_anonymous true',
      // Retained messages live as long as the process: a restart in a test is a real broker loss.
      'persistence false',
      'log_dest stderr',
      'log_type error',
      'log_type warning',
    ]
    // Started as root (CI), Mosquitto would switch to the user `mosquitto`, who cannot read the
    // test's private temp dir (certificates, password file).
    if (process.getuid?.() === 0) lines.push('user root')
    if (options.logPublishes === true) lines.push('log_type debug')
    if (options.tls !== undefined) lines.push(`cafile ${options.tls.caFile}`, `certfile ${options.tls.certFile}`, `keyfile ${options.tls.keyFile}`)
    lines.push(...(options.extra ?? []))
    const conf = join(dir, 'mosquitto.conf')
    await writeFile(conf, `${lines.join('\n')}\n`)
    const broker = new Mosquitto(dir, port, lines.join('\n'))
    await broker.run(conf)
    return broker
  }

  private async run(conf: string): Promise<void> {
    const child = spawn(MOSQUITTO as string, ['-c', conf], { stdio: ['ignore', 'ignore', 'pipe'] })
    this.child = child
    child.stderr?.on('data', (d: Buffer) => {
      this.log += d.toString()
    })
    let exited = false
    child.once('exit', () => {
      exited = true
    })
    const deadline = Date.now() + 15_000
    while (!(await tryConnect(this.port))) {
      if (exited) throw new Error(`mosquitto exited at start: ${this.log}`)
      if (Date.now() > deadline) throw new Error(`mosquitto did not listen on ${this.port}: ${this.log}`)
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
  }

  /** The PUBLISH packets the broker has logged receiving from `clientId`, in order (needs `logPublishes`). */
  received(clientId: string): { topic: string; qos: number; retain: boolean; bytes: number }[] {
    const out: { topic: string; qos: number; retain: boolean; bytes: number }[] = []
    const re = /Received PUBLISH from (\S+) \(d\d, q(\d), r(\d), m\d+, '([^']*)', \.\.\. \((\d+) bytes\)\)/g
    for (const m of this.log.matchAll(re)) if (m[1] === clientId) out.push({ topic: m[4], qos: Number(m[2]), retain: m[3] === '1', bytes: Number(m[5]) })
    return out
  }

  /**
   * How often the broker closed a client's connection because another connected with the same
   * client id (a session taken over; logged at error level), for `clientId` or for any.
   */
  takeovers(clientId?: string): number {
    let n = 0
    for (const m of this.log.matchAll(/Client (\S+) already connected, closing old connection\./g)) if (clientId === undefined || m[1] === clientId) n++
    return n
  }

  /** Forgets the log so far (e.g. before a restart). */
  clearLog(): void {
    this.log = ''
  }

  /** Stops the broker (SIGTERM) and waits for its exit; its retained messages are gone. */
  async stop(): Promise<void> {
    const child = this.child
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    child.kill('SIGTERM')
    await exited
    this.child = undefined
  }

  /** Starts it again on the same port. */
  async restart(): Promise<void> {
    await this.stop()
    await this.run(join(this.dir, 'mosquitto.conf'))
  }

  /** Stops and removes the temp dir. */
  async close(): Promise<void> {
    await this.stop()
    await rm(this.dir, { recursive: true, force: true })
  }
}
