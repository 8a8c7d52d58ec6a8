/**
 * The few protocol buffer primitives the ESPHome native API needs (protobuf wire format:
 * varint, 64-bit, length-delimited and 32-bit fields; zigzag for `sint32`). Input is hostile:
 * every read is bounded by the message it is in, a varint longer than 10 bytes or a length past
 * the end is an error, unknown fields are skipped. Pure: bytes in, values out.
 */

/** Wire types of the protobuf encoding. */
export const WIRE_VARINT = 0
export const WIRE_I64 = 1
export const WIRE_LEN = 2
export const WIRE_I32 = 5

/** A message that does not parse as protobuf (the caller names the device and the message). */
export class ProtoError extends Error {}

/** One field as it appears on the wire. */
export interface ProtoField {
  field: number
  wire: number
}

/** Reads fields from one message's bytes; every read stays inside them. */
export class ProtoReader {
  private pos = 0

  constructor(private readonly buf: Uint8Array) {}

  /** True while fields remain. */
  more(): boolean {
    return this.pos < this.buf.length
  }

  /** The next field's number and wire type. */
  tag(): ProtoField {
    const key = this.varint()
    const field = Math.floor(key / 8)
    if (field === 0) throw new ProtoError('field number 0')
    return { field, wire: key % 8 }
  }

  /**
   * An unsigned varint as a number. Values above 2^53 lose precision, which no field read here
   * cares about (a Bluetooth address is 48 bits); more than 10 bytes is not a varint.
   */
  varint(): number {
    let value = 0
    let scale = 1
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.buf.length) throw new ProtoError('varint runs past the end')
      const b = this.buf[this.pos++]
      value += (b & 0x7f) * scale
      if ((b & 0x80) === 0) return value
      scale *= 128
    }
    throw new ProtoError('varint longer than 10 bytes')
  }

  /** A `sint32` (zigzag) varint. */
  sint32(): number {
    const n = this.varint() % 2 ** 32
    return n % 2 === 0 ? n / 2 : -(n + 1) / 2
  }

  /** A `fixed32`. */
  fixed32(): number {
    if (this.pos + 4 > this.buf.length) throw new ProtoError('fixed32 runs past the end')
    const b = this.buf
    const v = (b[this.pos] | (b[this.pos + 1] << 8) | (b[this.pos + 2] << 16)) + b[this.pos + 3] * 2 ** 24
    this.pos += 4
    return v
  }

  /** A length-delimited field's bytes (a view, not a copy). */
  bytes(): Uint8Array {
    const length = this.varint()
    if (length > this.buf.length - this.pos) throw new ProtoError('length-delimited field runs past the end')
    const out = this.buf.subarray(this.pos, this.pos + length)
    this.pos += length
    return out
  }

  /** A length-delimited field as UTF-8 text. */
  string(): string {
    const b = this.bytes()
    return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('utf8')
  }

  /** Skips a field of this wire type (an unknown or unwanted one). */
  skip(wire: number): void {
    if (wire === WIRE_VARINT) this.varint()
    else if (wire === WIRE_LEN) this.bytes()
    else if (wire === WIRE_I64 || wire === WIRE_I32) {
      const n = wire === WIRE_I64 ? 8 : 4
      if (this.pos + n > this.buf.length) throw new ProtoError('fixed field runs past the end')
      this.pos += n
    } else throw new ProtoError(`wire type ${wire} (groups are not used by the API)`)
  }
}

/** Builds one message's bytes; fields are written in the order they are added. */
export class ProtoWriter {
  private readonly parts: number[] = []
  private readonly chunks: Uint8Array[] = []
  private size = 0

  private flushParts(): void {
    if (this.parts.length === 0) return
    this.chunks.push(Uint8Array.from(this.parts))
    this.size += this.parts.length
    this.parts.length = 0
  }

  private rawVarint(value: number): void {
    let v = Math.floor(value)
    while (v >= 0x80) {
      this.parts.push((v % 128) | 0x80)
      v = Math.floor(v / 128)
    }
    this.parts.push(v)
  }

  /** An unsigned varint field (omitted when zero, as proto3 does). */
  uint(field: number, value: number): this {
    if (value === 0) return this
    this.rawVarint(field * 8 + WIRE_VARINT)
    this.rawVarint(value)
    return this
  }

  /** A `bool` field (omitted when false). */
  bool(field: number, value: boolean): this {
    return this.uint(field, value ? 1 : 0)
  }

  /** A `sint32` field (zigzag; omitted when zero). */
  sint32(field: number, value: number): this {
    return this.uint(field, value >= 0 ? value * 2 : -value * 2 - 1)
  }

  /** A `fixed32` field (omitted when zero). */
  fixed32(field: number, value: number): this {
    if (value === 0) return this
    this.rawVarint(field * 8 + WIRE_I32)
    const v = value >>> 0
    this.parts.push(v & 0xff, (v >>> 8) & 0xff, (v >>> 16) & 0xff, v >>> 24)
    return this
  }

  /** A `bytes` or embedded-message field (omitted when empty). */
  bytes(field: number, value: Uint8Array): this {
    if (value.length === 0) return this
    this.rawVarint(field * 8 + WIRE_LEN)
    this.rawVarint(value.length)
    this.flushParts()
    this.chunks.push(value)
    this.size += value.length
    return this
  }

  /** A `string` field (UTF-8; omitted when empty). */
  string(field: number, value: string): this {
    return this.bytes(field, Buffer.from(value, 'utf8'))
  }

  /** The message's bytes. */
  finish(): Uint8Array {
    this.flushParts()
    if (this.chunks.length === 1) return this.chunks[0]
    const out = new Uint8Array(this.size)
    let at = 0
    for (const c of this.chunks) {
      out.set(c, at)
      at += c.length
    }
    return out
  }
}

/** A varint's bytes on their own (the plaintext frame header uses them outside a message). */
export function encodeVarint(value: number): number[] {
  const out: number[] = []
  let v = Math.floor(value)
  while (v >= 0x80) {
    out.push((v % 128) | 0x80)
    v = Math.floor(v / 128)
  }
  out.push(v)
  return out
}
