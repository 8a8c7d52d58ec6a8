/**
 * Opening and sealing the AES block of an encrypted 0x81E7 frame (docs/private-broadcast.md):
 * decrypt with the keyring, then accept the block only if its CRC-8 matches and its fields are
 * plausible. The frame decoder reads the fields from the returned block.
 */
import { InvalidOptionError } from '../errors.js'
import { HEX_LOWER } from '../util/hex.js'
import type { RejectReason } from '../reading.js'
import { keyMaterial } from './broadcast-key.js'
import type { BroadcastKey } from './broadcast-key.js'
import { aes128EncryptBlock, crc8Maxim } from './crypto.js'
import { decryptFrameBlock } from './keyring.js'
import type { Keyring } from './keyring.js'

/** Which block a frame carries: `identity` for modes 0x10/0x41, `sensors` for 0x20/0x42. */
export type BlockLayout = 'identity' | 'sensors'

/** Counters of encrypted frames, by outcome. */
export interface SecureStats {
  /** Frames decrypted with a configured key (verified or not). */
  decrypted: number
  /** Frames that passed CRC, plausibility and serial checks. */
  verified: number
  /** Frames not accepted, by the first check that failed. */
  rejected: Record<RejectReason, number>
}

/** A zeroed {@link SecureStats}. */
export function createSecureStats(): SecureStats {
  return { decrypted: 0, verified: 0, rejected: { no_key: 0, crc: 0, implausible: 0, serial_mismatch: 0, length: 0 } }
}

/** The outcome of {@link openE781Block}. */
export type OpenedBlock =
  { verified: true; keyId: string; block: Uint8Array } | { verified: false; keyId: string; reason: RejectReason }

/** Options of {@link openE781Block}. */
export interface OpenOptions {
  /** Serial number already verified for this address (12 hex digits, e.g. `0117C5456A36`). */
  expectedSerial?: string
  /** Counters to update. */
  stats?: SecureStats
}

/** Bytes an encrypted 0x81E7 payload needs: header 7 + one AES block. */
export const ENCRYPTED_PAYLOAD_LENGTH = 23

const LOWER_HEX_CODES = Array.from('0123456789abcdef', (c) => c.charCodeAt(0))
const SERIAL_PREFIX = '0117c5'
// Decryption target for frames that turn out unverified, so rejects allocate nothing.
const scratch = new Uint8Array(16)

/**
 * Decrypts and verifies the AES block of an encrypted 0x81E7 payload (the service data after
 * its uuid). Returns the 16 decrypted bytes only when the frame verified; otherwise the first
 * failed check: `length` (payload < 23 bytes), `no_key` (no keyring or no key for the frame's
 * key id), `crc`, `implausible`, `serial_mismatch` (differs from `expectedSerial`).
 * Never throws on any payload.
 */
export function openE781Block(
  keyring: Keyring | undefined,
  payload: Uint8Array,
  layout: BlockLayout,
  opts: OpenOptions = {},
): OpenedBlock {
  const stats = opts.stats
  const keyId = payload.length >= 5 ? HEX_LOWER[payload[3]] + HEX_LOWER[payload[4]] : '0000'
  if (payload.length < ENCRYPTED_PAYLOAD_LENGTH) return reject(keyId, 'length', stats)
  const id = (payload[3] << 8) | payload[4]
  if (keyring === undefined || id === 0 || !decryptFrameBlock(keyring, id, payload, scratch)) {
    return reject(keyId, 'no_key', stats)
  }
  if (stats !== undefined) stats.decrypted++
  const b = scratch
  if (crc8Maxim(b, 0, 3) !== b[15]) return reject(keyId, 'crc', stats)
  if (!plausible(b, layout)) return reject(keyId, 'implausible', stats)
  if (opts.expectedSerial !== undefined && !serialMatches(b, opts.expectedSerial)) {
    return reject(keyId, 'serial_mismatch', stats)
  }
  if (stats !== undefined) stats.verified++
  return { verified: true, keyId, block: b.slice() }
}

function reject(keyId: string, reason: RejectReason, stats: SecureStats | undefined): OpenedBlock {
  if (stats !== undefined) stats.rejected[reason]++
  return { verified: false, keyId, reason }
}

/**
 * The plausibility checks (docs/private-broadcast.md) at the decrypted-block offsets of the
 * 0x81E7 tables (docs/protocol.md): battery ≤ 100, transmit-power level ≤ 11, interval index ≤ 9,
 * measured power −110..−20 dBm, and (sensors) a moving state of 0, 1 or 0xFF. A random block
 * passes CRC 1 time in 256; these cut that to about 2.6e-4 (identity) and 3e-6 (sensors).
 */
function plausible(b: Uint8Array, layout: BlockLayout): boolean {
  const o = layout === 'identity' ? IDENTITY : SENSORS
  if (b[o.battery] > 100) return false
  const a = b[o.bitFieldA]
  if (a >> 4 > 11 || (a & 0x0f) > 9) return false
  const mp = (b[o.measuredPower] << 24) >> 24
  if (mp < -110 || mp > -20) return false
  if (o.movingState >= 0) {
    const m = b[o.movingState]
    if (m !== 0 && m !== 1 && m !== 0xff) return false
  }
  return true
}

const IDENTITY = { battery: 10, bitFieldA: 11, measuredPower: 13, movingState: -1 }
const SENSORS = { battery: 3, bitFieldA: 4, measuredPower: 12, movingState: 11 }

/** Compares block bytes 0..2 (as serial "0117C5xxxxxx") with a 12-hex serial, any case, no allocation. */
function serialMatches(b: Uint8Array, serial: string): boolean {
  if (serial.length !== 12) return false
  for (let i = 0; i < 6; i++) {
    if ((serial.charCodeAt(i) | 0x20) !== SERIAL_PREFIX.charCodeAt(i)) return false
  }
  for (let i = 0; i < 3; i++) {
    if ((serial.charCodeAt(6 + 2 * i) | 0x20) !== LOWER_HEX_CODES[b[i] >> 4]) return false
    if ((serial.charCodeAt(7 + 2 * i) | 0x20) !== LOWER_HEX_CODES[b[i] & 0x0f]) return false
  }
  return true
}

/**
 * Encrypts a 16-byte plaintext block for an encrypted 0x81E7 frame: writes the CRC-8 of bytes
 * 0..2 into byte 15 (of a copy; `plain` is not changed) and encrypts with the key and the
 * random code (the big-endian u16 that goes into payload bytes 5..6). Returns the 16 bytes
 * for payload[7..22].
 * @throws InvalidOptionError for a block that is not 16 bytes or a random code outside 0..65535.
 */
export function sealE781Block(key: BroadcastKey, randomCode: number, plain: Uint8Array): Uint8Array {
  if (!(plain instanceof Uint8Array) || plain.length !== 16) {
    throw new InvalidOptionError('invalid_option', 'An encrypted 0x81E7 block is exactly 16 bytes.', {
      option: 'block',
    })
  }
  if (!Number.isInteger(randomCode) || randomCode < 0 || randomCode > 0xffff) {
    throw new InvalidOptionError(
      'invalid_option',
      `The random code is a 16-bit number (0..65535); got ${randomCode}.`,
      {
        option: 'randomCode',
      },
    )
  }
  const m = keyMaterial(key)
  const block = Uint8Array.from(plain)
  block[15] = crc8Maxim(block, 0, 3)
  aes128EncryptBlock(m.w0, m.w1, m.w2, (m.w3hi | randomCode) >>> 0, block, 0, block, 0)
  return block
}
