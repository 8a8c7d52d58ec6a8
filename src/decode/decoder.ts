/**
 * The decoder a scanner runs: {@link decodeFrames} plus what needs memory. A beacon repeats the
 * same bytes many times a second, so an unchanged payload from a known address is answered from
 * a per-address cache (a byte comparison instead of a decode, and no AES). Each address keeps
 * its two latest payloads: under active scanning a beacon alternates between its advertisement
 * and its scan response, and one slot would miss on every packet. The cache also holds the
 * serial number verified for each address, which the encrypted-frame check needs.
 *
 * The cache's shape is measured, not a matter of taste (BENCHMARKS.md "Decoding": ≥ 10 M repeated
 * adverts/s); keep it when changing this file. A profile put the time in dependent loads, each a
 * likely cache miss (entry → slot → key → bytes), so an entry holds both payloads' fingerprints
 * and readings itself, and a fingerprint packs four bytes to a word (one comparison per four
 * bytes). The miss path is a method of its own, and the two packet shapes nearly every beacon
 * sends (manufacturer data alone, one service-data element alone) compare through a single call,
 * which V8 inlines; a call per kind of part ran out of its inlining budget. Sources give the
 * address as a flat string: a cons string slows the `Map` lookup on a bucket collision.
 */
import type { Advertisement } from '../advertisement.js'
import { matchesPayloadKey, payloadKey, type PayloadKey } from './payload-key.js'
import type { BeaconReading } from '../reading.js'
import { keyringVersion, type Keyring } from '../secure/keyring.js'
import { createSecureStats, type SecureStats } from '../secure/open.js'
import { decodeFrames, isValidEnvelope, isValidReading, referencePower } from './decode.js'
import { accuracy, checkProximityThresholds, proximity, type ProximityThresholds } from './distance.js'
import { InvalidOptionError } from '../errors.js'
import { CacheEntry, type SlotSummary } from './cache-entry.js'
import { freezeNested } from './freeze-reading.js'
import type { IdentityResolver } from '../secure/identity-resolver.js'
import { withIdentity } from './identity-reading.js'

/** Options of {@link Decoder}. */
export interface DecoderOptions {
  keyring?: Keyring
  /**
   * Identity resolving keys: a sender whose resolvable private address resolves gets `irk`
   * (its key's name), and a reading even when it carries no known frame.
   */
  identities?: IdentityResolver
  /** Addresses remembered (per generation; at most twice this many are held). Default 50,000. */
  cacheSize?: number
  proximityThresholds?: ProximityThresholds
}

/** Counters since the decoder was created. */
export interface DecodeStats {
  /** Advertisements offered. */
  advertisements: number
  /** Yielded a reading. */
  decoded: number
  /** Carried no known frame (other devices, phones, malformed frames). */
  ignored: number
  /** Envelope unusable (no address, RSSI out of range, bad timestamp): skipped. */
  malformed: number
  /** Answered from the per-address cache. */
  cacheHits: number
  /** Encrypted frames: AES operations performed, frames verified, frames rejected by reason. */
  secure: SecureStats
}

/** A key no advertisement matches, for payloads too long to fingerprint. */
const UNMATCHABLE: PayloadKey = { words: [-1], uuids: null }

/** A decoder with a per-address cache and counters. One per scanner; not shared between threads. */
export class Decoder {
  readonly stats: DecodeStats
  private keyring: Keyring | undefined
  /** The keyring's version the cache was filled under; a key added or removed empties the cache. */
  private keyringSeen = -1
  private readonly cacheSize: number
  private readonly thresholds: ProximityThresholds | undefined
  private readonly identities: IdentityResolver | undefined
  /** Two generations: lookups promote from `old`; when `current` fills up, `old` is dropped whole. */
  private current = new Map<string, CacheEntry>()
  private old = new Map<string, CacheEntry>()
  /**
   * The cache entry and slot (0 the latest payload, 1 the one before) that answered the last
   * reading returned (for ScanDecoder).
   * @internal
   */
  protected hitEntry: CacheEntry | undefined = undefined
  /** @internal */
  protected hitSlot = 0

  constructor(options: DecoderOptions = {}) {
    const size = options.cacheSize ?? 50_000
    if (!Number.isInteger(size) || size < 1) {
      throw new InvalidOptionError('invalid_option', 'cacheSize must be a positive integer (addresses remembered).', {
        option: 'cacheSize',
      })
    }
    this.cacheSize = size
    this.keyring = options.keyring
    this.identities = options.identities
    this.thresholds =
      options.proximityThresholds === undefined ? undefined : checkProximityThresholds(options.proximityThresholds)
    this.stats = { advertisements: 0, decoded: 0, ignored: 0, malformed: 0, cacheHits: 0, secure: createSecureStats() }
  }

  /** Replaces the keyring; cached results of encrypted frames are forgotten. */
  setKeyring(keyring: Keyring | undefined): void {
    this.keyring = keyring
    this.clear()
  }

  /**
   * Forgets every cached payload and verified serial. Keys added to or removed from the keyring
   * do this by themselves.
   */
  clear(): void {
    this.current = new Map()
    this.old = new Map()
    this.hitEntry = undefined
  }

