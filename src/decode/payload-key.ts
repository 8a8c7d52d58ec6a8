/**
 * A compact fingerprint of an advertisement's payload (manufacturer data and service data) and
 * a comparison that checks an advertisement against it without allocating. The caching decoder
 * keeps one per remembered payload: one array of words instead of copies of every array and object.
 * (A one-byte string would be smaller still, but comparing through charCodeAt measured ~1.7×
 * slower, and this comparison runs on every repeated packet.)
 */
import type { Advertisement } from '../advertisement.js'
import { InternTable } from './intern.js'

/** Returned by the comparison on a difference. */
const DIFFERENT = -1
/** Each part starts with a word holding its length + 1; 0 stands for "absent or not bytes". */
const ABSENT = 0
/** Payloads longer than this are not fingerprinted (BLE allows 255 bytes at most). */
const MAX_LENGTH = 0xfff0

/**
 * A payload's fingerprint: every part's length and bytes, plus the service uuids.
 *
 * The bytes are packed four to a 32-bit word (little-endian, the last word zero-padded): a
 * repeated packet is then checked with one comparison per four bytes instead of four, which
 * measured faster than a byte-wise loop unrolled four times. The words sit in a plain array of
 * small integers: a typed array costs ~250 bytes for 8 words (the view, its buffer and the
 * backing store), a plain array ~110, and the cache holds two per address. (On 32-bit builds,
 * whose small integers have 31 bits, some words are stored as doubles: still exact.)
 */
export interface PayloadKey {
  /** Manufacturer data, then each service-data element: a word of length + 1 (0 when absent), then the packed bytes. */
  readonly words: readonly number[]
  /** Service uuids in order; `null` when `serviceData` was absent or not an array. */
  readonly uuids: readonly string[] | null
}

/** Where fingerprints are packed before their exact-size copy is taken; grows as needed. */
const scratch: number[] = []

/** Builds the fingerprint of an advertisement's payload; `null` for an absurdly long one. */
export function payloadKey(adv: Advertisement): PayloadKey | null {
  const parts: (Uint8Array | undefined)[] = [
    adv.manufacturerData instanceof Uint8Array ? adv.manufacturerData : undefined,
  ]
  let uuids: string[] | null = null
  const sd = adv.serviceData
  if (Array.isArray(sd)) {
    uuids = []
    for (const e of sd) {
      const valid = typeof e === 'object' && e !== null && typeof e.uuid === 'string' && e.data instanceof Uint8Array
      uuids.push(valid ? e.uuid : '')
      parts.push(valid ? e.data : undefined)
    }
  }
  let size = 0
  for (const p of parts) {
    if (p !== undefined && p.length > MAX_LENGTH) return null
    size += 1 + (((p?.length ?? 0) + 3) >> 2)
  }
  // Packed into a scratch array, then copied out: the copy is packed and exactly `size` long.
  // (`new Array(n)` is "holey", and comparisons against it measured slower; an array grown by push
  // keeps ~60 bytes of spare capacity; Array.from measured 20× slower to build.)
  const words = scratch
  for (let i = 0; i < size; i++) words[i] = 0
  let w = 0
  for (const p of parts) {
    words[w++] = p === undefined ? ABSENT : p.length + 1
    if (p === undefined) continue
    for (let i = 0; i < p.length; i++) words[w + (i >> 2)] |= p[i] << ((i & 3) << 3)
    w += (p.length + 3) >> 2
  }
  return { words: words.slice(0, size), uuids: uuids === null ? null : internUuids(uuids) }
}

/**
 * One shared, frozen array per list of service uuids, rather than one per remembered payload
 * (~56 bytes). Nearly every list has one element, keyed by that uuid; longer lists by their
 * JSON text (unambiguous, but slower to build). Beacons use a handful of layouts.
 */
const NO_UUIDS: readonly string[] = Object.freeze([])
const singleLists = new InternTable<string, readonly string[]>(256)
const longerLists = new InternTable<string, readonly string[]>(256)

function internUuids(list: string[]): readonly string[] {
  if (list.length === 0) return NO_UUIDS
  if (list.length === 1) return singleLists.get(list[0], () => Object.freeze(list))
  return longerLists.get(JSON.stringify(list), () => Object.freeze(list))
}

/**
 * True when the advertisement's payload is exactly the one fingerprinted (a {@link PayloadKey}'s
 * `words` and `uuids`, passed apart so a cache can store them without the key object).
 *
 * Nearly every beacon packet is one of two shapes: manufacturer data alone (iBeacon) or one
 * service-data element alone (the vendor frames, Eddystone). Those take a path with a single
 * comparison call, which V8 inlines; every other shape goes the general way. (With a comparison
 * call for each kind of part, V8's inlining budget ran out and one stayed a call.)
 */
export function matchesPayloadKey(k: readonly number[], uuids: readonly string[] | null, adv: Advertisement): boolean {
  const sd = adv.serviceData
  let data: unknown
  let w = 0
  if (sd === undefined) {
    if (uuids !== null) return false
    data = adv.manufacturerData
  } else if (
    adv.manufacturerData === undefined &&
    uuids !== null &&
    uuids.length === 1 &&
    Array.isArray(sd) &&
    sd.length === 1 &&
    k[0] === ABSENT
  ) {
    const e = sd[0]
    if (typeof e !== 'object' || e === null || e.uuid !== uuids[0] || !(e.data instanceof Uint8Array))
      return matchesAnyShape(k, uuids, adv)
    data = e.data
    w = 1
  } else {
    return matchesAnyShape(k, uuids, adv)
  }
  return matchBytes(k, w, data) === k.length
}

/** {@link matchesPayloadKey} for any payload shape, malformed service entries included. */
function matchesAnyShape(k: readonly number[], uuids: readonly string[] | null, adv: Advertisement): boolean {
  let w = matchBytes(k, 0, adv.manufacturerData)
  if (w < 0) return false
  const sd = adv.serviceData
  if (!Array.isArray(sd)) return uuids === null && w === k.length
  if (uuids === null || uuids.length !== sd.length) return false
  for (let i = 0; i < sd.length; i++) {
    const e = sd[i]
    const valid = typeof e === 'object' && e !== null && typeof e.uuid === 'string' && e.data instanceof Uint8Array
    if ((valid ? e.uuid : '') !== uuids[i]) return false
    w = matchBytes(k, w, valid ? e.data : undefined)
    if (w < 0) return false
  }
  return w === k.length
}

/** Compares one part starting at word `w`; returns the word after it, or -1 on a difference. */
function matchBytes(k: readonly number[], w: number, b: unknown): number {
  if (w >= k.length) return DIFFERENT
  const stored = k[w]
  if (!(b instanceof Uint8Array)) return stored === ABSENT ? w + 1 : DIFFERENT
  const n = b.length
  const end = w + 1 + ((n + 3) >> 2)
  if (stored !== n + 1 || end > k.length) return DIFFERENT
  let i = 0
  for (w++; i + 4 <= n; i += 4, w++) {
    if (k[w] !== (b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24))) return DIFFERENT
  }
  if (i < n) {
    // The zero padding of the stored word stands in for the bytes past the end.
    let tail = b[i]
    if (i + 1 < n) tail |= b[i + 1] << 8
    if (i + 2 < n) tail |= b[i + 2] << 16
    if (k[w] !== tail) return DIFFERENT
  }
  return end
}
