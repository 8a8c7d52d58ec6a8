/**
 * The two framings of the ESPHome native API (esphome/esphome api_frame_helper.cpp; the client
 * side in esphome/aioesphomeapi _frame_helper/plain_text.py and noise.py):
 * - plaintext: `0x00`, varint payload length, varint message type, payload;
 * - Noise: `0x01`, 2-byte big-endian length, that many bytes (a handshake message, or once
 *   encrypted: 2-byte type, 2-byte payload length, payload, padding).
 * A reader collects the bytes of one connection and hands out whole frames, bounded: a frame
 * claiming more than `maxFrame` is an error before a byte of it is kept, and nothing of the
 * claimed size is allocated.
 */
import { encodeVarint } from './protobuf.js'

/**
 * The largest frame accepted: 65535 bytes. The Noise length field is 16 bits, the firmware's own
 * frame helpers and buffers are sized by uint16 lengths, and aioesphomeapi caps plaintext frames
 * at the same `MAX_PLAINTEXT_FRAME_SIZE = 65535` (plain_text.py). The largest message a proxy
 * sends is a raw batch of 16 advertisements of at most 62 bytes (about 1.4 KiB); a claim past
 * 64 KiB (a 16 MB frame) is not the API.
 */
export const MAX_FRAME = 65535

/** Which framing a connection speaks. */
export type Framing = 'plaintext' | 'noise'

/** Why bytes are not a frame of this framing. */
export type FrameErrorCode = 'encryption_mismatch' | 'protocol' | 'frame_too_large'

/** Bytes that are not a frame (the connection names the device when it reports it). */
export class FrameError extends Error {
  constructor(
    readonly code: FrameErrorCode,
    message: string,
  ) {
    super(message)
  }
}

/** One frame: plaintext frames have a message type; Noise frames are the bytes after the header. */
export interface Frame {
  type: number
  payload: Buffer
}

/** Longest varint of the plaintext header: a 16-bit length or type needs 3 bytes; 5 holds 32 bits. */
const MAX_HEADER_VARINT = 5

/** Collects one connection's bytes and cuts them into frames. */
export class FrameReader {
  private buf: Buffer = Buffer.alloc(0)

  constructor(
    private framing: Framing,
    private readonly maxFrame: number = MAX_FRAME,
  ) {}

  /** Switches framing (never needed mid-stream by the API; kept for the fake device's tests). */
  set mode(framing: Framing) {
    this.framing = framing
  }

  /** Bytes held for a frame not complete yet. */
  get pending(): number {
    return this.buf.length
  }

  /** Adds received bytes. */
  push(chunk: Buffer): void {
    this.buf = this.buf.length === 0 ? chunk : Buffer.concat([this.buf, chunk])
  }

  /** The next whole frame, or undefined until more bytes arrive. @throws FrameError */
  next(): Frame | undefined {
    const b = this.buf
    if (b.length === 0) return undefined
    const preamble = b[0]
    const own = this.framing === 'plaintext' ? 0x00 : 0x01
    if (preamble !== own) {
      if (preamble === 0x01)
        throw new FrameError('encryption_mismatch', 'the device requires encryption (api: encryption: key:)')
      if (preamble === 0x00)
        throw new FrameError('encryption_mismatch', 'the device speaks plaintext (no encryption key)')
      throw new FrameError(
        'protocol',
        `not the ESPHome native API (first byte 0x${preamble.toString(16).padStart(2, '0')})`,
      )
    }
    return this.framing === 'plaintext' ? this.nextPlain(b) : this.nextNoise(b)
  }

  private nextNoise(b: Buffer): Frame | undefined {
    if (b.length < 3) return undefined
    const length = (b[1] << 8) | b[2]
    if (length > this.maxFrame) throw this.tooLarge(length)
    if (b.length < 3 + length) return undefined
    return this.take(3, length, -1)
  }

  private nextPlain(b: Buffer): Frame | undefined {
    const length = this.varint(b, 1)
    if (length === undefined) return undefined
    if (length.value > this.maxFrame) throw this.tooLarge(length.value)
    const type = this.varint(b, length.end)
    if (type === undefined) return undefined
    if (type.value > 0xffff) throw new FrameError('protocol', `message type ${type.value} is not one of the API`)
    if (b.length < type.end + length.value) return undefined
    return this.take(type.end, length.value, type.value)
  }

  private tooLarge(length: number): FrameError {
    return new FrameError(
      'frame_too_large',
      `a frame of ${length} bytes is larger than the API's ${this.maxFrame}-byte limit: ` +
        "not a Bluetooth proxy's message",
    )
  }

  /** A varint at `at`: its value and where it ends, or undefined when incomplete. */
  private varint(b: Buffer, at: number): { value: number; end: number } | undefined {
    let value = 0
    let scale = 1
    for (let i = 0; i < MAX_HEADER_VARINT; i++) {
      if (at + i >= b.length) return undefined
      const byte = b[at + i]
      value += (byte & 0x7f) * scale
      if ((byte & 0x80) === 0) return { value, end: at + i + 1 }
      scale *= 128
    }
    throw new FrameError('protocol', 'a frame header varint longer than 5 bytes')
  }

  private take(start: number, length: number, type: number): Frame {
    const payload = this.buf.subarray(start, start + length)
    const rest = this.buf.subarray(start + length)
    // Copy the rest so one large chunk is not kept alive by its last few bytes.
    this.buf = rest.length === 0 ? Buffer.alloc(0) : Buffer.from(rest)
    return { type, payload }
  }
}

/** A plaintext frame. */
export function plainFrame(type: number, payload: Uint8Array): Buffer {
  return Buffer.concat([Buffer.from([0x00, ...encodeVarint(payload.length), ...encodeVarint(type)]), payload])
}

/** A Noise frame around `body` (at most 65535 bytes). */
export function noiseFrame(body: Uint8Array): Buffer {
  if (body.length > 0xffff) throw new RangeError('a Noise frame holds at most 65535 bytes')
  return Buffer.concat([Buffer.from([0x01, body.length >> 8, body.length & 0xff]), body])
}

/** The plaintext inside an encrypted Noise data frame: 2-byte type, 2-byte length, payload. */
export function noiseMessage(type: number, payload: Uint8Array): Buffer {
  const head = Buffer.from([type >> 8, type & 0xff, payload.length >> 8, payload.length & 0xff])
  return Buffer.concat([head, payload])
}

/** Reads a decrypted Noise data frame. @throws FrameError when it is too short or its length lies. */
export function readNoiseMessage(plain: Buffer): Frame {
  if (plain.length < 4) throw new FrameError('protocol', `a decrypted message of ${plain.length} bytes is too short`)
  const type = (plain[0] << 8) | plain[1]
  const length = (plain[2] << 8) | plain[3]
  if (length > plain.length - 4) throw new FrameError('protocol', 'a decrypted message claims more bytes than it has')
  return { type, payload: plain.subarray(4, 4 + length) }
}
