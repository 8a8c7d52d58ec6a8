import { describe, it, expect } from 'vitest'
import { NobleSource } from '../../../src/sources/noble/noble.js'
import { resolveNobleOptions } from '../../../src/sources/noble/options.js'
import { InvalidOptionError } from '../../../src/errors.js'
import { RealClock, VirtualClock } from '../../../src/clock.js'

function optionError(options: unknown): InvalidOptionError {
  try {
    new NobleSource(options as ConstructorParameters<typeof NobleSource>[0])
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOptionError)
    return error as InvalidOptionError
  }
  throw new Error('expected the constructor to throw')
}

describe('NobleSource options', () => {
  it('applies defaults', () => {
    const o = resolveNobleOptions(undefined)
    expect(o).toMatchObject({
      hciDeviceId: undefined,
      watchdogMs: 30_000,
      allowDuplicates: true,
      serviceUuids: [],
      pruneIntervalMs: 60_000,
      startTimeoutMs: 15_000,
      clockGiven: false,
    })
    expect(o.clock).toBeInstanceOf(RealClock)
    expect(new NobleSource().clock).toBeUndefined()
  })

  it('keeps valid values; 0 disables the watchdog and pruning', () => {
    const clock = new VirtualClock()
    const o = resolveNobleOptions({ hciDeviceId: 1, watchdogMs: 0, pruneIntervalMs: 0, allowDuplicates: false, startTimeoutMs: 0, clock })
    expect(o).toMatchObject({ hciDeviceId: 1, watchdogMs: 0, pruneIntervalMs: 0, allowDuplicates: false, startTimeoutMs: 0, clockGiven: true })
    expect(new NobleSource({ clock }).clock).toBe(clock)
  })

  it('normalises service uuids and adds the zero-stripped spelling noble uses for 16-bit service lists', () => {
    const o = resolveNobleOptions({ serviceUuids: ['81E7', '0A0B', '0000FEAA-0000-1000-8000-00805F9B34FB'] })
    expect(o.serviceUuids).toEqual(['81e7', '0a0b', 'a0b', '0000feaa00001000800000805f9b34fb'])
  })

  it.each([
    ['hciDeviceId', { hciDeviceId: -1 }],
    ['hciDeviceId', { hciDeviceId: 1.5 }],
    ['hciDeviceId', { hciDeviceId: 'hci1' }],
    ['watchdogMs', { watchdogMs: 10 }],
    ['watchdogMs', { watchdogMs: Number.NaN }],
    ['watchdogMs', { watchdogMs: '30s' }],
    ['pruneIntervalMs', { pruneIntervalMs: -5 }],
    ['startTimeoutMs', { startTimeoutMs: -1 }],
    ['allowDuplicates', { allowDuplicates: 'yes' }],
    ['serviceUuids', { serviceUuids: '81e7' }],
    ['serviceUuids', { serviceUuids: ['81e'] }],
    ['serviceUuids', { serviceUuids: [42] }],
    ['clock', { clock: { now: () => 0 } }],
  ])('rejects a bad %s with invalid_option naming it', (option, options) => {
    const error = optionError(options)
    expect(error.code).toBe('invalid_option')
    expect(error.option).toBe(option)
    expect(error.message).toContain(option)
  })

  it('rejects options that are not an object', () => {
    expect(optionError(42).code).toBe('invalid_option')
    expect(optionError([]).code).toBe('invalid_option')
  })
})
