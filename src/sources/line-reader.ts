/**
 * Lines of a text stream with a bound on their length. Node's readline keeps a line in memory
 * however long it gets: a 512 MB line (or `/dev/zero`, which has none) ends the process with
 * a RangeError. Here a line past the bound is dropped as it streams by and reported as one
 * over-long line, so memory stays at the bound whatever the input.
 */
import type { Readable } from 'node:stream'

/** One line of input: its text, or only its length when it was too long to keep. */
export type InputLine = { text: string } | { tooLong: number } | { notText: string }

const LF = 0x0a
const CR = 0x0d

/**
 * Splits a byte stream into lines at LF, CR LF or a lone CR (as readline does), decoding each
 * line as UTF-8. A line longer than `maxBytes` yields `{ tooLong }` as soon as it passes the
 * bound (not at its end, which may never come), and its rest is skipped up to the next line
 * break. A chunk that is neither text nor bytes (an object-mode stream) yields `{ notText }`.
 */
export async function* readLines(stream: Readable, maxBytes: number): AsyncGenerator<InputLine> {
  /** The current line's bytes so far, in chunks (a line may span many). */
  let parts: Buffer[] = []
  let length = 0
  /** The current line passed the bound: its bytes are being skipped. */
  let skipping = false
  /** The last chunk ended on a CR: a LF starting the next one belongs to it. */
  let afterCR = false
  for await (const chunk of stream as AsyncIterable<unknown>) {
    let buf: Buffer
    if (typeof chunk === 'string') buf = Buffer.from(chunk, 'utf8')
    else if (chunk instanceof Uint8Array) buf = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength)
    else {
      yield { notText: typeof chunk }
      continue
    }
    let start = 0
    if (afterCR && buf.length > 0 && buf[0] === LF) start = 1
    afterCR = false
    // Next LF and CR positions, each searched again only once passed (CR is rare: one search per chunk).
    let lf = -2
    let cr = -2
    while (start <= buf.length) {
      if (lf !== -1 && lf < start) lf = buf.indexOf(LF, start)
      if (cr !== -1 && cr < start) cr = buf.indexOf(CR, start)
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(lf, cr)
      const piece = end === -1 ? buf.length - start : end - start
      if (!skipping) {
        if (length + piece > maxBytes) {
          skipping = true
          yield { tooLong: length + piece }
          parts = []
        } else if (end === -1 && piece > 0) {
          // The line goes on in the next chunk. A copy: the stream may reuse its buffer.
          parts.push(Buffer.from(buf.subarray(start, start + piece)))
        }
      }
      length += piece
      if (end === -1) break
      if (!skipping) {
        // The common case, a whole line inside this chunk, is decoded straight from it.
        if (parts.length === 0) yield { text: buf.toString('utf8', start, end) }
        else {
          parts.push(buf.subarray(start, end))
          yield { text: Buffer.concat(parts, length).toString('utf8') }
        }
      }
      parts = []
      length = 0
      skipping = false
      start = end + 1
      if (buf[end] === CR) {
        if (start < buf.length && buf[start] === LF) start++
        else if (start === buf.length) afterCR = true
      }
      if (start === buf.length) break
    }
  }
  if (!skipping && length > 0) yield { text: Buffer.concat(parts, length).toString('utf8') }
}
