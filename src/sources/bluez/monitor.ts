/**
 * A passive advertisement monitor (org.bluez.AdvertisementMonitor1) for the beacons beaconkit
 * decodes: registering one is what lifts the controller's duplicate filter.
 *
 * Why: during discovery the kernel enables the controller's LE duplicate filter, which then
 * reports each beacon once (or once per payload change) until bluetoothd restarts the
 * discovery cycle (~10 s): too few RSSI updates for ranging, and longer than the scanner's 8 s
 * "gone" timeout (bench/bluez.bench.mjs models it). While any advertisement monitor is active,
 * the kernel turns duplicate filtering off (net/bluetooth: "Disable duplicates filter when
 * scanning for advertisement monitor"), and bluetoothd updates the monitored devices'
 * properties on every report.
 *
 * The cost: bluetoothd only offers AdvertisementMonitorManager1 when its experimental
 * interfaces are on (`Experimental = true` in /etc/bluetooth/main.conf, or `bluetoothd -E`), and
 * a monitor must name patterns (AD type + leading bytes), so only these beacons get the full
 * rate; other devices still come through discovery as before.
 */

import { DbusCallError } from './dbus.js'
import type { DbusConnection } from './dbus.js'

/** bluetoothd's interface for registering monitors, on the adapter object. */
export const MONITOR_MANAGER = 'org.bluez.AdvertisementMonitorManager1'
const MONITOR = 'org.bluez.AdvertisementMonitor1'
const OBJECT_MANAGER = 'org.freedesktop.DBus.ObjectManager'
/** Our monitor application's root; one per bus connection, so several sources never clash. */
export const MONITOR_ROOT = '/io/beaconkit/monitor'
const MONITOR_PATH = `${MONITOR_ROOT}/beacons`

/** [start position, AD type, leading bytes]: the frames beaconkit decodes (docs/protocol.md). */
export const BEACON_PATTERNS: readonly (readonly [number, number, readonly number[]])[] = [
  [0, 0xff, [0x4c, 0x00]], // manufacturer data of Apple (0x004C): iBeacon
  [0, 0x16, [0xe7, 0x80]], // service data 0x80E7 (legacy firmware frames)
  [0, 0x16, [0xe7, 0x81]], // service data 0x81E7 (current and private broadcasts)
  [0, 0x16, [0xaa, 0xfe]], // service data 0xFEAA: Eddystone
]

/** Exports the monitor object tree on `bus` (once per connection); bluetoothd reads it on RegisterMonitor. */
export function exportMonitor(bus: DbusConnection): void {
  const patterns = BEACON_PATTERNS.map(([position, type, bytes]) => [position, type, Buffer.from(bytes)])
  const properties = [
    ['Type', ['s', 'or_patterns']],
    ['Patterns', ['a(yyay)', patterns]],
  ]
  bus.serve(MONITOR_ROOT, OBJECT_MANAGER, 'GetManagedObjects', 'a{oa{sa{sv}}}', () => [
    [MONITOR_PATH, [[MONITOR, properties]]],
  ])
  // bluetoothd's notifications; devices' data still arrives as Device1 PropertiesChanged.
  for (const member of ['Release', 'Activate', 'DeviceFound', 'DeviceLost'])
    bus.serve(MONITOR_PATH, MONITOR, member, undefined, () => undefined)
}

/** Our monitor's registration with one adapter: once per adapter appearance, never fatal (discovery works without). */
export class MonitorRegistration {
  /** bluetoothd has accepted the monitor for the adapter as it is now. */
  registered = false
  private warned = false

  constructor(
    private readonly adapter: string,
    private readonly adapterPath: string,
    private readonly warn: (message: string) => void,
  ) {}

  /** The adapter or bluetoothd went away, and the registration with it. */
  lost(): void {
    this.registered = false
  }

  /** A new run: forget everything, warn again if need be. */
  reset(): void {
    this.registered = this.warned = false
  }

  /** Registers unless done; `offered`: the adapter object has AdvertisementMonitorManager1. */
  async ensure(bus: DbusConnection, offered: boolean): Promise<void> {
    if (this.registered) return
    if (!offered) {
      this.warnOnce(
        `bluetoothd offers no advertisement monitor on ${this.adapter}, so the controller's duplicate ` +
          `filter stays on and ` +
          'beacons may be reported only every ~10 s. Set `Experimental = true` in /etc/bluetooth/main.conf ' +
          'and restart bluetooth, ' +
          'or scan with NobleSource (docs/troubleshooting.md, "Choosing noble or BlueZ").',
      )
      return
    }
    try {
      await bus.call('org.bluez', this.adapterPath, MONITOR_MANAGER, 'RegisterMonitor', 'o', [MONITOR_ROOT])
      this.registered = true
    } catch (error) {
      // Registered already on this connection (a resync raced another).
      if (error instanceof DbusCallError && error.dbusName === 'org.bluez.Error.AlreadyExists') this.registered = true
      else
        this.warnOnce(
          `bluetoothd refused our advertisement monitor (${(error as Error).message}); beacons may be ` +
            `reported only every ~10 s.`,
        )
    }
  }

  private warnOnce(message: string): void {
    if (this.warned) return
    this.warned = true
    this.warn(message)
  }
}
