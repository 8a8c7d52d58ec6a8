/**
 * Which gateways the fleet counts, and how many are online: what the map's header, the CLI's
 * status line, `/healthz` and the metrics show. With a site of gateways the site's list is the
 * answer: retained statuses of gateways from earlier runs, or of ids someone made up, must not
 * turn "7/7 gateways online" into "5/9"; any other gateway the tracker knows is listed apart.
 * Without a site, every gateway the tracker holds is counted (bounded by its registry).
 */
import type { Site } from '../positioning/site.js'
import type { GatewayState } from './gateway-registry.js'

/** One gateway and what the fleet can say of it now. */
export interface GatewaySummaryEntry {
  id: string
  state: GatewayState
}

/** The gateways a fleet counts, and the others it knows. */
export interface FleetGatewaySummary {
  /**
   * Counted: the site's gateways in the site's order (each, heard or not), or without a site
   * every gateway the tracker knows.
   */
  counted: GatewaySummaryEntry[]
  /** Gateways the tracker knows that the site does not list (empty without a site): shown apart, never counted. */
  others: GatewaySummaryEntry[]
  /** How many of `counted` are online. */
  online: number
  /** Whether `counted` is the site's list. */
  fromSite: boolean
}

/** What the summary reads of the tracker's gateway registry. */
export interface GatewayStates {
  gatewayIds(): Iterable<string>
  gatewayState(gateway: string, now: number): GatewayState
}

/** The site's gateway ids, or undefined when the site does not list gateways (none, or fixed beacons). */
export function siteGatewayIds(site: Site | undefined): string[] | undefined {
  if (site === undefined || site.kind !== 'receivers') return undefined
  const ids = site.anchorList().map((a) => a.id)
  return ids.length === 0 ? undefined : ids
}

/** The summary at `now` (tracker clock). */
export function summarizeGateways(states: GatewayStates, site: Site | undefined, now: number): FleetGatewaySummary {
  const listed = siteGatewayIds(site)
  const entry = (id: string): GatewaySummaryEntry => ({ id, state: states.gatewayState(id, now) })
  const known = [...states.gatewayIds()]
  if (listed === undefined) {
    const counted = known.sort().map(entry)
    return { counted, others: [], online: counted.filter((g) => g.state === 'online').length, fromSite: false }
  }
  const inSite = new Set(listed)
  const counted = listed.map(entry)
  const others = known
    .filter((id) => !inSite.has(id))
    .sort()
    .map(entry)
  return { counted, others, online: counted.filter((g) => g.state === 'online').length, fromSite: true }
}