  /**
   * Decodes one advertisement into a reading of its own (the caller may change it); `null` when
   * it carries nothing known. Never throws.
   */
  decode(adv: Advertisement): BeaconReading | null {
    // Only a ScanDecoder releases slots, so a plain Decoder always answers with a reading.
    const template = this.resolve(adv) as BeaconReading | null
    if (template === null) return null
    const reading = { ...template }
    if (template.rssi !== adv.rssi || template.timestamp !== adv.timestamp) {
      reading.rssi = adv.rssi
      reading.timestamp = adv.timestamp
      reading.accuracy = accuracy(adv.rssi, referencePower(template))
      reading.proximity = proximity(reading.accuracy, this.thresholds)
    }
    return reading
  }

  /**
   * Like {@link Decoder.decode} without the copy, for consumers that ingest at line rate (the
   * scanner): the reading is shared by every repeat of the same bytes from the same address, so
   * its `rssi`, `timestamp`, `accuracy` and `proximity` are those of the first such packet.
   * Take RSSI and time from the advertisement itself, and never modify the reading.
   */
  decodeShared(adv: Advertisement): Readonly<BeaconReading> | null {
    return this.resolve(adv) as BeaconReading | null
  }

  /** Drops what is cached for an address (a device that is gone); its verified serial too. */
  forget(address: string): void {
    const entry = this.current.get(address) ?? this.old.get(address)
    if (entry === undefined) return
    // A ScanDecoder's link to a record that is gone must not keep the record alive.
    entry.owner = undefined
    if (this.hitEntry === entry) this.hitEntry = undefined
    this.current.delete(address)
    this.old.delete(address)
  }

  /**
   * Finds or makes the cached reading for this advertisement; updates the counters.
   * @internal
   */
  protected resolve(adv: Advertisement): BeaconReading | SlotSummary | null {
    const stats = this.stats
    stats.advertisements++
    if (typeof adv !== 'object' || adv === null) {
      stats.malformed++
      return null
    }
    if (this.keyring !== undefined && keyringVersion(this.keyring) !== this.keyringSeen) {
      this.clear()
      this.keyringSeen = keyringVersion(this.keyring)
    }
    // Only valid addresses are ever stored, so a hit vouches for the address; RSSI and time
    // still need their check on every packet.
    let entry = this.current.get(adv.address)
    if (entry === undefined) {
      if (!isValidEnvelope(adv)) {
        stats.malformed++
        return null
      }
      entry = this.old.get(adv.address)
      if (entry !== undefined) this.remember(adv.address, entry)
    } else if (!isValidReading(adv)) {
      stats.malformed++
      return null
    }
    if (entry !== undefined) {
      let hit: BeaconReading | SlotSummary | null | undefined
      if (entry.aWords !== undefined && matchesPayloadKey(entry.aWords, entry.aUuids, adv)) {
        hit = entry.aTemplate
        this.hitSlot = 0
      } else if (entry.bWords !== undefined && matchesPayloadKey(entry.bWords, entry.bUuids, adv)) {
        hit = entry.bTemplate
        this.hitSlot = 1
      }
      if (hit !== undefined) {
        this.hitEntry = entry
        stats.cacheHits++
        this.countRepeat(hit)
        return hit
      }
    }
    return this.miss(adv, entry)
  }

  /**
   * Decodes a payload the cache does not hold and remembers it. Kept out of {@link resolve}: V8
   * inlines callees up to a budget per optimized function, and the hit path wants all of it for
   * the payload comparison (with this code inline, one comparison stayed a call).
   */
  private miss(adv: Advertisement, entry: CacheEntry | undefined): BeaconReading | null {
    const stats = this.stats
    let reading: BeaconReading | null
    try {
      reading = this.decodeFresh(adv, entry, stats.secure)
    } catch {
      // decodeFrames does not throw on anything a source produces; a hand-made object might.
      stats.malformed++
      return null
    }
    if (reading === null) stats.ignored++
    else stats.decoded++
    const template = reading === null ? null : freezeNested(reading)
    const verifiedSerial = reading?.secure?.verified === true ? reading.serialNumber : entry?.verifiedSerial
    if (entry === undefined) {
      entry = new CacheEntry(undefined, verifiedSerial)
      this.remember(adv.address, entry)
    } else {
      entry.verifiedSerial = verifiedSerial
    }
    entry.push(payloadKey(adv) ?? UNMATCHABLE, template)
    this.hitEntry = entry
    this.hitSlot = 0
    return template
  }

  /**
   * Decodes an advertisement without the cache (the address's verified serial still applies).
   * @internal
   */
  protected decodeFresh(
    adv: Advertisement,
    entry: CacheEntry | undefined,
    secureStats: SecureStats,
  ): BeaconReading | null {
    const reading = decodeFrames(adv, {
      keyring: this.keyring,
      expectedSerial: entry?.verifiedSerial,
      stats: secureStats,
      proximityThresholds: this.thresholds,
    })
    // A miss only (a new payload or address): repeats are answered from the cache above.
    return this.identities === undefined ? reading : withIdentity(reading, adv, this.identities, this.thresholds)
  }

  private countRepeat(template: BeaconReading | SlotSummary | null): void {
    if (template === null) {
      this.stats.ignored++
      return
    }
    this.stats.decoded++
    const secure = template.secure
    if (secure !== undefined && secure.encrypted) {
      // A repeated encrypted frame counts again, by its (unchanged) verdict; no AES was run.
      if (secure.verified) this.stats.secure.verified++
      else if (secure.rejected !== undefined) this.stats.secure.rejected[secure.rejected]++
    }
  }

  private remember(address: string, entry: CacheEntry): void {
    if (this.current.size >= this.cacheSize && !this.current.has(address)) {
      this.old = this.current
      this.current = new Map()
    }
    this.current.set(address, entry)
  }
}
