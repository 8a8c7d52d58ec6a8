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
import type { BeaconFlags, BeaconReading, FrameKind, SecureInfo } from '../reading.js'
import { keyringVersion, type Keyring } from '../secure/keyring.js'
import { createSecureStats, type SecureStats } from '../secure/open.js'
import { decodeFrames, isValidEnvelope, isValidReading, referencePower } from './decode.js'
import { accuracy, checkProximityThresholds, proximity, type ProximityThresholds } from './distance.js'
import { InvalidOptionError } from '../errors.js'
import { flatString } from '../frames/fields.js'
import { InternTable, internFrames } from './intern.js'

/** Options of {@link Decoder}. */
export interface DecoderOptions {
  keyring?: Keyring
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

/**
 * What the decoder remembers of one address: its two latest payloads (fingerprint words,
 * service uuids, reading; `a` the latest, `b` the one before it, the other half of an
 * advertisement / scan-response pair) and its verified serial number. One flat object rather
 * than an object per payload: a repeated packet is answered after loading this object and one
 * word array, where nested slot and key objects cost two more dependent loads (cache misses
 * on a 10,000-address working set) and two more object headers per payload.
 */
class CacheEntry {
  aUuids: readonly string[] | null = null
  /** Reading of the payload (nested members frozen), or its summary once released; null when nothing decoded. */
  aTemplate: BeaconReading | SlotSummary | null = null
  bWords: readonly number[] | undefined = undefined
  bUuids: readonly string[] | null = null
  bTemplate: BeaconReading | SlotSummary | null = null
  /** {@link ScanDecoder} only: the record this address's payloads were last merged into. */
  owner: Versioned | undefined = undefined
  /** {@link ScanDecoder} only: the owner's version when each payload was last merged; -1 for none. */
  aTag = -1
  bTag = -1

  constructor(
    public aWords: readonly number[] | undefined,
    public verifiedSerial: string | undefined,
  ) {}

  /** Makes `key` / `template` the latest payload; the latest becomes the one before it. */
  push(key: PayloadKey, template: BeaconReading | null): void {
    this.bWords = this.aWords
    this.bUuids = this.aUuids
    this.bTemplate = this.aTemplate
    this.bTag = this.aTag
    this.aWords = key.words
    this.aUuids = key.uuids
    this.aTemplate = template
    this.aTag = -1
  }
}

/** A record whose `version` changes whenever merging a reading into it changed something. */
export interface Versioned {
  /** Non-negative while the record is live; a record that was removed sets it to -2 for good. */
  version: number
}

/**
 * What a released cache slot answers a repeat with instead of its reading: what the counters
 * need (frame kinds, the encrypted-frame verdict). Interned, so it costs a beacon nothing.
 */
export class SlotSummary {
  readonly secure: Readonly<Pick<SecureInfo, 'encrypted' | 'verified' | 'rejected'>> | undefined

  constructor(
    readonly frames: readonly FrameKind[],
    secure: SecureInfo | undefined,
  ) {
    this.secure =
      secure === undefined
        ? undefined
        : Object.freeze({ encrypted: secure.encrypted, verified: secure.verified, rejected: secure.rejected })
    Object.freeze(this)
  }
}

/** A decoder with a per-address cache and counters. One per scanner; not shared between threads. */
export class Decoder {
  readonly stats: DecodeStats
  private keyring: Keyring | undefined
  /** The keyring's version the cache was filled under; a key added or removed empties the cache. */
  private keyringSeen = -1
  private readonly cacheSize: number
  private readonly thresholds: ProximityThresholds | undefined
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
    return decodeFrames(adv, {
      keyring: this.keyring,
      expectedSerial: entry?.verifiedSerial,
      stats: secureStats,
      proximityThresholds: this.thresholds,
    })
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

export type { CacheEntry }

const summaries = new InternTable<string, SlotSummary>(1024)

function summarize(t: BeaconReading | SlotSummary | null): SlotSummary | null {
  if (t === null || t instanceof SlotSummary) return t
  const sec = t.secure
  const key =
    sec === undefined ? t.frames.join() : `${t.frames.join()}|${sec.encrypted}|${sec.verified}|${sec.rejected}`
  return summaries.get(key, () => new SlotSummary(internFrames(t.frames), sec))
}

/**
 * Frame lists and flag sets are few (65 orders of the four frame kinds, 729 flag patterns),
 * UUIDs a handful per site: the cache shares one frozen object or flat string per value
 * instead of holding one per remembered payload. The UUID bound keeps random ones from
 * growing the table.
 */
const flagsInterned = new InternTable<number, BeaconFlags>(729)
const uuidsInterned = new InternTable<string, string>(1024)
const FLAG_NAMES = [
  'passwordEnabled',
  'broadcastKeyEnabled',
  'energySaving',
  'aliBeacon',
  'backgroundEnhancement',
  'eddystone',
] as const

function internFlags(flags: BeaconFlags): BeaconFlags {
  // Each member is absent, false or true: a base-3 number names the combination.
  let key = 0
  for (const name of FLAG_NAMES) key = key * 3 + (flags[name] === undefined ? 0 : flags[name] ? 2 : 1)
  return flagsInterned.get(key, () => Object.freeze({ ...flags }))
}

/** A key no advertisement matches, for payloads too long to fingerprint. */
const UNMATCHABLE: PayloadKey = { words: [-1], uuids: null }

/**
 * Nested members are shared by every reading of a repeated payload, so they are frozen. Strings
 * built by concatenation are ropes of cons strings: the proximity UUID (shared by a site's
 * beacons) is interned and the beaconID made one flat string, ~550 bytes less per template. The
 * reading itself is not: spreading a frozen object is several times slower in V8, and
 * `decode()` copies it on every packet; `decodeShared()` hands it out typed read-only.
 */
function freezeNested(r: BeaconReading): BeaconReading {
  r.frames = internFrames(r.frames)
  if (r.proximityUUID !== undefined) {
    const uuid = r.proximityUUID
    r.proximityUUID = uuidsInterned.get(uuid, () => flatString(uuid))
  }
  if (r.beaconID !== undefined) r.beaconID = flatString(r.beaconID)
  if (r.secure !== undefined) Object.freeze(r.secure)
  if (r.flags !== undefined) r.flags = internFlags(r.flags)
  if (r.eddystone !== undefined) {
    for (const part of Object.values(r.eddystone)) Object.freeze(part)
    Object.freeze(r.eddystone)
  }
  return r
}
