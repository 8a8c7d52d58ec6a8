import { describe, it, expect } from 'vitest'
import type { Advertisement } from '../../src/advertisement.js'
import { VirtualClock } from '../../src/clock.js'
import { AdapterError, BluetoothUnavailableError, InvalidOptionError } from '../../src/errors.js'
import { CombinedSource, combineSources } from '../../src/sources/combined.js'
import type { AdapterWarning } from '../../src/sources/combined.js'
import { ReplaySource } from '../../src/sources/replay.js'
import { SimulatedSource } from '../../src/sources/simulated.js'
import type { AdapterState } from '../../src/sources/source.js'
import { PushSource } from '../support/push-source.js'
import { advertisementSourceContract } from './source-contract.js'
import { T0, UUID, ibeaconLine } from './helpers.js'

const beacon = (address: string, minor: number) => ({ address, ibeacon: { proximityUUID: UUID, major: 1, minor, measuredPower: -59 }, intervalMs: 100, distance: 2 })

/** Two simulated adapters in virtual time: the first drives the clock, the second is paced by it. */
function twoSimulated(durationMs?: number): { source: CombinedSource; clock: VirtualClock } {
  const first = new SimulatedSource({ devices: [beacon('aa:00:00:00:00:01', 1)], seed: 1, virtual: true, startTime: T0, ...(durationMs === undefined ? {} : { durationMs }) })
  const clock = first.clock as VirtualClock
  const second = new SimulatedSource({ devices: [beacon('aa:00:00:00:00:02', 2)], seed: 2, clock, ...(durationMs === undefined ? {} : { durationMs }) })
  return { source: new CombinedSource([{ source: first, adapter: 'hci0' }, { source: second, adapter: 'hci1' }]), clock }
}

advertisementSourceContract('CombinedSource (two simulated adapters, virtual time)', () => ({ source: twoSimulated().source }), 10)

interface Collected {
  advs: Advertisement[]
  states: AdapterState[]
  errors: Error[]
  warnings: AdapterWarning[]
  ends: number
}

function collect(source: CombinedSource): Collected {
  const c: Collected = { advs: [], states: [], errors: [], warnings: [], ends: 0 }
  source.on('advertisement', (a) => c.advs.push(a))
  source.on('state', (s) => c.states.push(s))
  source.on('error', (e) => c.errors.push(e))
  source.on('warning', (w) => c.warnings.push(w))
  source.on('end', () => c.ends++)
  return c
}

const adv = (address: string, rssi: number, extra: Partial<Advertisement> = {}): Advertisement => ({ address, rssi, timestamp: T0, ...extra })

