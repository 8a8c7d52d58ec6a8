/**
 * The two primitives of the private broadcast protocol: one-block AES-128 and CRC-8/MAXIM.
 *
 * Why a hand-written AES: every encrypted frame uses a fresh AES key (the 14-byte broadcast key
 * followed by the frame's random code), so node:crypto would need a new cipher object per
 * frame. That costs several microseconds of native setup, far more than one block of work; a
 * table-based AES in plain JS expands the key and decrypts one block without allocating.
 * It is cross-checked against node:crypto by a property test (test/secure/crypto.test.ts).
 * Identity resolving keys are the other way round: one key for many blocks (every new address
 * heard), so their schedule is expanded once and kept ({@link aes128KeySchedule}).
 *
 * Words are big-endian: byte 0 of a block is the top byte of word 0.
 */

const SBOX = new Uint8Array(256)
const INV_SBOX = new Uint8Array(256)
// Encryption T-tables: SubBytes + MixColumns for one byte, each table a byte rotation of TE0.
const TE0 = new Int32Array(256)
const TE1 = new Int32Array(256)
const TE2 = new Int32Array(256)
const TE3 = new Int32Array(256)
// Decryption T-tables: InvSubBytes + InvMixColumns for one byte.
const TD0 = new Int32Array(256)
const TD1 = new Int32Array(256)
const TD2 = new Int32Array(256)
const TD3 = new Int32Array(256)
// InvMixColumns alone (no S-box), to turn round keys into those of the equivalent inverse cipher.
const IM0 = new Int32Array(256)
const IM1 = new Int32Array(256)
const IM2 = new Int32Array(256)
const IM3 = new Int32Array(256)
const RCON = new Int32Array([0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1b, 0x36].map((r) => (r << 24) >>> 0))

function buildTables(): void {
  // GF(2^8) exp/log tables with generator 3, from which the S-box and the multiplications follow.
  const exp = new Uint8Array(512)
  const log = new Uint8Array(256)
  let x = 1
  for (let i = 0; i < 255; i++) {
    exp[i] = x
    log[x] = i
    x ^= (x << 1) ^ (x & 0x80 ? 0x11b : 0)
    x &= 0xff
  }
  for (let i = 255; i < 512; i++) exp[i] = exp[i - 255]
  const mul = (a: number, b: number): number => (a === 0 || b === 0 ? 0 : exp[log[a] + log[b]])
  for (let i = 0; i < 256; i++) {
    const inv = i === 0 ? 0 : exp[255 - log[i]]
    let s = inv
    let r = inv
    for (let k = 0; k < 4; k++) {
      r = ((r << 1) | (r >> 7)) & 0xff
      s ^= r
    }
    s ^= 0x63
    SBOX[i] = s
    INV_SBOX[s] = i
  }
  for (let i = 0; i < 256; i++) {
    const s = SBOX[i]
    const te = ((mul(s, 2) << 24) | (s << 16) | (s << 8) | mul(s, 3)) >>> 0
    TE0[i] = te
    TE1[i] = ((te >>> 8) | (te << 24)) >>> 0
    TE2[i] = ((te >>> 16) | (te << 16)) >>> 0
    TE3[i] = ((te >>> 24) | (te << 8)) >>> 0
    const im = ((mul(i, 14) << 24) | (mul(i, 9) << 16) | (mul(i, 13) << 8) | mul(i, 11)) >>> 0
    IM0[i] = im
    IM1[i] = ((im >>> 8) | (im << 24)) >>> 0
    IM2[i] = ((im >>> 16) | (im << 16)) >>> 0
    IM3[i] = ((im >>> 24) | (im << 8)) >>> 0
  }
  for (let i = 0; i < 256; i++) {
    const v = INV_SBOX[i]
    TD0[i] = IM0[v]
    TD1[i] = IM1[v]
    TD2[i] = IM2[v]
    TD3[i] = IM3[v]
  }
}
buildTables()

// Scratch space for one key schedule; JS runs one call at a time, so sharing it is safe and
// keeps the per-frame path free of allocations.
const RK = new Int32Array(44)

/** Expands a 128-bit key given as four big-endian words into `rk` (44 words). */
function expandKey(rk: Int32Array, k0: number, k1: number, k2: number, k3: number): void {
  rk[0] = k0
  rk[1] = k1
  rk[2] = k2
  rk[3] = k3
  for (let i = 4, r = 0; i < 44; i += 4, r++) {
    const t = rk[i - 1]
    rk[i] =
      rk[i - 4] ^
      ((SBOX[(t >>> 16) & 255] << 24) | (SBOX[(t >>> 8) & 255] << 16) | (SBOX[t & 255] << 8) | SBOX[t >>> 24]) ^
      RCON[r]
    rk[i + 1] = rk[i - 3] ^ rk[i]
    rk[i + 2] = rk[i - 2] ^ rk[i + 1]
    rk[i + 3] = rk[i - 1] ^ rk[i + 2]
  }
}

function readWord(b: Uint8Array, o: number): number {
  return (b[o] << 24) | (b[o + 1] << 16) | (b[o + 2] << 8) | b[o + 3]
}

