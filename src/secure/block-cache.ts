/**
 * A fixed-size memo of recently decrypted frame blocks. A beacon repeats the same encrypted
 * frame (same key id, random code and block) many times between changes, and each repeat would
 * otherwise cost a key expansion and a block decryption. Direct-mapped: a new frame simply
 * overwrites whatever shared its slot, so the memory is fixed (about 37 KB) and never grows.
 *
 * It holds decrypted blocks, never key material; its owner clears it whenever keys change.
 */
import { aes128DecryptBlock } from './crypto.js'
import type { KeyMaterial } from './broadcast-key.js'

const SLOT_BITS = 10
const SLOTS = 1 << SLOT_BITS

/** @internal Owned by one Keyring. */
export class BlockCache {
  // Per slot: key id << 16 | random code, then the four cipher-text words.
  private readonly tags = new Int32Array(SLOTS * 5)
  private readonly plain = new Uint8Array(SLOTS * 16)
  private readonly used = new Uint8Array(SLOTS)

  /** Forgets every entry (after a key was added or removed). */
  clear(): void {
    this.used.fill(0)
  }

  /** Decrypts `payload[7..22]` with `material` and the random code `payload[5..6]` into `out`. */
  decrypt(material: KeyMaterial, keyId: number, payload: Uint8Array, out: Uint8Array): void {
    const rc = (payload[5] << 8) | payload[6]
    const t0 = (keyId << 16) | rc
    const c0 = (payload[7] << 24) | (payload[8] << 16) | (payload[9] << 8) | payload[10]
    const c1 = (payload[11] << 24) | (payload[12] << 16) | (payload[13] << 8) | payload[14]
    const c2 = (payload[15] << 24) | (payload[16] << 16) | (payload[17] << 8) | payload[18]
    const c3 = (payload[19] << 24) | (payload[20] << 16) | (payload[21] << 8) | payload[22]
    const h =
      Math.imul(
        t0 ^
          Math.imul(c0, 0x9e3779b1) ^
          Math.imul(c1, 0x85ebca77) ^
          Math.imul(c2, 0xc2b2ae3d) ^
          Math.imul(c3, 0x27d4eb2f),
        0x165667b1,
      ) >>>
      (32 - SLOT_BITS)
    const tags = this.tags
    const plain = this.plain
    const t = h * 5
    const p = h * 16
    if (
      this.used[h] === 1 &&
      tags[t] === t0 &&
      tags[t + 1] === c0 &&
      tags[t + 2] === c1 &&
      tags[t + 3] === c2 &&
      tags[t + 4] === c3
    ) {
      for (let i = 0; i < 16; i++) out[i] = plain[p + i]
      return
    }
    aes128DecryptBlock(material.w0, material.w1, material.w2, (material.w3hi | rc) >>> 0, payload, 7, out, 0)
    tags[t] = t0
    tags[t + 1] = c0
    tags[t + 2] = c1
    tags[t + 3] = c2
    tags[t + 4] = c3
    for (let i = 0; i < 16; i++) plain[p + i] = out[i]
    this.used[h] = 1
  }
}
