/**
 * The advertisement source of one foreign node: the bridge pushes what the node reported, the
 * node's BeaconScanner ingests it as from a local adapter. Real time: foreign formats carry no
 * timestamp, so an advertisement is stamped when it arrives.
 */
import { EventEmitter } from 'eventemitter3'
import type { Advertisement } from '../advertisement.js'
import type { Clock } from '../clock.js'
import type { AdvertisementSource, AdvertisementSourceEvents } from '../sources/source.js'

/** A push source for one foreign node (see the file comment). */
export class NodeSource extends EventEmitter<AdvertisementSourceEvents> implements AdvertisementSource {
  #running = false

  constructor(readonly clock: Clock) {
    super()
  }

  /** Starts delivering; nothing to open. */
  async start(): Promise<void> {
    this.#running = true
  }

  /** Stops delivering; safe to call twice. */
  async stop(): Promise<void> {
    this.#running = false
  }

  /** Delivers one advertisement to the scanner (dropped once stopped). */
  push(adv: Advertisement): void {
    if (this.#running) this.emit('advertisement', adv)
  }
}
