import { describe, it, expect } from 'vitest'
import { bluetoothErrorForState, bluetoothErrorFrom } from '../../src/sources/noble-errors.js'
import { BluetoothUnavailableError } from '../../src/errors.js'

const osError = (code: string, message = 'boom'): NodeJS.ErrnoException => Object.assign(new Error(message), { code })

describe('bluetoothErrorFrom', () => {
  it.each([
    ['MODULE_NOT_FOUND', 'not_installed', /npm install @abandonware\/noble/],
    ['ERR_MODULE_NOT_FOUND', 'not_installed', /build-essential/],
    ['EAFNOSUPPORT', 'unsupported', /no Bluetooth support/],
    ['ENODEV', 'no_adapter', /hciDeviceId/],
    ['EPERM', 'permission_denied', /setcap cap_net_raw\+eip/],
    ['EACCES', 'permission_denied', /run as root/],
    ['ERFKILL', 'powered_off', /rfkill unblock bluetooth/],
    ['EIO', 'start_failed', /hciconfig/],
  ])('%s → %s with a fix-it message and the cause kept', (code, expected, advice) => {
    const cause = osError(code)
    const error = bluetoothErrorFrom(cause, 1)
    expect(error).toBeInstanceOf(BluetoothUnavailableError)
    expect(error.code).toBe(expected)
    expect(error.message).toMatch(advice)
    expect(error.message).toContain(code)
    expect(error.cause).toBe(cause)
  })

  it('names the chosen adapter, or hci0 by default', () => {
    expect(bluetoothErrorFrom(osError('ENODEV'), 2).message).toMatch(/hci2/)
    expect(bluetoothErrorFrom(osError('ENODEV')).message).toMatch(/hci0/)
  })

  it('passes a BluetoothUnavailableError through and copes with non-errors', () => {
    const original = new BluetoothUnavailableError('no_adapter', 'x')
    expect(bluetoothErrorFrom(original)).toBe(original)
    expect(bluetoothErrorFrom('weird').code).toBe('start_failed')
    expect(bluetoothErrorFrom(null).code).toBe('start_failed')
  })
})

describe('bluetoothErrorForState', () => {
  it.each([
    ['unauthorized', 'unauthorized', /setcap/],
    ['unsupported', 'unsupported', /Bluetooth 4\.0\+/],
    ['poweredOff', 'powered_off', /hciconfig hci3 up/],
  ])("noble state '%s' → %s", (state, code, advice) => {
    const error = bluetoothErrorForState(state, 3)
    expect(error.code).toBe(code)
    expect(error.message).toMatch(advice)
  })
})
