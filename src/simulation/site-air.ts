/**
 * The air between a site's beacons and its gateways: each packet is heard (or not) by every
 * gateway at its own RSSI, through path loss, walls, per-link shadowing that drifts over time,
 * fading and packet loss (site-radio.ts), and handed to that gateway's started sources.
 */
import type { Advertisement } from '../advertisement.js'
import type { VirtualClock } from '../clock.js'
import { iBeaconData, vendorServiceData } from '../sources/device-frames.js'
import type { Wall } from '../positioning/site.js'
import type { SiteGatewaySource } from './site-gateway-source.js'
import { lossProbability, meanRssi, shadowingStep, wallLoss } from './site-radio.js'
import type { RadioModel } from './site-radio.js'
import type { SiteSimulatorStats } from './site-simulator-types.js'
import type { BeaconState, GatewayPlace } from './site-simulator-setup.js'

/** The links of one {@link SiteSimulator}: beacons × gateways. */
export class SiteAir {
  /** Shadowing per link, beacon-major: [value dB, time ms]. */
  private readonly shadow: Float64Array
  private readonly shadowAt: Float64Array
  /** Started sources per gateway index. */
  readonly live: Set<SiteGatewaySource>[]
  readonly counters: SiteSimulatorStats = { transmitted: 0, heard: 0, lost: 0, unheard: 0 }
  private lastStamp = -Infinity

  constructor(
    private readonly radio: RadioModel,
    private readonly places: readonly GatewayPlace[],
    /** The walls of each floor (index as in the site's `floors`; one list on a one-plane site). */
    private readonly walls: readonly (readonly Wall[])[],
    beacons: number,
    private readonly random: () => number,
    private readonly gaussian: () => number,
    /** Present in virtual time: moved with each packet delivered. */
    private readonly clock: VirtualClock | undefined,
  ) {
    const links = beacons * places.length
    this.shadow = new Float64Array(links)
    this.shadowAt = new Float64Array(links)
    for (let i = 0; i < links; i++) this.shadow[i] = this.gaussian() * this.radio.shadowingDb
    this.live = places.map(() => new Set())
  }

  /** Sends one beacon's transmission due at `at` (ms after the start; the start is at clock time `origin`). */
  transmit(b: BeaconState, at: number, origin: number): void {
    const spec = b.spec
    const t = Math.round(at)
    const p = b.trajectory.at(t)
    // Timestamps never run backwards within a gateway's stream, even when two beacons round to one ms.
    const stamp = (ms: number): number => {
      this.lastStamp = Math.max(this.lastStamp, origin + ms)
      return this.lastStamp
    }
    if (spec.ibeacon !== undefined) {
      const data = iBeaconData({ ...spec, ibeacon: spec.ibeacon }, t)
      this.broadcast(
        b,
        p,
        t,
        (rssi, timestamp) => ({
          address: spec.address,
          addressType: 'public',
          rssi,
          timestamp,
          connectable: false,
          manufacturerData: data,
        }),
        stamp,
      )
    }
    const vendor = spec.vendor
    if (vendor !== undefined && vendor.length > 0) {
      const frame = vendor[b.frame++ % vendor.length]
      // Two steps per metre walked, as a pedometer counts.
      const serviceData = vendorServiceData(
        spec,
        frame,
        { moving: p.moving, steps: Math.floor(p.walked * 1.4) },
        this.random,
      )
      this.broadcast(
        b,
        p,
        t + 1,
        (rssi, timestamp) => ({
          address: spec.address,
          addressType: 'public',
          rssi,
          timestamp,
          connectable: false,
          serviceData: [serviceData],
        }),
        stamp,
      )
    }
  }

  /** One packet, heard (or not) by each gateway at its own RSSI. */
  private broadcast(
    b: BeaconState,
    p: { x: number; y: number },
    t: number,
    make: (rssi: number, timestamp: number) => Advertisement,
    stamp: (ms: number) => number,
  ): void {
    this.counters.transmitted++
    const r = this.radio
    const power = b.spec.measuredPower ?? r.measuredPower
    const z = b.floorZ + (b.spec.z ?? r.beaconHeight)
    const walls = this.walls[b.floor] ?? []
    for (let g = 0; g < this.places.length; g++) {
      const gw = this.places[g]
      const link = b.index * this.places.length + g
      this.shadow[link] = shadowingStep(
        this.shadow[link],
        t - this.shadowAt[link],
        r.shadowingDb,
        r.shadowingMs,
        this.gaussian(),
      )
      this.shadowAt[link] = t
      const distance = Math.hypot(gw.x - p.x, gw.y - p.y, gw.z - z)
      const mean =
        meanRssi(power, distance, r.pathLossExponent) -
        wallLoss(walls, [p.x, p.y], [gw.x, gw.y], r.wallDb) -
        r.slabDb * Math.abs(gw.floor - b.floor)
      const rssi = mean + this.shadow[link] + this.gaussian() * r.fadingDb
      const lost = this.random() < lossProbability(rssi, r)
      if (rssi <= r.sensitivityDbm) {
        this.counters.unheard++
        continue
      }
      if (lost) {
        this.counters.lost++
        continue
      }
      const sources = this.live[g]
      if (sources.size === 0) continue
      const timestamp = stamp(t)
      this.clock?.advanceTo(timestamp)
      const adv = make(Math.max(-127, Math.min(0, Math.round(rssi))), timestamp)
      this.counters.heard++
      b.lastHeard = { gateway: gw.id, time: timestamp }
      for (const s of sources) s.deliver(adv)
    }
  }
}
