/**
 * The room method's metrics (#39), read at scrape time: each gateway's learnt gain offset, the
 * observations they were learnt from, the taught fingerprints and the teachings under way.
 */
import type * as PromClient from 'prom-client'

/** prom-client as loaded at the first scrape (not imported from gateway-metrics.ts: sources.ts names this file). */
type Prom = typeof PromClient

/** What the metrics read of the room method (a `RoomLocator`). */
export interface RoomMetricsSource {
  readonly offsets: { list(): { gateway: string; offsetDb: number; observations: number }[] }
  readonly fingerprints: { samples(): readonly unknown[] }
  readonly teachings: number
}

/** Registers the room method's metrics of `rooms` in `registry`. */
export function registerRoomMetrics(prom: Prom, registry: PromClient.Registry, rooms: RoomMetricsSource): void {
  const registers = [registry]
  new prom.Gauge({
    name: 'beaconkit_fleet_gateway_offset_db',
    help: "Each gateway's gain offset the room method learnt, in dB (subtracted from what it hears).",
    labelNames: ['gateway'],
    registers,
    collect() {
      this.reset()
      for (const o of rooms.offsets.list()) this.set({ gateway: o.gateway }, o.offsetDb)
    },
  })
  new prom.Counter({
    name: 'beaconkit_fleet_offset_observations_total',
    help: 'Observations the gateway offsets were learnt from (summed over gateways).',
    registers,
    collect() {
      this.reset()
      this.inc(rooms.offsets.list().reduce((n, o) => n + o.observations, 0))
    },
  })
  new prom.Gauge({
    name: 'beaconkit_fleet_fingerprints',
    help: 'Fingerprint samples taught (beaconkit fleet teach) and held by the room method.',
    registers,
    collect() {
      this.set(rooms.fingerprints.samples().length)
    },
  })
  new prom.Gauge({
    name: 'beaconkit_fleet_teachings',
    help: 'Teachings under way.',
    registers,
    collect() {
      this.set(rooms.teachings)
    },
  })
}
