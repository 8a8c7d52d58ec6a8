import { describe, it, expect } from 'vitest'
import { adapterLostError, bluetoothErrorForState, bluetoothErrorFrom } from '../../../src/sources/noble/errors.js'
import { BluetoothUnavailableError } from '../../../src/errors.js'

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

describe('messages per platform (issue #13 1.8)', () => {
  it('macOS gets macOS advice, never setcap, hciconfig or rfkill', () => {
    const unauthorized = bluetoothErrorForState('unauthorized', undefined, 'darwin')
    expect(unauthorized.code).toBe('unauthorized')
    expect(unauthorized.message).toMatch(/Privacy & Security → Bluetooth/)
    const off = bluetoothErrorForState('poweredOff', undefined, 'darwin')
    expect(off.message).toMatch(/System Settings → Bluetooth/)
    const unsupported = bluetoothErrorForState('unsupported', undefined, 'darwin')
    for (const e of [unauthorized, off, unsupported]) expect(e.message).not.toMatch(/setcap|hciconfig|rfkill|hciDeviceId/)
  })

  it('Windows gets Windows advice', () => {
    expect(bluetoothErrorForState('poweredOff', undefined, 'win32').message).toMatch(/Settings → Bluetooth & devices/)
    expect(bluetoothErrorForState('unauthorized', undefined, 'win32').message).not.toMatch(/setcap/)
  })

  it("Linux 'unauthorized' says what happened (EPERM on a command write) and gives the setcap fix", () => {
    const error = bluetoothErrorForState('unauthorized', 0, 'linux')
    expect(error.message).toMatch(/EPERM/)
    expect(error.message).toMatch(/setcap cap_net_raw\+eip/)
  })

  it('the default adapter is described as noble picks it: NOBLE_HCI_DEVICE_ID, else the first one up', () => {
    expect(bluetoothErrorFrom(osError('EIO'), undefined, 'linux').message).toMatch(/the first one that is up, else hci0/)
    process.env.NOBLE_HCI_DEVICE_ID = '2'
    try {
      expect(bluetoothErrorFrom(osError('EIO'), undefined, 'linux').message).toMatch(/hci2 \(NOBLE_HCI_DEVICE_ID\)/)
      expect(bluetoothErrorForState('poweredOff', undefined, 'linux').message).toMatch(/hciconfig hci2 up/)
    } finally {
      delete process.env.NOBLE_HCI_DEVICE_ID
    }
  })
})

describe('adapterLostError', () => {
  it('after socket errors of a detached adapter: says unplugged and to restart the process', () => {
    const error = adapterLostError(1, 60_000, 'EBADFD')
    expect(error.code).toBe('adapter_lost')
    expect(error.message).toMatch(/hci1 was unplugged or re-attached \(EBADFD/)
    expect(error.message).toMatch(/Restart the process/)
  })

  it('without them: powered off for so long, with both fixes', () => {
    const error = adapterLostError(1, 90_000)
    expect(error.message).toMatch(/powered off for 90 s/)
    expect(error.message).toMatch(/hciconfig hci1 up/)
  })
})
