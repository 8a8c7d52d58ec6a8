/**
 * A request body read with a byte limit: kept in memory up to the limit, beyond it dropped while
 * the rest is drained (so the client can still read the 413), and the connection ended when a
 * client sends far more than the limit (it would otherwise cost the bandwidth of its choosing).
 */
import type { IncomingMessage } from 'node:http'

/** The body, or `too_large` when it is over `limit` bytes. */
export function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too_large'> {
  const declared = Number(req.headers['content-length'])
  // Drained at most this far; a client beyond is cut off.
  const drainLimit = limit * 2 + 1024 * 1024
  if (Number.isFinite(declared) && declared > drainLimit) return Promise.resolve('too_large')
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let over = Number.isFinite(declared) && declared > limit
    req.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > limit) over = true
      if (!over) chunks.push(chunk)
      else chunks.length = 0
      if (size > drainLimit) {
        req.destroy()
        resolve('too_large')
      }
    })
    req.on('end', () => resolve(over ? 'too_large' : Buffer.concat(chunks)))
    req.on('error', reject)
  })
}