function writeWord(b: Uint8Array, o: number, w: number): void {
  b[o] = w >>> 24
  b[o + 1] = (w >>> 16) & 255
  b[o + 2] = (w >>> 8) & 255
  b[o + 3] = w & 255
}

/** Reads a 16-byte AES key as the four big-endian words the block functions take. */
export function keyWords(key: Uint8Array): [number, number, number, number] {
  if (key.length !== 16) throw new RangeError('an AES-128 key is 16 bytes')
  return [readWord(key, 0), readWord(key, 4), readWord(key, 8), readWord(key, 12)]
}

/**
 * AES-128 encryption of one block (ECB, no padding): `input[inOff..+16]` → `out[outOff..+16]`.
 * The key is four big-endian words (see {@link keyWords}); `out` may be `input`.
 */
export function aes128EncryptBlock(
  k0: number,
  k1: number,
  k2: number,
  k3: number,
  input: Uint8Array,
  inOff: number,
  out: Uint8Array,
  outOff: number,
): void {
  expandKey(RK, k0, k1, k2, k3)
  encryptRounds(RK, input, inOff, out, outOff)
}

/**
 * An AES-128 key expanded once for many blocks (see {@link aes128KeySchedule}): a caller that
 * encrypts with the same key again and again (identity resolving keys: one block per key for
 * every new address heard) keeps it instead of paying a key expansion per block.
 */
export interface AesKeySchedule {
  /** @internal The 44 round-key words. */
  readonly words: Int32Array
}

/** Expands a 16-byte AES-128 key (most significant byte first, as FIPS-197 writes keys) once. */
export function aes128KeySchedule(key: Uint8Array): AesKeySchedule {
  const [k0, k1, k2, k3] = keyWords(key)
  const words = new Int32Array(44)
  expandKey(words, k0, k1, k2, k3)
  return { words }
}

/**
 * AES-128 encryption of one block with a key expanded beforehand: `input[inOff..+16]` →
 * `out[outOff..+16]`; `out` may be `input`.
 */
export function aes128EncryptWith(
  schedule: AesKeySchedule,
  input: Uint8Array,
  inOff: number,
  out: Uint8Array,
  outOff: number,
): void {
  encryptRounds(schedule.words, input, inOff, out, outOff)
}

function encryptRounds(rk: Int32Array, input: Uint8Array, inOff: number, out: Uint8Array, outOff: number): void {
  let s0 = readWord(input, inOff) ^ rk[0]
  let s1 = readWord(input, inOff + 4) ^ rk[1]
  let s2 = readWord(input, inOff + 8) ^ rk[2]
  let s3 = readWord(input, inOff + 12) ^ rk[3]
  for (let r = 4; r < 40; r += 4) {
    const t0 = TE0[s0 >>> 24] ^ TE1[(s1 >>> 16) & 255] ^ TE2[(s2 >>> 8) & 255] ^ TE3[s3 & 255] ^ rk[r]
    const t1 = TE0[s1 >>> 24] ^ TE1[(s2 >>> 16) & 255] ^ TE2[(s3 >>> 8) & 255] ^ TE3[s0 & 255] ^ rk[r + 1]
    const t2 = TE0[s2 >>> 24] ^ TE1[(s3 >>> 16) & 255] ^ TE2[(s0 >>> 8) & 255] ^ TE3[s1 & 255] ^ rk[r + 2]
    const t3 = TE0[s3 >>> 24] ^ TE1[(s0 >>> 16) & 255] ^ TE2[(s1 >>> 8) & 255] ^ TE3[s2 & 255] ^ rk[r + 3]
    s0 = t0
    s1 = t1
    s2 = t2
    s3 = t3
  }
  const S = SBOX
  writeWord(
    out,
    outOff,
    ((S[s0 >>> 24] << 24) | (S[(s1 >>> 16) & 255] << 16) | (S[(s2 >>> 8) & 255] << 8) | S[s3 & 255]) ^ rk[40],
  )
  writeWord(
    out,
    outOff + 4,
    ((S[s1 >>> 24] << 24) | (S[(s2 >>> 16) & 255] << 16) | (S[(s3 >>> 8) & 255] << 8) | S[s0 & 255]) ^ rk[41],
  )
  writeWord(
    out,
    outOff + 8,
    ((S[s2 >>> 24] << 24) | (S[(s3 >>> 16) & 255] << 16) | (S[(s0 >>> 8) & 255] << 8) | S[s1 & 255]) ^ rk[42],
  )
  writeWord(
    out,
    outOff + 12,
    ((S[s3 >>> 24] << 24) | (S[(s0 >>> 16) & 255] << 16) | (S[(s1 >>> 8) & 255] << 8) | S[s2 & 255]) ^ rk[43],
  )
}

/** InvMixColumns of one round-key word: the equivalent inverse cipher needs its keys mixed too. */
function invMix(w: number): number {
  return IM0[w >>> 24] ^ IM1[(w >>> 16) & 255] ^ IM2[(w >>> 8) & 255] ^ IM3[w & 255]
}

// Round keys passed through InvMixColumns, for the middle rounds of the inverse cipher.
const DK = new Int32Array(44)

