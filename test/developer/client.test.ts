// Every endpoint of the developer interface (spec 4.2–4.13) through DeveloperClient against the
// emulator over real HTTP on loopback; request rules refused before any traffic.
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { startEmulator } from '../../src/emulator/emulator.js'
import type { Emulator } from '../../src/emulator/emulator.js'
import { ALPHA_MODULE, ALPHA_SENSOR } from '../../src/emulator/dev-emulator-store.js'
import { DeveloperClient } from '../../src/developer/client.js'
import { InvalidOptionError } from '../../src/errors.js'
import type { SensorDevice } from '../../src/developer/types.js'

let emu: Emulator
let client: DeveloperClient

beforeEach(async () => {
  emu = await startEmulator({ developer: { taskDelayMs: 5 } })
  client = new DeveloperClient({ baseUrl: emu.url, appId: 'app-1' })
})
afterEach(async () => {
  await emu.close()
})

const own = (): SensorDevice[] => emu.developer.store.ownDevices()
const ofType = (type: string): SensorDevice => {
  const d = own().find((x) => x.deviceType === type && x.normalStatus === 0)
  if (d === undefined) throw new Error(`no ${type} device`)
  return d
}

describe('DeveloperClient against the emulator', () => {
  it('setInterval (4.2): tasks for supporting devices, unexistSns and unsupportSns; the interval changes once the task completes', async () => {
    const co = ofType('co')
    const module = ofType(ALPHA_MODULE)
    const result = await client.setInterval([co.sn, module.sn, 'NOSUCHDEVICE'], 300)
    expect(result.scheduleNo).toMatch(/^S\d+$/)
    expect(result.ok).toEqual([{ sn: co.sn, taskId: expect.any(Number) as number }])
    expect(result.unsupportSns).toEqual([module.sn])
    expect(result.unexistSns).toEqual(['NOSUCHDEVICE'])
    await emu.developer.idle()
    expect((await client.getDevice(co.sn)).interval).toBe('300')
    expect(emu.developer.store.tasks.get(result.ok[0].taskId)?.resultCode).toBe(0)
  })

  it('setThresholds (4.3): only devices of that type; alpha modules and sensors are unsupported', async () => {
    const pm = ofType('pm')
    const co = ofType('co')
    const alpha = ofType(ALPHA_SENSOR)
    const result = await client.setThresholds([pm.sn, co.sn, alpha.sn], 'pm', { pm2_5AlarmHigh: 75, pm10AlarmHigh: 150, pm1AlarmHigh: 40.5 })
    expect(result.ok.map((t) => t.sn)).toEqual([pm.sn])
    expect(result.unsupportSns).toEqual([co.sn, alpha.sn])
    const th = await client.setThresholds([ofType('temp_humi').sn], 'temp_humi', { tempAlarmHigh: 30.5, tempAlarmLow: -5 })
    expect(th.ok).toHaveLength(1)
  })

  it('sendRawData (4.4): alpha transmission modules only', async () => {
    const module = ofType(ALPHA_MODULE)
    const co = ofType('co')
    const result = await client.sendRawData([module.sn, co.sn], '0a1B')
    expect(result.ok.map((t) => t.sn)).toEqual([module.sn])
    expect(result.unsupportSns).toEqual([co.sn])
    expect(emu.developer.store.tasks.get(result.ok[0].taskId)?.payload).toBe('0a1B')
  })

  it('sendParserData (4.5): any device; the answer has no unsupportSns', async () => {
    const sns = [ofType('node').sn, ofType(ALPHA_MODULE).sn]
    const result = await client.sendParserData('tracker', [...sns, 'GONE'], { command: 'alarm', emergencyTime: 30 })
    expect(result.ok.map((t) => t.sn)).toEqual(sns)
    expect(result.unexistSns).toEqual(['GONE'])
    expect(result).not.toHaveProperty('unsupportSns')
  })

  it('getDevice (4.6) and listDevices (4.7) with page_info', async () => {
    const first = own()[0]
    expect(await client.getDevice(first.sn)).toEqual(first)
    const page = await client.listDevices({ page: 2, count: 7 })
    expect(page.items).toEqual(own().slice(7, 14))
    expect(page.page_info).toEqual({ current_page: 2, count: Math.ceil(own().length / 7), items_count: own().length })
    expect((await client.listDevices()).items).toHaveLength(20)
  })

  it('getStation (4.8) and listStations (4.9)', async () => {
    const stations = [...emu.developer.store.stations.values()]
    expect(await client.getStation(stations[1].sn)).toEqual(stations[1])
    const page = await client.listStations({ count: 2 })
    expect(page.items).toEqual(stations.slice(0, 2))
    expect(page.page_info).toEqual({ current_page: 1, count: 3, items_count: 5 })
  })

  it('deviceHistory (4.10): newest first by default, asc on request, a time window, pages', async () => {
    const sn = own()[0].sn
    const all = emu.developer.store.history(sn)
    const desc = await client.deviceHistory(sn)
    expect(desc).toHaveLength(100)
    expect(desc[0]).toEqual(all[all.length - 1])
    const asc = await client.deviceHistory(sn, { order: 'asc', count: 3, page: 2 })
    expect(asc).toEqual(all.slice(3, 6))
    const window = await client.deviceHistory(sn, { startTime: all[10].createdTime, endTime: all[12].createdTime, order: 'asc' })
    expect(window.map((r) => r.msgId)).toEqual(all.slice(10, 13).map((r) => r.msgId))
  })

  it('linkDevices (4.11) and unlinkDevices (4.12) sort serials into ok / thisOwner / otherOwner / notFound', async () => {
    const store = emu.developer.store
    const free = [...store.devices.keys()].filter((sn) => !store.owners.has(sn))
    const others = [...store.devices.keys()].filter((sn) => store.owners.get(sn) === 'another-merchant')
    const mine = own()[0].sn
    const linked = await client.linkDevices([free[0], mine, others[0], 'UNKNOWN'])
    expect(linked).toEqual({ ok: [free[0]], thisOwner: [mine], otherOwner: [others[0]], notFound: ['UNKNOWN'] })
    expect((await client.getDevice(free[0])).sn).toBe(free[0])
    const unlinked = await client.unlinkDevices([free[0], others[0]])
    expect(unlinked).toEqual({ ok: [free[0]], notFound: [others[0]] })
    await expect(client.getDevice(free[0])).rejects.toMatchObject({ code: 'device_not_found', errCode: 5010107 })
  })

  it('updateInfo (4.13) for devices and stations', async () => {
    const sn = own()[0].sn
    const station = [...emu.developer.store.stations.keys()][0]
    expect(await client.updateInfo('device', [{ sn, name: 'Boiler room', tags: ['b1'] }, { sn: 'NOPE' }])).toEqual({ ok: [sn], notFound: ['NOPE'] })
    expect(await client.getDevice(sn)).toMatchObject({ name: 'Boiler room', tags: ['b1'] })
    expect(await client.updateInfo('station', [{ sn: station, lonlat: [2.35, 48.85] }])).toEqual({ ok: [station], notFound: [] })
    expect((await client.getStation(station)).lonlat).toEqual([2.35, 48.85])
  })

  it('iterates every device, station and history record page after page, following page_info', async () => {
    const devices: string[] = []
    for await (const d of client.devices({ count: 7 })) devices.push(d.sn)
    expect(devices).toEqual(own().map((d) => d.sn))
    const stations: string[] = []
    for await (const s of client.stations({ count: 2 })) stations.push(s.sn)
    expect(stations).toHaveLength(5)
    const sn = own()[0].sn
    const records: string[] = []
    for await (const r of client.history(sn, { count: 40, order: 'asc' })) records.push(r.msgId)
    expect(records).toEqual(emu.developer.store.history(sn).map((r) => r.msgId))
  })
})

