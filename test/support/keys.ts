// Builds valid raw broadcast-key strings (key14 ‖ keyId ‖ SHA-1 digest) for tests.
import { createHash } from 'node:crypto'

/** A raw 40-hex key string for the given 14 key bytes and key id. */
export function rawKeyString(key14: Uint8Array, keyId: number): string {
  const body = Buffer.concat([Buffer.from(key14), Buffer.from([keyId >> 8, keyId & 0xff])])
  const digest = createHash('sha1').update(body).digest().subarray(0, 4)
  return body.toString('hex') + digest.toString('hex')
}
