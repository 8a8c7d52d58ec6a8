/**
 * Several adapters feeding one scanner through real noble: each NobleSource has its own noble
 * instance (noble's custom-binding factory, see src/sources/noble/load.ts), its own raw socket and its own
 * fake controller, so two adapters in one process are two independent HCI stacks.
 */

import { describe, it, expect } from 'vitest'
import { installFakeHciSocket } from './install-fake-hci.js'
import { ADV_NONCONN_IND, AD_FLAGS, AD_MANUFACTURER_SPECIFIC, FLAGS_LE_GENERAL_NO_BREDR, adStructure, iBeaconManufacturerData } from './hci-packets.js'
import { waitFor } from './wait.js'
import { NobleSource } from '../../src/sources/noble/noble.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { AdapterError, BluetoothUnavailableError } from '../../src/errors.js'
import type { ScannerWarning } from '../../src/scanner/event-stream.js'
import type { AdapterState } from '../../src/sources/source.js'

const hci = installFakeHciSocket()
const UUID = 'fda50693-a4e2-4fb1-afcf-c6eb07647825'
const flags = adStructure(AD_FLAGS, [FLAGS_LE_GENERAL_NO_BREDR])
const ADDRESS = 'd0:00:00:00:00:40'

function beaconPacket(rssi: number) {
  const data = Buffer.concat([flags, adStructure(AD_MANUFACTURER_SPECIFIC, iBeaconManufacturerData(UUID, 1, 2, -59))])
  return { type: ADV_NONCONN_IND, address: ADDRESS, data, rssi }
}

describe('two real noble adapters feeding one scanner', () => {
  it('tags each advertisement with its adapter, lists both for a beacon, and scans on when one fails at start and another mid-run', async () => {
    const near = hci.device(40)
    const far = hci.device(42)
    // hci41 does not exist: its source fails to start, the others scan.
    hci.missing.add(41)
    const scanner = new BeaconScanner({
      source: [new NobleSource({ hciDeviceId: 40 }), new NobleSource({ hciDeviceId: 41 }), new NobleSource({ hciDeviceId: 42 })],
      identitySettleMs: 0,
    })
    const errors: Error[] = []
    const warnings: ScannerWarning[] = []
    const states: AdapterState[] = []
    scanner.on('error', (e) => errors.push(e))
    scanner.on('warning', (w) => warnings.push(w))
    scanner.on('state', (s) => states.push(s))
    try {
      await scanner.start()
      expect(errors).toHaveLength(1)
      const startFailure = errors[0] as AdapterError
      expect(startFailure).toBeInstanceOf(AdapterError)
      expect(startFailure.adapter).toBe('hci41')
      expect(startFailure.cause).toBeInstanceOf(BluetoothUnavailableError)
      expect((startFailure.cause as BluetoothUnavailableError).code).toBe('no_adapter')
      // noble says 'unknown' before 'poweredOn'.
      expect(states.at(-1)).toBe('poweredOn')

      const both = (): boolean => scanner.beacons()[0]?.adapters?.length === 2
      await waitFor(() => {
        near.inject(beaconPacket(-52))
        far.inject(beaconPacket(-81))
        return both()
      }, 'the beacon heard through hci40 and hci42')
      const [beacon] = scanner.beacons()
      expect(beacon.adapters?.map((a) => a.adapter)).toEqual(['hci40', 'hci42'])
      expect(beacon.smoothedRssi).toBe(-52)
      expect(beacon.adapters?.[1].rssi).toBe(-81)

      // hci42 is unplugged: noble reports it powered off; hci40 keeps the beacon in range.
      far.powerOff()
      await waitFor(() => {
        near.inject(beaconPacket(-52))
        return warnings.some((w) => w.code === 'adapter_state')
      }, 'a warning that hci42 went off')
      expect(warnings.find((w) => w.code === 'adapter_state')?.message).toBe('hci42 is poweredOff; scanning goes on with hci40')
      expect(states.at(-1)).toBe('poweredOn')
      expect(states).not.toContain('poweredOff')
      near.inject(beaconPacket(-52))
      expect(scanner.beacons().map((b) => b.inRange)).toEqual([true])
    } finally {
      await scanner.stop()
      hci.missing.delete(41)
      far.powerOn()
    }
  })
})
