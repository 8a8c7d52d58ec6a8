/**
 * The calls BluezSource makes to the bus and to bluetoothd, apart from its state: subscribing
 * to the signals it needs, finding bluetoothd, and starting an LE discovery session.
 */
import { DbusCallError } from './dbus.js'
import type { DbusConnection } from './dbus.js'
import { ADAPTER, BLUEZ, DBUS, matchRules } from './signals.js'

const DBUS_PATH = '/org/freedesktop/DBus'

/** Asks the bus for the signals of the adapter and of bluetoothd (see signals.ts). */
export async function addMatches(bus: DbusConnection, adapterPath: string): Promise<void> {
  for (const rule of matchRules(adapterPath)) await bus.call(DBUS, DBUS_PATH, DBUS, 'AddMatch', 's', [rule])
}

/** bluetoothd's unique bus name, or undefined when it is not running. */
export async function nameOwner(bus: DbusConnection): Promise<string | undefined> {
  try {
    const [owner] = await bus.call(DBUS, DBUS_PATH, DBUS, 'GetNameOwner', 's', [BLUEZ])
    return typeof owner === 'string' ? owner : undefined
  } catch (error) {
    if (error instanceof DbusCallError && error.dbusName === 'org.freedesktop.DBus.Error.NameHasNoOwner')
      return undefined
    throw error
  }
}

/** The adapters bluetoothd has (`hci0`, …), from its managed objects. */
export function adapterNames(managed: Map<string, Map<string, unknown>>): string[] {
  return [...managed].filter(([, ifaces]) => ifaces.has(ADAPTER)).map(([p]) => p.slice(p.lastIndexOf('/') + 1))
}

/** Sets the LE filter with duplicates and starts discovery on the adapter at `path`. */
export async function startDiscovery(bus: DbusConnection, path: string): Promise<void> {
  const filter = [
    ['Transport', ['s', 'le']],
    ['DuplicateData', ['b', true]],
  ]
  await bus.call(BLUEZ, path, ADAPTER, 'SetDiscoveryFilter', 'a{sv}', [filter])
  try {
    await bus.call(BLUEZ, path, ADAPTER, 'StartDiscovery')
  } catch (error) {
    // Our session is already running (a resync raced another): nothing to do.
    if (!(error instanceof DbusCallError && error.dbusName === 'org.bluez.Error.InProgress')) throw error
  }
}
