import { describe, it, expect, afterEach } from 'vitest'
import { mkdtempSync, rmSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startEmulator } from '../../src/emulator/emulator.js'
import type { Emulator } from '../../src/emulator/emulator.js'
import { InvalidOptionError } from '../../src/errors.js'

const running: Emulator[] = []
const dirs: string[] = []
async function start(options: Parameters<typeof startEmulator>[0] = {}): Promise<Emulator> {
  const e = await startEmulator(options)
  running.push(e)
  return e
}
afterEach(async () => {
  for (const e of running.splice(0)) await e.close()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const auth = (email: string, password: string): string => `Basic ${Buffer.from(`${email}:${password}`).toString('base64')}`
const DEMO = auth('demo@example.com', 'demo-password')

async function call(emu: Emulator, method: string, path: string, body?: string, authorization = DEMO): Promise<{ status: number; json: unknown }> {
  const res = await fetch(`${emu.url}${path}`, { method, body, headers: { authorization, 'content-type': 'application/json' } })
  const text = await res.text()
  return { status: res.status, json: text === '' ? undefined : JSON.parse(text) }
}

const rec = (msgId: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
  msgId,
  beaconMac: '0117C5456A36',
  updatedTime: 1_800_000_000_000,
  sensor: { temperature: 20 },
  ...extra,
})

describe('startEmulator', () => {
  it('listens on loopback with a default account and answers the documented shapes', async () => {
    const emu = await start()
    expect(emu.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    const session = await call(emu, 'POST', '/sessions', JSON.stringify({ email: 'demo@example.com', password: 'demo-password' }), '')
    expect(session.status).toBe(200)
    expect(session.json).toMatchObject({ user: { email: 'demo@example.com' } })
    const list = await call(emu, 'GET', '/users/me/beacons')
    expect(list.status).toBe(200)
    expect(Array.isArray(list.json)).toBe(true)
  })

  it('generates the same data from the same seed and different data from another', async () => {
    const a = await start({ seed: 42 })
    const b = await start({ seed: 42 })
    const c = await start({ seed: 43 })
    expect(a.store.catalogue).toEqual(b.store.catalogue)
    expect(a.store.catalogue).not.toEqual(c.store.catalogue)
    expect((await call(a, 'GET', '/maps/demo')).json).toEqual((await call(b, 'GET', '/maps/demo')).json)
  })

  it('keeps accounts apart and requires basic credentials', async () => {
    const emu = await start({ accounts: [{ email: 'a@x.io', password: 'pa' }, { email: 'b@x.io', password: 'pb' }] })
    const A = auth('a@x.io', 'pa')
    const B = auth('b@x.io', 'pb')
    const la = (await call(emu, 'GET', '/users/me/beacons', undefined, A)).json as { mac: string }[]
    const lb = (await call(emu, 'GET', '/users/me/beacons', undefined, B)).json as { mac: string }[]
    expect(la.map((x) => x.mac)).not.toEqual(lb.map((x) => x.mac))
    expect((await call(emu, 'POST', '/users/me/beacons/logs', JSON.stringify({ logs: [rec('same')] }), A)).json).toEqual({ received: 1, stored: 1, duplicates: 0 })
    // The same msgId from another account is another record.
    expect((await call(emu, 'POST', '/users/me/beacons/logs', JSON.stringify({ logs: [rec('same')] }), B)).json).toEqual({ received: 1, stored: 1, duplicates: 0 })
    expect(emu.store.uploads('a@x.io')).toHaveLength(1)
    const none = await call(emu, 'GET', '/users/me/beacons', undefined, '')
    expect(none.status).toBe(401)
    expect((await call(emu, 'GET', '/users/me/beacons', undefined, auth('a@x.io', 'pb'))).status).toBe(401)
    expect((await call(emu, 'GET', '/maps/demo', undefined, 'Basic !!!')).status).toBe(401)
  })

  it('rejects a malformed upload naming the record and field, storing nothing of it', async () => {
    const emu = await start()
    const bad = await call(emu, 'POST', '/users/me/beacons/logs', JSON.stringify({ logs: [rec('ok-1'), rec('bad', { sensor: { light: 'bright' } })] }))
    expect(bad.status).toBe(400)
    expect((bad.json as { message: string }).message).toBe('logs[1].sensor.light must be a finite number')
    expect(emu.store.uploads()).toHaveLength(0)
    expect((await call(emu, 'POST', '/users/me/beacons/logs', JSON.stringify({ logs: [rec('')] }))).status).toBe(400)
    expect((await call(emu, 'POST', '/users/me/beacons/logs', JSON.stringify({ logs: [] }))).status).toBe(400)
    expect((await call(emu, 'POST', '/users/me/beacons/logs', '{not json')).status).toBe(400)
  })

  it('validates queries and reports unknown routes and methods', async () => {
    const emu = await start()
    expect((await call(emu, 'GET', '/users/me/beacons/logs?count=0')).status).toBe(400)
    expect((await call(emu, 'GET', '/users/me/beacons/logs?count=1001')).status).toBe(400)
    expect((await call(emu, 'GET', '/users/me/beacons/logs?type=5')).status).toBe(400)
    expect((await call(emu, 'GET', '/users/me/beacons/logs?timestamp=yesterday')).status).toBe(400)
    expect((await call(emu, 'GET', '/users/me/beacons/logs?timestamp=2026-01-01T00:05:00Z&type=0')).status).toBe(200)
    expect((await call(emu, 'GET', '/nothing/here')).status).toBe(404)
    expect((await call(emu, 'PATCH', '/users/me/beacons')).status).toBe(405)
    expect((await call(emu, 'PUT', '/users/me/beacons/0117C5456A36', JSON.stringify({ tags: 'x' }))).status).toBe(400)
  })

  it('answers a malformed %-escape in the path or query with 400 and a JSON error, not 500', async () => {
    const emu = await start()
    for (const [method, path] of [
      ['GET', '/maps/%zz'],
      ['GET', '/maps/%'],
      ['DELETE', '/users/me/beacons/%E0%A4%A'],
      ['PUT', '/users/me/beacons/0117C5%4'],
      ['GET', '/users/me/beacons/logs?mac=%zz'],
      ['GET', '/users/me/beacons/logs?mac=0117C5456A36%'],
    ]) {
      const r = await call(emu, method, path, method === 'PUT' ? '{"tags":[]}' : undefined)
      expect([method, path, r.status]).toEqual([method, path, 400])
      expect(r.json).toMatchObject({ code: expect.any(String), message: expect.any(String) })
    }
    // A well-formed escape still works.
    expect((await call(emu, 'GET', '/maps/%64emo')).status).toBe(200)
  })

  it('refuses a body over maxBodyBytes with 413', async () => {
    const emu = await start({ maxBodyBytes: 1000 })
    const big = JSON.stringify({ logs: Array.from({ length: 50 }, (_, i) => rec(`m${i}`)) })
    expect((await call(emu, 'POST', '/users/me/beacons/logs', big)).status).toBe(413)
  })

  it('updates the account beacon from uploads of its serial number', async () => {
    const emu = await start()
    const mine = emu.store.beacons('demo@example.com')[0]
    await call(emu, 'POST', '/users/me/beacons/logs', JSON.stringify({ logs: [rec('u1', { beaconMac: mine.mac, updatedTime: 1_900_000_000_000, sensor: { light: 123 }, location: { lat: 1, lon: 2 } })] }))
    const after = emu.store.beacons('demo@example.com')[0]
    expect(after.updatedTime).toBe(1_900_000_000_000)
    expect(after.sensor?.light).toBe(123)
    expect(after.lonlat).toEqual([2, 1])
  })

  it('persists uploads and beacons to a JSON file and loads them again', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'beaconkit-emu-'))
    dirs.push(dir)
    const persistPath = join(dir, 'state.json')
    const emu = await startEmulator({ persistPath })
    await call(emu, 'POST', '/users/me/beacons/logs', JSON.stringify({ logs: [rec('p1'), rec('p2')] }))
    const device = emu.store.catalogue[20]
    await call(emu, 'POST', '/users/me/beacons', JSON.stringify({ mac: device.mac, token: device.token }))
    await emu.close()
    const saved = JSON.parse(readFileSync(persistPath, 'utf8')) as { format: string }
    expect(saved.format).toBe('beaconkit-emulator')
    expect(JSON.stringify(saved)).not.toContain('demo-password')

    const again = await start({ persistPath })
    expect(again.store.uploads().map((r) => r.msgId)).toEqual(['p1', 'p2'])
    expect(again.store.beacons('demo@example.com').map((b) => b.mac)).toContain(device.mac)
    // De-duplication survives the restart.
    const dup = await call(again, 'POST', '/users/me/beacons/logs', JSON.stringify({ logs: [rec('p1')] }))
    expect(dup.json).toEqual({ received: 1, stored: 0, duplicates: 1 })
  })

  it('keeps account passwords out of inspect and JSON output of the emulator', async () => {
    const emu = await start({ accounts: [{ email: 'a@x.io', password: 'hunter2-very-secret' }] })
    const { inspect } = await import('node:util')
    expect(inspect(emu, { depth: 10, showHidden: true })).not.toContain('hunter2-very-secret')
    expect(inspect(emu.store, { depth: 10 })).not.toContain('hunter2-very-secret')
  })

  it('rejects bad options with a typed error', async () => {
    await expect(startEmulator({ port: -1 })).rejects.toBeInstanceOf(InvalidOptionError)
    await expect(startEmulator({ seed: 1.5 })).rejects.toBeInstanceOf(InvalidOptionError)
    await expect(startEmulator({ accounts: [{ email: '', password: 'x' }] })).rejects.toBeInstanceOf(InvalidOptionError)
    await expect(startEmulator({ faults: { failureRate: 2 } })).rejects.toBeInstanceOf(InvalidOptionError)
    const emu = await start()
    expect(() => emu.setFaults({ resetRate: -0.1 })).toThrow(InvalidOptionError)
  })
})
