/**
 * Gateways that publish RSSI batches but are not in the tracker's site: a typo in a
 * `--gateway-id` or a gateway missing from the site file, whose readings then give no room. Each
 * is reported once; the ids remembered are bounded, so a broker full of made-up ids cannot grow
 * the set without end (past the bound they are only counted).
 */
import type { Site } from '../positioning/site.js'

/** Unknown gateway ids reported one by one before the rest are only counted. */
export const MAX_REPORTED_UNKNOWN_GATEWAYS = 100

/** Tells the first batch of a gateway the site does not declare. */
export class UnknownGateways {
  private readonly reported = new Set<string>()
  /** Batches of undeclared gateways past the reported ones. */
  unreported = 0

  constructor(
    private site: Site | undefined,
    private readonly max = MAX_REPORTED_UNKNOWN_GATEWAYS,
  ) {}

  /** A new site: a gateway it declares is no longer unknown; one it dropped is told of on its next batch. */
  setSite(site: Site | undefined): void {
    this.site = site
    for (const gateway of this.reported) if (site?.anchor(gateway) !== undefined) this.reported.delete(gateway)
  }

  /** True for the first batch of a gateway the site (of receivers) does not declare. */
  firstSight(gateway: string): boolean {
    if (this.site === undefined || this.site.kind !== 'receivers' || this.site.anchor(gateway) !== undefined)
      return false
    if (this.reported.has(gateway)) return false
    if (this.reported.size >= this.max) {
      this.unreported++
      return false
    }
    this.reported.add(gateway)
    return true
  }
}
