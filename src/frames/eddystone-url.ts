/**
 * Eddystone-URL compression: one scheme-prefix byte, then printable ASCII mixed with
 * one-byte expansion codes for common top-level domains (public Eddystone specification).
 */
import { InvalidOptionError } from '../errors.js'

/** Scheme prefix byte 0x00–0x03; any other byte is reserved and makes the frame invalid. */
const SCHEMES: readonly string[] = ['http://www.', 'https://www.', 'http://', 'https://']

/** Expansion codes 0x00–0x0D. The "/"-suffixed forms come first, so the first match is the longest. */
const EXPANSIONS: readonly string[] = [
  '.com/',
  '.org/',
  '.edu/',
  '.net/',
  '.info/',
  '.biz/',
  '.gov/',
  '.com',
  '.org',
  '.edu',
  '.net',
  '.info',
  '.biz',
  '.gov',
]

/** At most 17 encoded bytes fit after the frame type, tx power and scheme bytes. */
export const MAX_ENCODED_URL_BYTES = 17

// One lookup per byte while decoding: an expansion, a printable character, or undefined
// for the reserved ranges 0x0E–0x20 and 0x7F–0xFF (a URL carrying them is rejected whole).
const PIECES: readonly (string | undefined)[] = Array.from({ length: 256 }, (_, b) => {
  if (b < EXPANSIONS.length) return EXPANSIONS[b]
  if (b >= 0x21 && b <= 0x7e) return String.fromCharCode(b)
  return undefined
})

/**
 * Expands `data[start]` (the scheme byte) and the encoded URL bytes after it up to `end`.
 * Returns `null` for a reserved scheme byte or any reserved byte inside the URL.
 */
export function expandUrl(data: Uint8Array, start: number, end: number): string | null {
  const scheme = SCHEMES[data[start] ?? 0xff]
  if (scheme === undefined) return null
  let url = scheme
  for (let i = start + 1; i < end; i++) {
    const piece = PIECES[data[i] ?? 0xff]
    if (piece === undefined) return null
    url += piece
  }
  return url
}

/** Encodes the part after the scheme greedily; optimal because every expansion starts at a '.'. */
function compressRest(rest: string): number[] | null {
  const out: number[] = []
  let i = 0
  while (i < rest.length) {
    let code = -1
    if (rest.charCodeAt(i) === 0x2e) {
      for (let c = 0; c < EXPANSIONS.length; c++) {
        if (rest.startsWith(EXPANSIONS[c] as string, i)) {
          code = c
          break
        }
      }
    }
    if (code >= 0) {
      out.push(code)
      i += (EXPANSIONS[code] as string).length
      continue
    }
    const ch = rest.charCodeAt(i)
    if (ch < 0x21 || ch > 0x7e) return null
    out.push(ch)
    i++
  }
  return out
}

/**
 * Compresses a URL to the scheme byte followed by its encoded bytes, choosing the scheme
 * that gives the shortest encoding ("http://www.info/" is shorter as "http://" + "www" + ".info/").
 * Throws `InvalidOptionError` (`invalid_option`) for a URL that cannot be broadcast.
 */
export function compressUrl(url: string): Uint8Array {
  if (typeof url !== 'string') {
    throw new InvalidOptionError('invalid_option', 'Eddystone url must be a string such as "https://example.com/".', {
      option: 'url',
    })
  }
  let best: number[] | null = null
  let sawScheme = false
  for (let s = 0; s < SCHEMES.length; s++) {
    const scheme = SCHEMES[s] as string
    if (!url.startsWith(scheme)) continue
    sawScheme = true
    const rest = compressRest(url.slice(scheme.length))
    if (rest !== null && (best === null || rest.length + 1 < best.length)) best = [s, ...rest]
  }
  if (!sawScheme) {
    throw new InvalidOptionError(
      'invalid_option',
      'Eddystone url must start with "http://" or "https://" (lower-case); other schemes cannot be broadcast.',
      { option: 'url' },
    )
  }
  if (best === null) {
    throw new InvalidOptionError(
      'invalid_option',
      'Eddystone url may contain only printable ASCII without spaces; percent-encode other characters.',
      { option: 'url' },
    )
  }
  if (best.length - 1 > MAX_ENCODED_URL_BYTES) {
    throw new InvalidOptionError(
      'invalid_option',
      `Eddystone url encodes to ${best.length - 1} bytes after its scheme; at most ${MAX_ENCODED_URL_BYTES} fit. ` +
        'Use a shorter URL (for example a URL shortener).',
      { option: 'url' },
    )
  }
  return Uint8Array.from(best)
}
