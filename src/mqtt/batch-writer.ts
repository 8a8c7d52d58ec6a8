/**
 * The RSSI batch written straight into bytes. At 10,000 beacons the batch is most of what a
 * gateway's publisher does each second; building it as JavaScript strings (one template per
 * reading, then a join and a UTF-8 encode of ~880 KiB) cost more than everything else in the
 * tick. Here each beacon's `{"id":…,"rssi":` is encoded once, and the numbers are written as
 * ASCII digits into one buffer that is reused from tick to tick.
 */

/** Byte codes of the ASCII characters the writer puts between numbers. */
const MINUS = 0x2d
const DOT = 0x2e
const ZERO = 0x30
/** Above this, an integer's digits are no longer exact in a double: written by String(). */
const EXACT = Number.MAX_SAFE_INTEGER
const NULL = Buffer.from('null', 'latin1')

/** A growing byte buffer of JSON text, reused for every batch (never shared with a caller). */
export class BatchWriter {
  private buf = Buffer.allocUnsafe(64 * 1024)
  private at = 0

  /** Starts a new batch (the bytes of the previous one are overwritten). */
  reset(): void {
    this.at = 0
  }

  /** Bytes written since the last reset. */
  get length(): number {
    return this.at
  }

  /** Room for `n` more bytes. */
  private room(n: number): void {
    if (this.at + n <= this.buf.length) return
    let size = this.buf.length * 2
    while (size < this.at + n) size *= 2
    const bigger = Buffer.allocUnsafe(size)
    this.buf.copy(bigger, 0, 0, this.at)
    this.buf = bigger
  }

  /** Bytes as they are (pre-encoded JSON text). */
  bytes(b: Uint8Array): void {
    this.range(b, 0, b.length)
  }

  /** `n` bytes of `src` from `start` (pre-encoded JSON text, possibly in a shared array). */
  range(src: Uint8Array, start: number, n: number): void {
    this.room(n)
    const buf = this.buf
    const at = this.at
    // Most are a reading's 20-odd bytes, where a loop beats set()'s fixed cost several times over.
    if (n > 64) buf.set(src.subarray(start, start + n), at)
    else for (let i = 0; i < n; i++) buf[at + i] = src[start + i]
    this.at = at + n
  }

  /** One ASCII character. */
  char(code: number): void {
    this.room(1)
    this.buf[this.at++] = code
  }

  /** A number as JSON.stringify writes it: integers digit by digit, others through String(). */
  number(x: number): void {
    if (Number.isInteger(x) && Math.abs(x) <= EXACT) this.integer(x)
    else if (Number.isFinite(x)) this.ascii(String(x))
    else this.bytes(NULL)
  }

  /**
   * `x` rounded to a tenth, as JSON.stringify writes `Math.round(x * 10) / 10` (no trailing
   * `.0`), without making the double or its string.
   */
  tenths(x: number): void {
    const n = Math.round(x * 10)
    if (!Number.isFinite(n) || Math.abs(n) > EXACT) {
      this.number(n / 10)
      return
    }
    const abs = Math.abs(n)
    const whole = Math.floor(abs / 10)
    const tenth = abs - whole * 10
    // -0.04 rounds to -0, which JSON writes as 0.
    if (n < 0) this.char(MINUS)
    this.integer(whole)
    if (tenth !== 0) {
      this.room(2)
      this.buf[this.at++] = DOT
      this.buf[this.at++] = ZERO + tenth
    }
  }

  /** A safe integer's digits (a leading minus when negative; -0 as 0). */
  private integer(x: number): void {
    let v = x
    if (v < 0) {
      this.char(MINUS)
      v = -v
    }
    // 16 digits cover every safe integer.
    this.room(16)
    let digits = 1
    for (let p = 10; p <= v; p *= 10) digits++
    let i = this.at + digits
    this.at = i
    do {
      const q = Math.floor(v / 10)
      this.buf[--i] = ZERO + (v - q * 10)
      v = q
    } while (v > 0)
  }

  /** Text known to be ASCII (a number's String()). */
  private ascii(s: string): void {
    this.room(s.length)
    this.at += this.buf.write(s, this.at, 'latin1')
  }

  /** A copy of what was written since the last reset: the caller's to keep (the buffer is reused). */
  take(): Buffer {
    return Buffer.from(this.buf.subarray(0, this.at))
  }
}
