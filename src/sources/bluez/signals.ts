/**
 * What a D-Bus signal means for one adapter's BluezSource. Kept apart from the source so the
 * rules (whose signals count, which paths belong to the adapter) sit in one place.
 *
 * Why the owner check: any program on the bus may send a signal with org.bluez's paths and
 * interfaces; only those from the connection that owns the name org.bluez (bluetoothd) count.
 * NameOwnerChanged comes from the bus itself.
 */

import type { DbusMessage } from './dbus.js'
import { managedInterfaces } from './devices.js'
import { propertyMap, variantBoolean } from './values.js'

/** Interface names of BlueZ and the bus. */
export const BLUEZ = 'org.bluez'
export const DBUS = 'org.freedesktop.DBus'
export const OBJECT_MANAGER = 'org.freedesktop.DBus.ObjectManager'
export const PROPERTIES = 'org.freedesktop.DBus.Properties'
export const ADAPTER = 'org.bluez.Adapter1'
export const DEVICE = 'org.bluez.Device1'

/** One signal, classified. */
export type BluezEvent =
  /** org.bluez changed hands: `owner` is bluetoothd's new unique name, undefined when it left. */
  | { kind: 'owner'; owner: string | undefined }
  | { kind: 'adapterAdded' }
  | { kind: 'adapterRemoved' }
  | { kind: 'powered'; on: boolean }
  | { kind: 'deviceAdded'; path: string; properties: unknown }
  /**
   * `invalidated`: properties that no longer have a value (bluetoothd invalidates RSSI when it stops hearing a
   * device).
   */
  | { kind: 'deviceChanged'; path: string; changed: unknown; invalidated: string[] }
  | { kind: 'deviceRemoved'; path: string }

/** Match rules for the signals `classify` understands, for the adapter at `adapterPath`. */
export function matchRules(adapterPath: string): string[] {
  return [
    `type='signal',sender='${DBUS}',interface='${DBUS}',member='NameOwnerChanged',arg0='${BLUEZ}'`,
    `type='signal',sender='${BLUEZ}',interface='${OBJECT_MANAGER}'`,
    `type='signal',sender='${BLUEZ}',interface='${PROPERTIES}',member='PropertiesChanged',` +
      `path_namespace='${adapterPath}'`,
  ]
}

/** The event a signal carries for the adapter at `adapterPath`, or undefined when it does not concern it. */
export function classify(message: DbusMessage, adapterPath: string, owner: string | undefined): BluezEvent | undefined {
  const body = message.body ?? []
  if (message.member === 'NameOwnerChanged' && message.interface === DBUS) {
    if (body[0] !== BLUEZ) return undefined
    return { kind: 'owner', owner: typeof body[2] === 'string' && body[2] !== '' ? body[2] : undefined }
  }
  if (owner === undefined || message.sender !== owner || typeof message.path !== 'string') return undefined
  const underAdapter = (path: string): boolean => path.startsWith(`${adapterPath}/`)
  if (message.member === 'PropertiesChanged' && message.interface === PROPERTIES) {
    const [iface, changed, invalidated] = body
    if (iface === DEVICE && underAdapter(message.path)) {
      const names = Array.isArray(invalidated) ? invalidated.filter((n): n is string => typeof n === 'string') : []
      return { kind: 'deviceChanged', path: message.path, changed, invalidated: names }
    }
    if (iface !== ADAPTER || message.path !== adapterPath) return undefined
    const powered = variantBoolean(propertyMap(changed).get('Powered'))
    return powered === undefined ? undefined : { kind: 'powered', on: powered }
  }
  if (message.interface !== OBJECT_MANAGER) return undefined
  const [path, second] = body
  if (typeof path !== 'string') return undefined
  if (message.member === 'InterfacesAdded') {
    const ifaces = managedInterfaces([[path, second]]).get(path)
    if (path === adapterPath && ifaces?.has(ADAPTER) === true) return { kind: 'adapterAdded' }
    const device = ifaces?.get(DEVICE)
    return device !== undefined && underAdapter(path) ? { kind: 'deviceAdded', path, properties: device } : undefined
  }
  if (message.member === 'InterfacesRemoved' && Array.isArray(second)) {
    if (path === adapterPath && second.includes(ADAPTER)) return { kind: 'adapterRemoved' }
    return second.includes(DEVICE) && underAdapter(path) ? { kind: 'deviceRemoved', path } : undefined
  }
  return undefined
}