/**
 * Expands the key into RK and, alongside, DK = InvMixColumns(RK). InvMixColumns is linear and
 * all but the first word of each round key are xors of earlier words, so DK follows the same
 * recurrence: one InvMixColumns per round instead of four.
 */
function expandDecryptionKey(k0: number, k1: number, k2: number, k3: number): void {
  const rk = RK
  const dk = DK
  rk[0] = k0
  rk[1] = k1
  rk[2] = k2
  rk[3] = k3
  dk[0] = invMix(k0)
  dk[1] = invMix(k1)
  dk[2] = invMix(k2)
  dk[3] = invMix(k3)
  for (let i = 4, r = 0; i < 44; i += 4, r++) {
    const t = rk[i - 1]
    const g =
      ((SBOX[(t >>> 16) & 255] << 24) | (SBOX[(t >>> 8) & 255] << 16) | (SBOX[t & 255] << 8) | SBOX[t >>> 24]) ^ RCON[r]
    rk[i] = rk[i - 4] ^ g
    rk[i + 1] = rk[i - 3] ^ rk[i]
    rk[i + 2] = rk[i - 2] ^ rk[i + 1]
    rk[i + 3] = rk[i - 1] ^ rk[i + 2]
    dk[i] = dk[i - 4] ^ invMix(g)
    dk[i + 1] = dk[i - 3] ^ dk[i]
    dk[i + 2] = dk[i - 2] ^ dk[i + 1]
    dk[i + 3] = dk[i - 1] ^ dk[i + 2]
  }
}

/**
 * AES-128 decryption of one block (ECB, no padding): `input[inOff..+16]` → `out[outOff..+16]`.
 * The key is four big-endian words (see {@link keyWords}); `out` may be `input`.
 */
export function aes128DecryptBlock(
  k0: number,
  k1: number,
  k2: number,
  k3: number,
  input: Uint8Array,
  inOff: number,
  out: Uint8Array,
  outOff: number,
): void {
  expandDecryptionKey(k0, k1, k2, k3)
  const rk = RK
  const dk = DK
  let s0 = readWord(input, inOff) ^ rk[40]
  let s1 = readWord(input, inOff + 4) ^ rk[41]
  let s2 = readWord(input, inOff + 8) ^ rk[42]
  let s3 = readWord(input, inOff + 12) ^ rk[43]
  for (let r = 36; r > 0; r -= 4) {
    const t0 = TD0[s0 >>> 24] ^ TD1[(s3 >>> 16) & 255] ^ TD2[(s2 >>> 8) & 255] ^ TD3[s1 & 255] ^ dk[r]
    const t1 = TD0[s1 >>> 24] ^ TD1[(s0 >>> 16) & 255] ^ TD2[(s3 >>> 8) & 255] ^ TD3[s2 & 255] ^ dk[r + 1]
    const t2 = TD0[s2 >>> 24] ^ TD1[(s1 >>> 16) & 255] ^ TD2[(s0 >>> 8) & 255] ^ TD3[s3 & 255] ^ dk[r + 2]
    const t3 = TD0[s3 >>> 24] ^ TD1[(s2 >>> 16) & 255] ^ TD2[(s1 >>> 8) & 255] ^ TD3[s0 & 255] ^ dk[r + 3]
    s0 = t0
    s1 = t1
    s2 = t2
    s3 = t3
  }
  const S = INV_SBOX
  writeWord(
    out,
    outOff,
    ((S[s0 >>> 24] << 24) | (S[(s3 >>> 16) & 255] << 16) | (S[(s2 >>> 8) & 255] << 8) | S[s1 & 255]) ^ rk[0],
  )
  writeWord(
    out,
    outOff + 4,
    ((S[s1 >>> 24] << 24) | (S[(s0 >>> 16) & 255] << 16) | (S[(s3 >>> 8) & 255] << 8) | S[s2 & 255]) ^ rk[1],
  )
  writeWord(
    out,
    outOff + 8,
    ((S[s2 >>> 24] << 24) | (S[(s1 >>> 16) & 255] << 16) | (S[(s0 >>> 8) & 255] << 8) | S[s3 & 255]) ^ rk[2],
  )
  writeWord(
    out,
    outOff + 12,
    ((S[s3 >>> 24] << 24) | (S[(s2 >>> 16) & 255] << 16) | (S[(s1 >>> 8) & 255] << 8) | S[s0 & 255]) ^ rk[3],
  )
}

const CRC8_TABLE = new Uint8Array(256)
for (let i = 0; i < 256; i++) {
  let c = i
  for (let k = 0; k < 8; k++) c = c & 1 ? (c >>> 1) ^ 0x8c : c >>> 1
  CRC8_TABLE[i] = c
}

/**
 * CRC-8/MAXIM (Dallas 1-Wire): reflected polynomial 0x8C, init 0, no final xor.
 * Check value: the ASCII bytes of `123456789` give 0xA1.
 */
export function crc8Maxim(data: Uint8Array, start = 0, end = data.length): number {
  let crc = 0
  for (let i = start; i < end; i++) crc = CRC8_TABLE[crc ^ data[i]]
  return crc
}
