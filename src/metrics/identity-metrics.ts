/**
 * The identity resolver's counters (issue 37), for a scanner given identity resolving keys:
 * addresses resolved and not, the per-address cache's hits and evictions. Counts only: no name
 * or key is ever a label (a key lets whoever holds it follow the device).
 */
import type * as PromClient from 'prom-client'
import type { IdentityResolverStats } from '../secure/identity-resolver.js'

/** Registers the counters read from `stats()` at each scrape (undefined: no keys, nothing to count). */
export function registerIdentityMetrics(
  prom: typeof PromClient,
  registers: PromClient.Registry[],
  stats: () => IdentityResolverStats | undefined,
): void {
  const counter = (name: string, help: string, read: (s: IdentityResolverStats) => number): void => {
    new prom.Counter({
      name,
      help,
      registers,
      collect() {
        const s = stats()
        this.reset()
        if (s !== undefined) this.inc(read(s))
      },
    })
  }
  counter(
    'beaconkit_irk_addresses_resolved_total',
    'New resolvable private addresses that a key of the IRK file resolved (each address once).',
    (s) => s.resolved,
  )
  counter(
    'beaconkit_irk_addresses_unresolved_total',
    'New resolvable private addresses no key of the IRK file resolved (strangers; each address once).',
    (s) => s.unresolved,
  )
  counter(
    'beaconkit_irk_cache_hits_total',
    'Sightings answered from the per-address cache (no AES work).',
    (s) => s.cacheHits,
  )
  counter(
    'beaconkit_irk_cache_evictions_total',
    'Addresses let go by the bounded per-address cache.',
    (s) => s.evictions,
  )
  new prom.Gauge({
    name: 'beaconkit_irk_keys',
    help: 'Identity resolving keys held (the count: no name or key is ever a label).',
    registers,
    collect() {
      this.set(stats()?.keys ?? 0)
    },
  })
  new prom.Gauge({
    name: 'beaconkit_irk_cached_addresses',
    help: 'Addresses the per-address cache holds now.',
    registers,
    collect() {
      this.set(stats()?.cached ?? 0)
    },
  })
}
