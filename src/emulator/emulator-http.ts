/**
 * The emulator's HTTP plumbing: request bodies with a limit, JSON answers, and query and path
 * parsing that turns a client's mistake into a 400 with a JSON error instead of a 500.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

/** An answer other than 2xx, sent as `{ code, message }`. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code: string,
  ) {
    super(message)
  }
}

/** Reads a request body of at most `limit` bytes (413 past it). */
export function readBody(req: IncomingMessage, limit: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    req.on('data', (c: Buffer) => {
      size += c.length
      if (size > limit) {
        reject(new HttpError(413, `body larger than ${limit} bytes; send smaller batches`, 'too_large'))
        req.resume()
        return
      }
      chunks.push(c)
    })
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    req.on('error', reject)
    // A client that gave up mid-body (its timeout) leaves nothing to answer.
    req.on('close', () => {
      if (!req.complete) reject(new HttpError(400, 'request body incomplete', 'incomplete'))
    })
  })
}

/** Sends `body` as JSON. */
export function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body)
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text), ...headers })
  res.end(text)
}

/** An integer query parameter within bounds (400 otherwise), or `fallback` when absent. */
export function intParam(params: URLSearchParams, name: string, fallback: number, min: number, max: number): number {
  const raw = params.get(name)
  if (raw === null) return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < min || n > max)
    throw new HttpError(400, `${name} must be an integer from ${min} to ${max}`, 'bad_param')
  return n
}

/** Reads the emulator's `timestamp` filter: ms since the epoch, or an ISO 8601 date; logs at or after it. */
export function sinceParam(params: URLSearchParams): number | undefined {
  const raw = params.get('timestamp')
  if (raw === null || raw === '') return undefined
  const n = /^\d+$/.test(raw) ? Number(raw) : Date.parse(raw)
  if (Number.isNaN(n))
    throw new HttpError(400, 'timestamp must be milliseconds since the epoch or an ISO 8601 date', 'bad_param')
  return n
}

/** Decodes one %-escaped path segment; a malformed escape is the client's error, not ours. */
export function pathSegment(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    throw new HttpError(400, 'the path has a malformed %-escape; encode it with encodeURIComponent', 'bad_escape')
  }
}
