/**
 * The Noise protocol as the ESPHome native API uses it: `Noise_NNpsk0_25519_ChaChaPoly_SHA256`
 * (esphome/esphome api_frame_helper.cpp `init_handshake_`: pattern NN, modifier psk0, Curve25519,
 * ChaChaPoly, SHA256), the pre-shared key the 32-byte `api: encryption: key:`. Written from the
 * Noise specification (revision 34: sections 5.1–5.3 for the cipher, symmetric and handshake
 * states, 9 for psk modes) on node:crypto's x25519, chacha20-poly1305, sha256 and HMAC.
 *
 *   NNpsk0:  -> psk, e      (client)
 *            <- e, ee       (device)
 *
 * Both roles are here: the client is the initiator, the tests' fake device the responder.
 */
import {
  createCipheriv,
  createDecipheriv,
  createHash,
  createHmac,
  createPublicKey,
  diffieHellman,
  generateKeyPairSync,
} from 'node:crypto'
import type { KeyObject } from 'node:crypto'

const PROTOCOL_NAME = 'Noise_NNpsk0_25519_ChaChaPoly_SHA256'
const DH_LEN = 32
const TAG_LEN = 16
/** The DER prefix of an X25519 SubjectPublicKeyInfo: node:crypto imports raw keys through it. */
const X25519_SPKI_PREFIX = Buffer.from('302a300506032b656e032100', 'hex')
const EMPTY = Buffer.alloc(0)

/** A handshake or transport message that does not authenticate (wrong key, tampered bytes). */
export class NoiseAuthError extends Error {}

function sha256(...parts: Uint8Array[]): Buffer {
  const h = createHash('sha256')
  for (const p of parts) h.update(p)
  return h.digest()
}

function hmac(key: Uint8Array, ...parts: Uint8Array[]): Buffer {
  const h = createHmac('sha256', key)
  for (const p of parts) h.update(p)
  return h.digest()
}

/** Noise's HKDF (Noise section 4.3): two or three outputs of HMAC-SHA256 chained from `ck`. */
function hkdf(ck: Uint8Array, ikm: Uint8Array, n: 2 | 3): Buffer[] {
  const temp = hmac(ck, ikm)
  const o1 = hmac(temp, Uint8Array.of(1))
  const o2 = hmac(temp, o1, Uint8Array.of(2))
  return n === 2 ? [o1, o2] : [o1, o2, hmac(temp, o2, Uint8Array.of(3))]
}

function nonce(n: number): Buffer {
  const b = Buffer.alloc(12)
  b.writeUInt32LE(n % 2 ** 32, 4)
  b.writeUInt32LE(Math.floor(n / 2 ** 32), 8)
  return b
}

function encrypt(key: Uint8Array, n: number, ad: Uint8Array, plaintext: Uint8Array): Buffer {
  const c = createCipheriv('chacha20-poly1305', key, nonce(n), { authTagLength: TAG_LEN })
  c.setAAD(ad, { plaintextLength: plaintext.length })
  const body = c.update(plaintext)
  c.final()
  return Buffer.concat([body, c.getAuthTag()])
}

function decrypt(key: Uint8Array, n: number, ad: Uint8Array, ciphertext: Uint8Array): Buffer {
  if (ciphertext.length < TAG_LEN) throw new NoiseAuthError('ciphertext shorter than its tag')
  const d = createDecipheriv('chacha20-poly1305', key, nonce(n), { authTagLength: TAG_LEN })
  d.setAAD(ad, { plaintextLength: ciphertext.length - TAG_LEN })
  d.setAuthTag(ciphertext.subarray(ciphertext.length - TAG_LEN))
  const body = d.update(ciphertext.subarray(0, ciphertext.length - TAG_LEN))
  try {
    d.final()
  } catch {
    throw new NoiseAuthError('message does not authenticate')
  }
  return body
}

/** One direction of the transport phase: a key and its message counter (Noise section 5.1). */
export class NoiseCipher {
  private n = 0
  /** A session key: #private, so util.inspect never shows it. */
  readonly #key: Buffer

  constructor(key: Buffer) {
    this.#key = key
  }

