// `beaconkit scan --backend bluez`: parsing, and the built command scanning through a fake
// bluetoothd on a private dbus-daemon (DBUS_SYSTEM_BUS_ADDRESS points the source at it).
import { describe, expect, it } from 'vitest'
import { parseCommandLine } from '../../src/cli/args.js'
import { dbusUnavailable, FakeBluez, startBus } from '../integration/dbus-harness.js'
import { startCli } from './run-cli.js'

const skip = dbusUnavailable()
const IBEACON = '0215e2c56db5dffb48d2b060d0f5a71096e000010002c5'

describe('scan --backend', () => {
  it('parses noble and bluez, and refuses anything else', () => {
    expect(parseCommandLine(['scan', '--backend', 'bluez', '--hci', '1'])).toMatchObject({ command: 'scan', backend: 'bluez', hci: 1 })
    expect(parseCommandLine(['scan', '--backend', 'noble'])).toMatchObject({ command: 'scan', backend: 'noble' })
    expect(parseCommandLine(['scan'])).not.toHaveProperty('backend')
    expect(() => parseCommandLine(['scan', '--backend', 'hci'])).toThrow(/--backend must be noble .* or bluez/)
    expect(() => parseCommandLine(['record', 'f.jsonl', '--backend', 'bluez'])).toThrow(/unknown option --backend/)
  })
})

describe.skipIf(skip !== undefined)(`beaconkit scan --backend bluez${skip === undefined ? '' : ` (${skip})`}`, () => {
  it('finds a beacon through bluetoothd, and Ctrl-C ends it with exit 0', async () => {
    const bus = await startBus()
    const fake = await FakeBluez.start(bus.address)
    try {
      await fake.send({ op: 'addAdapter', name: 'hci1', powered: true })
      await fake.send({ op: 'beacon', adapter: 'hci1', address: 'c0:11:22:33:44:55', ms: 20, mfr: { 76: IBEACON } })
      const run = startCli(['scan', '--backend', 'bluez', '--hci', '1', '--json'], { env: { DBUS_SYSTEM_BUS_ADDRESS: bus.address } })
      await run.waitFor(/"event":"found".*E2C56DB5-DFFB-48D2-B060-D0F5A71096E0\|1\|2/)
      expect((await fake.calls('StartDiscovery')).map((c) => c.path)).toEqual(['/org/bluez/hci1'])
      run.child.kill('SIGINT')
      const r = await run.done
      expect(r.code).toBe(0)
    } finally {
      await fake.kill()
      await bus.stop()
    }
  })

  it('without bluetoothd on the bus: the typed error, exit 3', async () => {
    const bus = await startBus()
    try {
      const r = await startCli(['scan', '--backend', 'bluez', '--json'], { env: { DBUS_SYSTEM_BUS_ADDRESS: bus.address } }).done
      expect(r.code).toBe(3)
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(/bluetoothd \(org\.bluez\) is not running.*\[bluez_not_running\]/)
    } finally {
      await bus.stop()
    }
  })
})
