import type { Advertisement } from '../advertisement.js'
import type { BeaconReading } from '../reading.js'
import { createSecureStats } from '../secure/open.js'
import { summarize, type CacheEntry, type SlotSummary, type Versioned } from './cache-entry.js'
import { Decoder } from './decoder.js'
import { freezeNested } from './freeze-reading.js'

/**
 * The scanner's decoder. A tracked beacon repeats the same two payloads for as long as it is
 * in range, and once a payload has been merged into the beacon's record, merging it again
 * changes nothing until something else changes the record. So after merging, the scanner
 * marks the payload's slot with the record and its version ({@link ScanDecoder.settle}), and
 * the slot lets go of its reading: a repeat answers with a shared {@link SlotSummary}, and
 * {@link ScanDecoder.unchangedOwner} tells whether the record is unchanged, in which case only the
 * packet's RSSI and time are news. When it changed, the payload is decoded again
 * ({@link ScanDecoder.redecode}). The readings were two more copies of what the record holds:
 * letting go of them took ~500 bytes off each tracked beacon.
 */
export class ScanDecoder<O extends Versioned> extends Decoder {
  /** Like {@link Decoder.decodeShared}, except that a released slot answers with its summary. */
  scan(adv: Advertisement): Readonly<BeaconReading> | SlotSummary | null {
    return this.resolve(adv)
  }

  /** The cache entry that gave the last answer of {@link ScanDecoder.scan}, to pass back with {@link lastSlot}. */
  get lastEntry(): CacheEntry | undefined {
    return this.hitEntry
  }

  /** Which of its payloads gave the last answer: 0 the latest, 1 the one before. */
  get lastSlot(): number {
    return this.hitSlot
  }

  /** The record that payload was merged into, when it is unchanged since (merging again would change nothing). */
  unchangedOwner(entry: CacheEntry, slot: number): O | undefined {
    const owner = entry.owner
    // Only settle() stores owners, and it takes O.
    return owner !== undefined && owner.version === (slot === 0 ? entry.aTag : entry.bTag) ? (owner as O) : undefined
  }

  /**
   * Decodes afresh an advertisement whose released slot answered, for a merge. The repeat was
   * counted when it was answered; only the AES operations performed now are added.
   */
  redecode(adv: Advertisement, entry: CacheEntry): BeaconReading | null {
    const scratch = createSecureStats()
    let reading: BeaconReading | null
    try {
      reading = this.decodeFresh(adv, entry, scratch)
    } catch {
      return null
    }
    this.stats.secure.decrypted += scratch.decrypted
    return reading === null ? null : freezeNested(reading)
  }

  /**
   * Says what became of the reading `entry` / `slot` answered with: merged into `owner` (now
   * at `owner.version`), so the slot releases its reading; or `undefined` (held, dropped,
   * filtered out), so the slot's mark is cleared and the next repeat goes the long way again.
   */
  settle(entry: CacheEntry, slot: number, owner: O | undefined): void {
    if (owner === undefined || owner.version < 0) {
      if (slot === 0) entry.aTag = -1
      else entry.bTag = -1
      return
    }
    if (entry.owner !== owner) {
      // The other payload's mark was about another record.
      entry.owner = owner
      entry.aTag = entry.bTag = -1
    }
    if (slot === 0) {
      entry.aTag = owner.version
      entry.aTemplate = summarize(entry.aTemplate)
    } else {
      entry.bTag = owner.version
      entry.bTemplate = summarize(entry.bTemplate)
    }
  }
}
