/**
 * Interning: one shared value per distinct key, instead of one copy per holder. The decoder's
 * cache keeps a reading per remembered payload, and most of what those readings hold (frame
 * lists, flag sets, UUIDs, service-uuid lists) takes a handful of values.
 */
import type { FrameKind } from '../reading.js'

/** A table of shared values, emptied whole when it fills up, so keys that never repeat (random data) cannot grow it. */
export class InternTable<K, V> {
  private readonly values = new Map<K, V>()

  constructor(private readonly limit: number) {}

  /** The shared value for `key`, made by `make` the first time. */
  get(key: K, make: () => V): V {
    let shared = this.values.get(key)
    if (shared === undefined) {
      if (this.values.size >= this.limit) this.values.clear()
      shared = make()
      this.values.set(key, shared)
    }
    return shared
  }
}

const framesInterned = new InternTable<string, FrameKind[]>(65)

/**
 * The shared, frozen list with these frame kinds in this order. There are 65 such lists (every
 * order of every subset of the four kinds), and both the decoder's cached readings and every
 * tracked beacon's merged list hold one; a list of its own costs a tracked beacon ~200 bytes.
 */
export function internFrames(frames: readonly FrameKind[]): FrameKind[] {
  return framesInterned.get(frames.join(), () => Object.freeze(frames.slice()) as FrameKind[])
}
