/**
 * A compact fingerprint of an advertisement's payload (manufacturer data and service data) and
 * a comparison that checks an advertisement against it without allocating. The caching decoder
 * keeps one per remembered payload: a one-byte string costs a few dozen bytes where copies of
 * the byte arrays and their wrappers cost several hundred.
 */
import type { Advertisement } from './advertisement.js'

/** Returned by the comparison on a difference. */
const DIFFERENT = -1
/** Lengths are stored as length + 1 so that 0 can stand for "absent or not bytes". */
const ABSENT = 0
/** Payloads longer than this are not fingerprinted (BLE allows 255 bytes at most). */
const MAX_LENGTH = 0xfff0

/** A payload's fingerprint: every byte as one char, with lengths, plus the service uuids. */
export interface PayloadKey {
  /** Manufacturer data length + 1 (0 when absent), its bytes, then each element's the same way. */
  readonly bytes: string
  /** Service uuids in order; `null` when `serviceData` was absent or not an array. */
  readonly uuids: readonly string[] | null
}

/** Builds the fingerprint of an advertisement's payload; `null` for an absurdly long one. */
export function payloadKey(adv: Advertisement): PayloadKey | null {
  const parts: number[] = []
  if (!pushBytes(parts, adv.manufacturerData)) return null
  let uuids: string[] | null = null
  const sd = adv.serviceData
  if (Array.isArray(sd)) {
    uuids = []
    for (const e of sd) {
      const valid = typeof e === 'object' && e !== null && typeof e.uuid === 'string' && e.data instanceof Uint8Array
      uuids.push(valid ? e.uuid : '')
      if (!pushBytes(parts, valid ? e.data : undefined)) return null
    }
  }
  let bytes = ''
  // In slices: spreading a very long array into one call would overflow the stack.
  for (let i = 0; i < parts.length; i += 1024) bytes += String.fromCharCode(...parts.slice(i, i + 1024))
  return { bytes, uuids }
}

function pushBytes(parts: number[], b: unknown): boolean {
  if (!(b instanceof Uint8Array)) {
    parts.push(ABSENT)
    return true
  }
  if (b.length > MAX_LENGTH) return false
  parts.push(b.length + 1)
  for (let i = 0; i < b.length; i++) parts.push(b[i])
  return true
}

/** True when the advertisement's payload is exactly the one fingerprinted. */
export function matchesPayloadKey(key: PayloadKey, adv: Advertisement): boolean {
  const s = key.bytes
  let o = matchBytes(s, 0, adv.manufacturerData)
  if (o < 0) return false
  const sd = adv.serviceData
  const uuids = key.uuids
  if (!Array.isArray(sd)) return uuids === null && o === s.length
  if (uuids === null || uuids.length !== sd.length) return false
  for (let i = 0; i < sd.length; i++) {
    const e = sd[i]
    const valid = typeof e === 'object' && e !== null && typeof e.uuid === 'string' && e.data instanceof Uint8Array
    if ((valid ? e.uuid : '') !== uuids[i]) return false
    o = matchBytes(s, o, valid ? e.data : undefined)
    if (o < 0) return false
  }
  return o === s.length
}

/** Compares bytes at `o`; returns the offset after them, or -1 on a difference. */
function matchBytes(s: string, o: number, b: unknown): number {
  if (!(b instanceof Uint8Array)) return s.charCodeAt(o) === ABSENT ? o + 1 : DIFFERENT
  const n = b.length
  if (s.charCodeAt(o) !== n + 1 || o + 1 + n > s.length) return DIFFERENT
  o++
  for (let i = 0; i < n; i++) if (s.charCodeAt(o + i) !== b[i]) return DIFFERENT
  return o + n
}
