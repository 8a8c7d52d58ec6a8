/**
 * What the {@link Decoder} remembers of one address, and the summary a released slot answers a
 * repeat with (see ScanDecoder). Its shape is measured: see decoder.ts.
 */
import type { PayloadKey } from './payload-key.js'
import type { BeaconReading, FrameKind, SecureInfo } from '../reading.js'
import { InternTable, internFrames } from './intern.js'

/**
 * What the decoder remembers of one address: its two latest payloads (fingerprint words,
 * service uuids, reading; `a` the latest, `b` the one before it, the other half of an
 * advertisement / scan-response pair) and its verified serial number. One flat object rather
 * than an object per payload: a repeated packet is answered after loading this object and one
 * word array, where nested slot and key objects cost two more dependent loads (cache misses
 * on a 10,000-address working set) and two more object headers per payload.
 */
export class CacheEntry {
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

const summaries = new InternTable<string, SlotSummary>(1024)

/** What a released slot keeps of its reading: the shared summary of its frames and verdict. */
export function summarize(t: BeaconReading | SlotSummary | null): SlotSummary | null {
  if (t === null || t instanceof SlotSummary) return t
  const sec = t.secure
  const key =
    sec === undefined ? t.frames.join() : `${t.frames.join()}|${sec.encrypted}|${sec.verified}|${sec.rejected}`
  return summaries.get(key, () => new SlotSummary(internFrames(t.frames), sec))
}
