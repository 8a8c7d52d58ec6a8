/**
 * Reading a response body without trusting its size: a hostile or broken server (or a proxy
 * in between) can send an endless answer, and buffering it would exhaust a small gateway's
 * memory long before any timeout.
 */

/** What {@link readCapped} read. */
export interface CappedBody {
  text: string
  /** The body was longer than the limit; `text` holds only its start. */
  truncated: boolean
}

/**
 * Reads at most `limit` bytes of `res`'s body as UTF-8. Past the limit it stops reading and
 * cancels the stream (the caller aborts the request, which closes the connection).
 */
export async function readCapped(res: Response, limit: number): Promise<CappedBody> {
  const body = res.body
  if (body === null) return { text: '', truncated: false }
  const declared = Number(res.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > limit) {
    await discardBody(res)
    return { text: '', truncated: true }
  }
  const reader = body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    if (size + value.byteLength > limit) {
      chunks.push(value.subarray(0, limit - size))
      size = limit
      await reader.cancel().catch(() => undefined)
      return { text: decode(chunks, size), truncated: true }
    }
    chunks.push(value)
    size += value.byteLength
  }
  return { text: decode(chunks, size), truncated: false }
}

/** Drops a body that will not be read, so its connection does not linger. */
export async function discardBody(res: Response): Promise<void> {
  await res.body?.cancel().catch(() => undefined)
}

function decode(chunks: Uint8Array[], size: number): string {
  return Buffer.concat(chunks, size).toString('utf8')
}