describe('CombinedSource', () => {
  it('interleaves two adapters in virtual time, each advertisement tagged with its adapter', async () => {
    const { source, clock } = twoSimulated(2000)
    const c = collect(source)
    const ended = new Promise<void>((resolve) => source.once('end', resolve))
    await source.start()
    await ended
    expect(source.clock).toBe(clock)
    const byAdapter = (name: string) => c.advs.filter((a) => a.adapter === name)
    // ~20 packets each in 2 s at 100 ms, a tenth lost.
    expect(byAdapter('hci0').length).toBeGreaterThan(10)
    expect(byAdapter('hci1').length).toBeGreaterThan(10)
    expect(new Set(byAdapter('hci0').map((a) => a.address))).toEqual(new Set(['aa:00:00:00:00:01']))
    expect(new Set(byAdapter('hci1').map((a) => a.address))).toEqual(new Set(['aa:00:00:00:00:02']))
    for (let i = 1; i < c.advs.length; i++) expect(c.advs[i].timestamp).toBeGreaterThanOrEqual(c.advs[i - 1].timestamp)
    expect(c.ends).toBe(1)
    await source.stop()
  })

  it('names adapters as given, else by the source’s own adapter, else source<n>; keeps a name an advertisement already has', async () => {
    const a = new PushSource()
    const b = new PushSource(undefined, { adapter: 'hci7' })
    const d = new PushSource()
    const source = combineSources([{ source: a, adapter: 'left' }, b, d])
    expect(source.adapters).toEqual(['left', 'hci7', 'source3'])
    const c = collect(source)
    await source.start()
    const original = adv('aa:00:00:00:00:01', -60)
    a.emit('advertisement', original)
    b.emit('advertisement', adv('aa:00:00:00:00:02', -61))
    d.emit('advertisement', adv('aa:00:00:00:00:03', -62))
    d.emit('advertisement', adv('aa:00:00:00:00:04', -63, { adapter: 'hci9' }))
    expect(c.advs.map((x) => x.adapter)).toEqual(['left', 'hci7', 'source3', 'hci9'])
    // The source's own object is not changed (its other listeners may hold it).
    expect(original.adapter).toBeUndefined()
    expect(c.advs[0]).toEqual({ ...original, adapter: 'left' })
    await source.stop()
  })

  it('refuses no sources, repeated names and different clocks', () => {
    expect(() => new CombinedSource([])).toThrow(InvalidOptionError)
    expect(() => new CombinedSource([new PushSource(undefined, { adapter: 'hci0' }), new PushSource(undefined, { adapter: 'hci0' })])).toThrow(/two sources are named "hci0"/)
    expect(() => new CombinedSource([new PushSource(new VirtualClock(0)), new PushSource(new VirtualClock(0))])).toThrow(/different clocks/)
    expect(() => new CombinedSource([{ source: {} as PushSource, adapter: 'x' }])).toThrow(/not an AdvertisementSource/)
  })

  it('starts when one adapter fails to start, reporting that one as an error naming it', async () => {
    const cause = new BluetoothUnavailableError('no_adapter', 'No Bluetooth adapter hci1.')
    const good = new PushSource(undefined, { adapter: 'hci0' })
    const bad = new PushSource(undefined, { adapter: 'hci1', startError: cause })
    const source = new CombinedSource([good, bad])
    const c = collect(source)
    await expect(source.start()).resolves.toBeUndefined()
    expect(c.errors).toHaveLength(1)
    const error = c.errors[0] as AdapterError
    expect(error).toBeInstanceOf(AdapterError)
    expect(error.code).toBe('adapter_failed')
    expect(error.adapter).toBe('hci1')
    expect(error.cause).toBe(cause)
    expect(error.message).toMatch(/hci1 could not start and is left out, tried again in 30 s; scanning goes on with hci0/)
    expect(source.status()).toEqual([
      { adapter: 'hci0', status: 'running' },
      { adapter: 'hci1', status: 'failed' },
    ])
    // The failed one is no longer listened to; the good one goes on.
    bad.emit('advertisement', adv('aa:00:00:00:00:09', -60))
    good.emit('advertisement', adv('aa:00:00:00:00:01', -60))
    expect(c.advs.map((a) => a.adapter)).toEqual(['hci0'])
    await source.stop()
    expect(good.stops).toBe(1)
  })

  it('tries a failed adapter again, waiting twice as long after each failure, and says when it joins', async () => {
    const clock = new VirtualClock(T0)
    const good = new PushSource(clock, { adapter: 'hci0' })
    const late = new PushSource(clock, { adapter: 'hci1', startError: new Error('No adapter hci1.') })
    const source = new CombinedSource([good, late], { retryStartMs: 1000 })
    const c = collect(source)
    await source.start()
    expect(c.errors.map((e) => e.message)).toEqual(['hci1 could not start and is left out, tried again in 1 s; scanning goes on with hci0: No adapter hci1.'])
    const settle = async (): Promise<void> => {
      for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r))
    }
    clock.advanceBy(999)
    expect(late.starts).toBe(1)
    clock.advanceBy(1)
    await settle()
    expect(late.starts).toBe(2)
    // Failed again: the next attempt 2 s later, quietly.
    clock.advanceBy(1999)
    await settle()
    expect(late.starts).toBe(2)
    late.options.startError = undefined
    clock.advanceBy(1)
    await settle()
    expect(late.starts).toBe(3)
    expect(c.errors).toHaveLength(1)
    expect(c.warnings).toEqual([{ code: 'adapter_started', message: 'hci1 started on a later attempt and scans too', adapter: 'hci1' }])
    expect(source.status().map((s) => s.status)).toEqual(['running', 'running'])
    late.emit('advertisement', adv('aa:00:00:00:00:02', -60))
    expect(c.advs.map((a) => a.adapter)).toEqual(['hci1'])
    await source.stop()
    expect(late.stops).toBe(1)
  })

  it('stops trying once stopped, and never with retryStartMs 0', async () => {
    const clock = new VirtualClock(T0)
    const late = new PushSource(clock, { adapter: 'hci1', startError: new Error('no') })
    const source = new CombinedSource([new PushSource(clock, { adapter: 'hci0' }), late], { retryStartMs: 1000 })
    await source.start()
    await source.stop()
    clock.advanceBy(60_000)
    expect(late.starts).toBe(1)
    const never = new CombinedSource([new PushSource(clock, { adapter: 'hci0' }), late], { retryStartMs: 0 })
    const c = collect(never)
    await never.start()
    clock.advanceBy(3_600_000)
    expect(late.starts).toBe(2)
    expect(c.errors[0].message).toMatch(/^hci1 could not start and is left out; scanning goes on with hci0/)
    await never.stop()
    expect(() => new CombinedSource([late], { retryStartMs: -1 })).toThrow(/retryStartMs must be/)
  })

  it('rejects with no_adapter_started, listing every failure, when none starts', async () => {
    const e0 = new BluetoothUnavailableError('permission_denied', 'No permission for hci0.')
    const e1 = new BluetoothUnavailableError('no_adapter', 'No adapter hci1.')
    const a = new PushSource(undefined, { adapter: 'hci0', startError: e0 })
    const b = new PushSource(undefined, { adapter: 'hci1', startError: e1 })
    const source = new CombinedSource([a, b])
    const c = collect(source)
    const error = await source.start().then(
      () => undefined,
      (e: unknown) => e,
    )
    expect(error).toBeInstanceOf(AdapterError)
    const typed = error as AdapterError
    expect(typed.code).toBe('no_adapter_started')
    expect(typed.failures).toEqual([
      { adapter: 'hci0', error: e0 },
      { adapter: 'hci1', error: e1 },
    ])
    expect(typed.message).toMatch(/hci0: No permission for hci0\.; hci1: No adapter hci1\./)
    // One reason shared by every adapter is said once.
    const same = new Error('no Bluetooth here')
    const one = new CombinedSource([new PushSource(undefined, { startError: same }), new PushSource(undefined, { startError: same })])
    await expect(one.start()).rejects.toThrow(/^No adapter could start \(source1, source2\): no Bluetooth here$/)
    expect(c.errors).toEqual([])
    a.emit('advertisement', adv('aa:00:00:00:00:01', -60))
    expect(c.advs).toEqual([])
    // It may be started again once an adapter is fixed.
    a.options.startError = undefined
    await source.start()
    expect(source.status().map((s) => s.status)).toEqual(['running', 'failed'])
    await source.stop()
  })

  it('keeps poweredOn while any adapter is on; one failing mid-run is a warning and an error naming it', async () => {
    const a = new PushSource(undefined, { adapter: 'hci0' })
    const b = new PushSource(undefined, { adapter: 'hci1' })
    const source = new CombinedSource([a, b])
    const c = collect(source)
    await source.start()
    a.emit('state', 'poweredOn')
    b.emit('state', 'poweredOn')
    expect(c.states).toEqual(['poweredOn'])
    const cause = new Error('ENETDOWN, Network is down')
    b.emit('error', cause)
    b.emit('state', 'poweredOff')
    expect(c.states).toEqual(['poweredOn'])
    expect(c.errors).toHaveLength(1)
    expect(c.errors[0]).toBeInstanceOf(AdapterError)
    expect((c.errors[0] as AdapterError).adapter).toBe('hci1')
    expect((c.errors[0] as AdapterError).cause).toBe(cause)
    expect(c.errors[0].message).toBe('hci1: ENETDOWN, Network is down')
    expect(c.warnings).toEqual([{ code: 'adapter_state', message: 'hci1 is poweredOff; scanning goes on with hci0', adapter: 'hci1' }])
    // The other adapter still delivers.
    a.emit('advertisement', adv('aa:00:00:00:00:01', -60))
    expect(c.advs.map((x) => x.adapter)).toEqual(['hci0'])
    // Both off: the combined state follows; one back on: poweredOn again.
    a.emit('state', 'poweredOff')
    expect(c.states).toEqual(['poweredOn', 'poweredOff'])
    b.emit('state', 'poweredOn')
    expect(c.states).toEqual(['poweredOn', 'poweredOff', 'poweredOn'])
    await source.stop()
  })

  it('passes warnings on with the adapter named, plain and structured', async () => {
    const a = new PushSource(undefined, { adapter: 'hci0' })
    const source = new CombinedSource([a])
    const c = collect(source)
    await source.start()
    a.emit('warning', 'scan restarted')
    a.emit('warning', { code: 'malformed_line', message: 'line 3: not valid JSON', line: 3 } as unknown as string)
    expect(c.warnings).toEqual([
      { code: 'source_warning', message: 'hci0: scan restarted', adapter: 'hci0' },
      { code: 'malformed_line', message: 'hci0: line 3: not valid JSON', line: 3, adapter: 'hci0' },
    ])
    await source.stop()
  })

  it('ends once every finite source has ended, a failed one counting as ended', async () => {
    const lines = [ibeaconLine(0, 'aa:00:00:00:00:01', 1, 1), ibeaconLine(500, 'aa:00:00:00:00:01', 1, 1)]
    const replay = new ReplaySource(lines, { speed: 100 })
    const failing = new PushSource(undefined, { startError: new Error('gone') })
    const source = new CombinedSource([{ source: replay, adapter: 'file' }, { source: failing, adapter: 'dongle' }])
    const c = collect(source)
    const ended = new Promise<void>((resolve) => source.once('end', resolve))
    await source.start()
    await ended
    expect(c.advs.map((a) => a.adapter)).toEqual(['file', 'file'])
    expect(c.ends).toBe(1)
    await source.stop()
  })

  it('stop() while starting stops every source and emits nothing afterwards', async () => {
    let release: () => void = () => {}
    const slow = new PushSource(undefined, { adapter: 'slow' })
    slow.start = () => new Promise<void>((resolve) => (release = resolve))
    const quick = new PushSource(undefined, { adapter: 'quick' })
    const source = new CombinedSource([slow, quick])
    const c = collect(source)
    const starting = source.start()
    await source.stop()
    release()
    await starting
    quick.emit('advertisement', adv('aa:00:00:00:00:01', -60))
    quick.emit('state', 'poweredOn')
    expect(c.advs).toEqual([])
    expect(c.states).toEqual([])
    expect(quick.stops).toBe(1)
  })
})
