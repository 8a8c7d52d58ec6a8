/**
 * One gateway's view of a simulated site: an AdvertisementSource that a `BeaconScanner` reads like
 * any other. The site simulator decides what it hears; this only delivers while started.
 */
import { EventEmitter } from 'eventemitter3'
import type { Advertisement } from '../advertisement.js'
import type { Clock } from '../clock.js'
import type { AdvertisementSource, AdvertisementSourceEvents } from '../sources/source.js'

/** What a gateway source needs of its simulator (an interface, so the two files do not import each other). */
export interface GatewayFeedHost {
  /** The simulator's virtual clock, in virtual time. */
  readonly clock?: Clock
  /** Starts delivering to `source`; starts the simulation itself when it runs on its own. */
  attachSource(source: SiteGatewaySource): void
  detachSource(source: SiteGatewaySource): void
}

/** The advertisements one gateway of a simulated site hears. */
export class SiteGatewaySource extends EventEmitter<AdvertisementSourceEvents> implements AdvertisementSource {
  readonly clock?: Clock
  /** The gateway id (also the adapter name a `CombinedSource` would tag). */
  readonly adapter: string
  private running = false

  constructor(
    private readonly host: GatewayFeedHost,
    /** The gateway id in the site. */
    readonly gateway: string,
  ) {
    super()
    this.adapter = gateway
    if (host.clock !== undefined) this.clock = host.clock
  }

  /** Whether it delivers now. */
  get started(): boolean {
    return this.running
  }

  async start(): Promise<void> {
    if (this.running) return
    this.running = true
    this.emit('state', 'poweredOn')
    this.host.attachSource(this)
  }

  async stop(): Promise<void> {
    if (!this.running) return
    this.running = false
    this.host.detachSource(this)
  }

  /** Called by the simulator for each packet this gateway hears. */
  deliver(adv: Advertisement): void {
    if (this.running) this.emit('advertisement', adv)
  }
}