  /** Encrypts one transport message (no associated data, as ESPHome's frames). */
  encrypt(plaintext: Uint8Array): Buffer {
    return encrypt(this.#key, this.n++, EMPTY, plaintext)
  }

  /** Decrypts one transport message. @throws NoiseAuthError when it does not authenticate. */
  decrypt(ciphertext: Uint8Array): Buffer {
    return decrypt(this.#key, this.n++, EMPTY, ciphertext)
  }
}

/** An X25519 key pair: the private key object and the 32 raw public bytes. */
export interface Ephemeral {
  privateKey: KeyObject
  publicKey: Buffer
}

/** A fresh ephemeral key pair. */
export function generateEphemeral(): Ephemeral {
  const { privateKey, publicKey } = generateKeyPairSync('x25519')
  const der = publicKey.export({ format: 'der', type: 'spki' })
  return { privateKey, publicKey: Buffer.from(der.subarray(der.length - DH_LEN)) }
}

function dh(own: Ephemeral, peer: Uint8Array): Buffer {
  try {
    const publicKey = createPublicKey({ key: Buffer.concat([X25519_SPKI_PREFIX, peer]), format: 'der', type: 'spki' })
    return diffieHellman({ privateKey: own.privateKey, publicKey })
  } catch {
    // A low-order point gives an all-zero secret, which node:crypto refuses: not a peer's key.
    throw new NoiseAuthError('the peer ephemeral key is not a usable X25519 key')
  }
}

/**
 * One NNpsk0 handshake (two messages). The initiator writes then reads; the responder reads
 * then writes; then {@link split} gives the transport ciphers.
 */
export class NoiseHandshake {
  #ck: Buffer
  private h: Buffer
  #k: Buffer | undefined
  private n = 0
  private readonly e: Ephemeral
  private re: Buffer | undefined
  /** The pre-shared key and the chaining state are secrets: #private, never shown by util.inspect. */
  readonly #psk: Buffer

  constructor(
    private readonly role: 'initiator' | 'responder',
    psk: Uint8Array,
    prologue: Uint8Array,
    ephemeral: Ephemeral = generateEphemeral(),
  ) {
    if (psk.length !== 32) throw new RangeError('a Noise pre-shared key is 32 bytes')
    this.e = ephemeral
    // The name is longer than the hash (36 > 32 bytes), so h starts as its hash (Noise section 5.2).
    this.h = sha256(Buffer.from(PROTOCOL_NAME, 'ascii'))
    this.#ck = this.h
    this.mixHash(prologue)
    this.#psk = Buffer.from(psk)
  }

  private mixHash(data: Uint8Array): void {
    this.h = sha256(this.h, data)
  }

  private mixKey(ikm: Uint8Array): void {
    const [ck, k] = hkdf(this.#ck, ikm, 2)
    this.#ck = ck
    this.#k = k
    this.n = 0
  }

  private mixKeyAndHash(ikm: Uint8Array): void {
    const [ck, h, k] = hkdf(this.#ck, ikm, 3)
    this.#ck = ck
    this.mixHash(h)
    this.#k = k
    this.n = 0
  }

  private encryptAndHash(plaintext: Uint8Array): Buffer {
    const out = this.#k === undefined ? Buffer.from(plaintext) : encrypt(this.#k, this.n++, this.h, plaintext)
    this.mixHash(out)
    return out
  }

  private decryptAndHash(ciphertext: Uint8Array): Buffer {
    const out = this.#k === undefined ? Buffer.from(ciphertext) : decrypt(this.#k, this.n++, this.h, ciphertext)
    this.mixHash(ciphertext)
    return out
  }

  /** The `e` token: own ephemeral key out, mixed into h and (psk mode, Noise section 9.2) into the key. */
  private ownE(): Buffer {
    this.mixHash(this.e.publicKey)
    this.mixKey(this.e.publicKey)
    return this.e.publicKey
  }

  private peerE(msg: Uint8Array): void {
    if (msg.length < DH_LEN + TAG_LEN) throw new NoiseAuthError(`handshake message of ${msg.length} bytes is too short`)
    this.re = Buffer.from(msg.subarray(0, DH_LEN))
    this.mixHash(this.re)
    this.mixKey(this.re)
  }

  /** The next handshake message (initiator: message 1; responder: message 2). */
  writeMessage(payload: Uint8Array = EMPTY): Buffer {
    if (this.role === 'initiator') {
      this.mixKeyAndHash(this.#psk)
      const e = this.ownE()
      return Buffer.concat([e, this.encryptAndHash(payload)])
    }
    if (this.re === undefined) throw new Error('the responder reads message 1 first')
    const e = this.ownE()
    this.mixKey(dh(this.e, this.re))
    return Buffer.concat([e, this.encryptAndHash(payload)])
  }

  /** Reads the peer's handshake message; returns its payload. @throws NoiseAuthError on a wrong key. */
  readMessage(msg: Uint8Array): Buffer {
    if (this.role === 'responder') this.mixKeyAndHash(this.#psk)
    this.peerE(msg)
    if (this.role === 'initiator') this.mixKey(dh(this.e, this.re as Buffer))
    return this.decryptAndHash(msg.subarray(DH_LEN))
  }

  /** The transport ciphers once both messages went (Noise section 5.2 Split). */
  split(): { send: NoiseCipher; receive: NoiseCipher } {
    const [k1, k2] = hkdf(this.#ck, EMPTY, 2)
    const [a, b] = [new NoiseCipher(k1.subarray(0, 32)), new NoiseCipher(k2.subarray(0, 32))]
    return this.role === 'initiator' ? { send: a, receive: b } : { send: b, receive: a }
  }
}
