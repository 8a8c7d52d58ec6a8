/**
 * The webhook receiver's memory of messages already taken: a bounded, insertion-ordered set of
 * fixed-size digests. A key is built from fields the sender chooses (appId, msgId), so it is
 * never kept as sent: whatever its length, an entry costs the same few dozen bytes, and the
 * oldest entry goes once `maxEntries` are kept. Memory is bounded in entries and in bytes.
 */
import { createHash } from 'node:crypto'

/** Characters of one stored digest (SHA-256, base64url without padding). */
export const DIGEST_CHARS = 43

/** The fixed-size digest a de-dup key is kept as; distinct keys collide with negligible chance. */
export function dedupDigest(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('base64url')
}

/** Bounded set of digests, oldest first (see the file comment). */
export class DedupKeys {
  // A Set keeps insertion order: its first value is the oldest.
  private readonly keys = new Set<string>()

  constructor(private readonly maxEntries: number) {}

  /** Entries kept (at most `maxEntries`). */
  get size(): number {
    return this.keys.size
  }

  /** Characters held by the stored keys: at most `maxEntries * DIGEST_CHARS`, whatever the keys' length. */
  get keyChars(): number {
    let n = 0
    for (const k of this.keys) n += k.length
    return n
  }

  /** Whether the digest of `key` (from {@link dedupDigest}) is kept. */
  has(digest: string): boolean {
    return this.keys.has(digest)
  }

  /** Keeps a digest, forgetting the oldest beyond the bound. */
  add(digest: string): void {
    if (digest.length !== DIGEST_CHARS) throw new RangeError('DedupKeys keeps digests from dedupDigest() only')
    this.keys.add(digest)
    if (this.keys.size > this.maxEntries) this.keys.delete(this.keys.values().next().value as string)
  }
}
