/**
 * The mobile case, wired: a scanner (a forklift's gateway, a phone) hears beacons fixed on a
 * deployment map and locates itself from them. Each scanner tick's readings become observations
 * with the beacon as the anchor and the scanner as the one moving; the positioner answers where
 * the scanner is. No I/O here: the scanner brings the packets, the caller the site.
 */
import type { Clock } from '../clock.js'
import type { Site } from './site.js'
import { SafeEmitter } from '../range/safe-emitter.js'
import { Positioner } from './positioner.js'
import type { PositionerStats } from './positioner-options.js'
import type { RadioMap } from './radio-map.js'
import type { PositionEstimate, PositioningMethod } from './types.js'

/** What a {@link ScannerLocator} needs of a scanner: its clock and its `updated` ticks (a `BeaconScanner` fits). */
export interface LocatableScanner {
  readonly clock: Clock
  on(event: 'updated', listener: (beacons: readonly LocatorBeacon[]) => void): unknown
  off(event: 'updated', listener: (beacons: readonly LocatorBeacon[]) => void): unknown
}

/** The fields of a scanner's beacon the locator reads. */
export interface LocatorBeacon {
  id: string
  rssi: number
  lastSeen: number
  serialNumber?: string
  address?: string
}

/** Options of {@link ScannerLocator}. */
export interface ScannerLocatorOptions {
  /**
   * Fixed beacons with positions: `Site.fromDeploymentMap(await client.getMap(key))`, or a site
   * file's `anchorBeacons`.
   */
  site: Site
  /** A calibration (a survey walked with this scanner); default physics without one (metres of error). */
  radioMap?: RadioMap
  /** Default `'filter'`. */
  method?: PositioningMethod
}

/** The scanner's own position at one tick. */
export interface ScannerPosition extends PositionEstimate {
  /** ms on the scanner's clock. */
  time: number
}

/** Events of a {@link ScannerLocator}. */
export interface ScannerLocatorEvents {
  /** After every scanner tick that heard a placed beacon. */
  position: [position: ScannerPosition]
  /** A listener that threw. */
  error: [error: Error]
}

/** The positioner's name for the scanner (its only moving "beacon"). */
const SELF = 'scanner'

/** Map and scanner ids alike: lower case, no separators (`0117C5456A36`, `01:17:c5:…` → `0117c5456a36`). */
function normal(id: string): string {
  return id.toLowerCase().replace(/[^0-9a-z]/g, '')
}

/**
 * Locates a scanner from the fixed beacons it hears.
 *
 * ```ts
 * const site = Site.fromDeploymentMap(await client.getMap('warehouse'), { z: 2.5 })
 * const locator = new ScannerLocator(scanner, { site })
 * locator.on('position', (p) => console.log(p.x, p.y, p.accuracy))
 * ```
 *
 * A placed beacon is matched by the scanner's beacon `id`, else its serial number, else its
 * address, compared in lower case without separators. Beacons the site does not place are
 * skipped (counted in `stats.unknownAnchor`).
 */
export class ScannerLocator extends SafeEmitter<ScannerLocatorEvents> {
  private readonly positioner: Positioner
  /** lastSeen already fed, per anchor: a tick repeats a beacon's reading until it hears it again. */
  private readonly fed = new Map<string, number>()
  private latest: ScannerPosition | undefined
  private readonly listener = (beacons: readonly LocatorBeacon[]): void => this.tick(beacons)

  constructor(
    private readonly scanner: LocatableScanner,
    options: ScannerLocatorOptions,
  ) {
    super()
    this.positioner = new Positioner({
      site: options.site,
      ...(options.radioMap === undefined ? {} : { radioMap: options.radioMap }),
      ...(options.method === undefined ? {} : { method: options.method }),
    })
    scanner.on('updated', this.listener)
  }

  /** The latest position, or undefined before the first placed beacon was heard. */
  get position(): ScannerPosition | undefined {
    return this.latest === undefined ? undefined : { ...this.latest }
  }

  /** The positioner's counters (observations, beacons the site does not place, …). */
  get stats(): Readonly<PositionerStats> {
    return this.positioner.stats
  }

  /** Stops listening to the scanner. */
  close(): void {
    this.scanner.off('updated', this.listener)
  }

  private tick(beacons: readonly LocatorBeacon[]): void {
    for (const b of beacons) {
      const anchor = this.anchorOf(b)
      if ((this.fed.get(anchor) ?? -Infinity) >= b.lastSeen) continue
      this.fed.set(anchor, b.lastSeen)
      this.positioner.observe({ time: b.lastSeen, anchor, beacon: SELF, rssi: b.rssi })
    }
    const time = this.scanner.clock.now()
    const e = this.positioner.estimate(SELF, time)
    if (e === undefined) return
    this.latest = { time, ...e }
    this.emit('position', { ...this.latest })
  }

  private anchorOf(b: LocatorBeacon): string {
    for (const id of [b.id, b.serialNumber, b.address]) {
      if (id === undefined) continue
      const n = normal(id)
      if (this.positioner.radioMap.index(n) >= 0) return n
    }
    return normal(b.id)
  }
}
