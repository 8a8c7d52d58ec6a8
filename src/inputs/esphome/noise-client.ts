/**
 * The client's side of the Noise hello and handshake (esphome/aioesphomeapi
 * _frame_helper/noise.py; the device's side in esphome api_frame_helper.cpp): an empty client
 * hello frame and the first handshake message go at once; the device answers with its server
 * hello (chosen protocol 0x01, its name and, since 2025.4, its MAC, each ending in 0x00) and with
 * its handshake message after a 0x00, or with 0x01 and a reason ("Handshake MAC failure" for a
 * wrong key).
 */
import type { EspHomeErrorCode } from './errors.js'
import { noiseFrame } from './framing.js'
import { NoiseAuthError, NoiseHandshake } from './noise.js'
import type { NoiseCipher } from './noise.js'

/** `NoiseAPIInit` followed by the client hello's 2-byte length and bytes; the hello is empty. */
const PROLOGUE = Buffer.concat([Buffer.from('NoiseAPIInit', 'ascii'), Buffer.from([0, 0])])

/** Printable text of at most 64 characters: what a device says goes into messages, never raw bytes. */
export function safeText(bytes: Uint8Array): string {
  return Buffer.from(bytes)
    .toString('utf8')
    .replace(/[^\x20-\x7e]/g, '?')
    .slice(0, 64)
}

/** What a handshake frame meant. */
export type HandshakeStep =
  | { kind: 'name'; name: string | undefined }
  | { kind: 'done'; ciphers: { send: NoiseCipher; receive: NoiseCipher } }
  | { kind: 'failed'; code: EspHomeErrorCode; message: string }

/** One client handshake; see the file comment. */
export class NoiseClientHandshake {
  private readonly hs: NoiseHandshake
  private gotHello = false

  constructor(key: Uint8Array) {
    this.hs = new NoiseHandshake('initiator', key, PROLOGUE)
  }

  /** The bytes to send on connect: the empty client hello and the first handshake message. */
  start(): Buffer {
    const first = Buffer.concat([Buffer.from([0x00]), this.hs.writeMessage()])
    return Buffer.concat([noiseFrame(new Uint8Array(0)), noiseFrame(first)])
  }

  /** Takes the body of the next frame from the device. */
  frame(body: Buffer): HandshakeStep {
    if (!this.gotHello) {
      if (body.length === 0 || body[0] !== 0x01)
        return { kind: 'failed', code: 'protocol', message: 'the server hello chose no protocol this client knows' }
      this.gotHello = true
      const end = body.indexOf(0, 1)
      return { kind: 'name', name: end > 1 ? safeText(body.subarray(1, end)) : undefined }
    }
    if (body.length === 0) return { kind: 'failed', code: 'protocol', message: 'an empty handshake frame' }
    if (body[0] !== 0x00) {
      const reason = safeText(body.subarray(1))
      if (reason === 'Handshake MAC failure')
        return { kind: 'failed', code: 'wrong_key', message: 'the key is not the device\'s "api: encryption: key:"' }
      return { kind: 'failed', code: 'protocol', message: `the device refused the handshake: ${reason}` }
    }
    try {
      this.hs.readMessage(body.subarray(1))
    } catch (e) {
      if (!(e instanceof NoiseAuthError)) throw e
      return { kind: 'failed', code: 'wrong_key', message: 'the handshake does not authenticate with this key' }
    }
    return { kind: 'done', ciphers: this.hs.split() }
  }
}
