// The smallest AdvertisementSource: the test pushes advertisements, states and errors itself.
// Optionally it runs on a given clock, carries an adapter name, or fails to start.
import { EventEmitter } from 'eventemitter3'
import type { Clock } from '../../src/clock.js'
import type { AdvertisementSourceEvents } from '../../src/sources/source.js'

export class PushSource extends EventEmitter<AdvertisementSourceEvents> {
  starts = 0
  stops = 0
  running = false

  constructor(
    readonly clock?: Clock,
    readonly options: { adapter?: string; startError?: Error } = {},
  ) {
    super()
  }

  get adapter(): string | undefined {
    return this.options.adapter
  }

  async start(): Promise<void> {
    this.starts++
    if (this.options.startError !== undefined) throw this.options.startError
    this.running = true
  }

  async stop(): Promise<void> {
    this.stops++
    this.running = false
  }
}