describe('request rules (checked before anything is sent)', () => {
  const cases: [string, (c: DeveloperClient) => Promise<unknown>, string][] = [
    ['empty sns', (c) => c.setInterval([], 120), 'sns'],
    ['a non-string serial', (c) => c.setInterval(['A', 5 as unknown as string], 120), 'sns[1]'],
    ['interval of 60', (c) => c.setInterval(['A'], 60), 'interval'],
    ['fractional interval', (c) => c.setInterval(['A'], 90.5), 'interval'],
    ['unknown device type', (c) => c.setThresholds(['A'], 'node', { coAlarmHigh: 1 }), 'deviceType'],
    ['no threshold', (c) => c.setThresholds(['A'], 'co', {}), 'cfg'],
    ['a threshold of another type', (c) => c.setThresholds(['A'], 'co', { co2AlarmHigh: 5 }), 'cfg.co2AlarmHigh'],
    ['a gas threshold that is not a positive integer', (c) => c.setThresholds(['A'], 'co2', { co2AlarmHigh: 1.5 }), 'cfg.co2AlarmHigh'],
    ['a particle threshold of 0', (c) => c.setThresholds(['A'], 'pm', { pm10AlarmHigh: 0 }), 'cfg.pm10AlarmHigh'],
    ['a temperature threshold that is not a number', (c) => c.setThresholds(['A'], 'temp_humi', { tempAlarmHigh: '30' as unknown as number }), 'cfg.tempAlarmHigh'],
    ['data that is not hex', (c) => c.sendRawData(['A'], '0xZZ'), 'data'],
    ['a parser name with a slash', (c) => c.sendParserData('../x', ['A'], {}), 'dataPacker'],
    ['parser data that is not an object', (c) => c.sendParserData('tracker', ['A'], [] as unknown as Record<string, unknown>), 'data'],
    ['count 0', (c) => c.listDevices({ count: 0 }), 'count'],
    ['count 1001', (c) => c.listStations({ count: 1001 }), 'count'],
    ['page 0', (c) => c.listDevices({ page: 0 }), 'page'],
    ['order sideways', (c) => c.deviceHistory('A', { order: 'up' as 'asc' }), 'order'],
    ['startTime after endTime', (c) => c.deviceHistory('A', { startTime: 5, endTime: 4 }), 'startTime'],
    ['history count 1001', (c) => c.deviceHistory('A', { count: 1001 }), 'count'],
    ['empty serial', (c) => c.getDevice(''), 'sn'],
    ['link without sns', (c) => c.linkDevices([]), 'sns'],
    ['unlink without sns', (c) => c.unlinkDevices(undefined as unknown as string[]), 'sns'],
    ['info type', (c) => c.updateInfo('gateway' as 'device', [{ sn: 'A' }]), 'type'],
    ['1001 info updates', (c) => c.updateInfo('device', Array.from({ length: 1001 }, (_, i) => ({ sn: `S${i}` }))), 'data'],
    ['tags not strings', (c) => c.updateInfo('device', [{ sn: 'A', tags: [1] as unknown as string[] }]), 'data[0].tags'],
    ['lonlat out of range', (c) => c.updateInfo('station', [{ sn: 'A', lonlat: [200, 0] }]), 'data[0].lonlat'],
  ]
  for (const [what, call, field] of cases) {
    it(`refuses ${what}, naming ${field}`, async () => {
      const before = emu.requests
      const error = await call(client).then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error).toBeInstanceOf(InvalidOptionError)
      expect(error).toMatchObject({ code: 'invalid_option', option: field })
      expect((error as Error).message).toContain(field)
      expect(emu.requests).toBe(before)
    })
  }
})
