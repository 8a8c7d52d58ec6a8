// TLS and a password against a real Mosquitto: a CA and a server certificate generated with
// openssl in the test's temp dir, a listener that refuses anonymous clients, a password file.
// The password never shows in errors, events, util.inspect or JSON.stringify of the publisher.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { inspect } from 'node:util'
import { MqttPublisher } from '../../src/mqtt/publisher.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages } from '../support/mqtt-subscriber.js'

const OPENSSL = spawnSync('openssl', ['version']).status === 0
const PASSWD = ['/usr/bin/mosquitto_passwd', '/usr/local/bin/mosquitto_passwd'].find((p) => existsSync(p))
const PASSWORD = 'tls-test-secret-3141'

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' })
}

/** A CA and a certificate for 127.0.0.1 signed by it (EC keys: quick to make). */
function makeCertificates(dir: string): { caFile: string; certFile: string; keyFile: string } {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes']
  openssl(dir, ['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.crt', '-days', '2', '-subj', '/CN=beaconkit test CA'])
  openssl(dir, ['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1'])
  const ext = join(dir, 'san.ext')
  execFileSync('sh', ['-c', `printf 'subjectAltName=IP:127.0.0.1\\n' > '${ext}'`])
  openssl(dir, ['x509', '-req', '-in', 'server.csr', '-CA', 'ca.crt', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.crt', '-days', '2', '-extfile', ext])
  return { caFile: join(dir, 'ca.crt'), certFile: join(dir, 'server.crt'), keyFile: join(dir, 'server.key') }
}

describe.skipIf(!MOSQUITTO || !OPENSSL || PASSWD === undefined)(needsMosquitto('MqttPublisher over TLS with a password (openssl, mosquitto_passwd)'), () => {
  let dir: string
  let broker: Mosquitto
  let certs: { caFile: string; certFile: string; keyFile: string }
  let passwordFile: string

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'beaconkit-tls-'))
    certs = makeCertificates(dir)
    const users = join(dir, 'users')
    execFileSync(PASSWD as string, ['-c', '-b', users, 'gateway', PASSWORD], { stdio: 'pipe' })
    passwordFile = join(dir, 'mqtt-password')
    await writeFile(passwordFile, `${PASSWORD}\n`)
    broker = await Mosquitto.start({ tls: certs, extra: ['allow_anonymous false', `password_file ${users}`] })
  })

  afterAll(async () => {
    await broker?.close()
    if (dir !== undefined) await rm(dir, { recursive: true, force: true })
  })

  it('connects with the CA and the password from a file, and publishes the status', async () => {
    expect(broker.url).toMatch(/^mqtts:/)
    const publisher = new MqttPublisher({ url: broker.url, gatewayId: 'tls', username: 'gateway', passwordFile, tls: { caFile: certs.caFile } })
    const connected = new Promise((resolve) => publisher.once('connected', resolve))
    await publisher.connect()
    await connected
    expect(await publisher.flush()).toBe(true)
    const text = `${inspect(publisher, { depth: 20, showHidden: true })}${JSON.stringify(publisher)}`
    expect(text).not.toContain(PASSWORD)
    await publisher.close()
    const retained = await retainedMessages(broker.url, 'beaconkit/#', { ca: await import('node:fs').then((fs) => fs.readFileSync(certs.caFile)), username: 'gateway', password: PASSWORD })
    expect(JSON.parse(retained.get('beaconkit/gateways/tls/status') as string)).toMatchObject({ state: 'offline' })
  })

  it('refuses a broker whose certificate it cannot verify, and says so without the password', async () => {
    const publisher = new MqttPublisher({ url: broker.url, gatewayId: 'tls', username: 'gateway', passwordFile, reconnect: { initialDelayMs: 100, maxDelayMs: 200 } })
    const error = new Promise<Error>((resolve) => publisher.once('error', resolve))
    await publisher.connect()
    const e = await error
    expect(e.message).toMatch(/certificate/i)
    expect(`${e.message}${inspect(e)}`).not.toContain(PASSWORD)
    expect(publisher.stats.state).toBe('connecting')
    await publisher.close()
  })

  it('reports a wrong password as a connection error that does not contain it', async () => {
    const wrong = join(dir, 'wrong-password')
    await writeFile(wrong, 'not-the-password-2718\n')
    const publisher = new MqttPublisher({ url: broker.url, gatewayId: 'tls', username: 'gateway', passwordFile: wrong, tls: { caFile: certs.caFile }, reconnect: { initialDelayMs: 100, maxDelayMs: 200 } })
    const error = new Promise<Error>((resolve) => publisher.once('error', resolve))
    await publisher.connect()
    const e = await error
    expect(e.message).toMatch(/not authori[sz]ed|bad user name or password/i)
    expect(`${e.message}${inspect(e)}`).not.toContain('not-the-password-2718')
    await publisher.close()
  })

  it('fails fast with a typed error for a missing password or CA file', async () => {
    await expect(new MqttPublisher({ url: broker.url, gatewayId: 'tls', username: 'gateway', passwordFile: join(dir, 'nope') }).connect()).rejects.toMatchObject({ code: 'file_not_found' })
    await expect(new MqttPublisher({ url: broker.url, gatewayId: 'tls', tls: { caFile: join(dir, 'nope.crt') } }).connect()).rejects.toMatchObject({ code: 'file_not_found' })
  })
})
