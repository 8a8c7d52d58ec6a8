/**
 * The webhook receiver's HTTP plumbing: reading a bounded body, answering in the platform's
 * `{ messages }` shape, and bounding how long a handler may hold a push.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

/** What {@link settleWithin} rejects with when time is up. */
export const TIMED_OUT = Symbol('timed out')

/** `work`, or a rejection with {@link TIMED_OUT} after `ms`; the timer never outlives the answer. */
export function settleWithin(work: Promise<void>, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(TIMED_OUT), ms)
    work.then(
      () => {
        clearTimeout(timer)
        resolve()
      },
      (error: unknown) => {
        clearTimeout(timer)
        reject(error)
      },
    )
  })
}

/** Answers once, as the platform expects: a JSON body `{ messages }`. */
export function reply(
  res: ServerResponse,
  status: number,
  messages: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return
  const body = JSON.stringify({ messages })
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...headers })
  res.end(body)
}

/** Reads the body up to `limit` bytes; undefined when it is longer (the rest is discarded). */
export function readBody(req: IncomingMessage, limit: number): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'])
    if (Number.isFinite(declared) && declared > limit) {
      req.resume()
      resolve(undefined)
      return
    }
    const chunks: Buffer[] = []
    let size = 0
    let over = false
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size > limit) over = true
      if (!over) chunks.push(c)
    })
    req.on('end', () => resolve(over ? undefined : Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
    req.on('close', () => {
      if (!req.complete) reject(new Error('the sender closed the connection before the body ended'))
    })
  })
}
