/**
 * One request for `/metrics` or `/healthz`, with the map's access rule (auth.ts): with a token,
 * only a request showing it (`Authorization: Bearer`, or `?token=`); without one (loopback), only
 * a request naming a loopback Host, so a web site rebinding its DNS name to 127.0.0.1 cannot
 * read them from a visitor's browser. Shared by the live map's server and the metrics server.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { MetricsEndpoint } from '../metrics/endpoint.js'
import { authorized, hostRefusal, NO_HOST_TEXT } from './auth.js'

function plain(res: ServerResponse, status: number, text: string): void {
  const body = `${text}\n`
  res.writeHead(status, {
    'Content-Type': 'text/plain; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(body)),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  })
  res.end(body)
}

/** Whether `pathname` is one {@link serveMetrics} answers. */
export function isMetricsPath(pathname: string): boolean {
  return pathname === '/metrics' || pathname === '/healthz'
}

/** Answers `req` from `endpoint` (404 for any other path), checking `token` first. */
export async function serveMetrics(
  req: IncomingMessage,
  res: ServerResponse,
  endpoint: MetricsEndpoint,
  token: string | undefined,
): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://metrics.invalid')
  if (req.method !== 'GET' && req.method !== 'HEAD') return plain(res, 405, 'only GET is served here')
  const refusal = hostRefusal(req, token)
  if (refusal === 'no_host') return plain(res, 400, NO_HOST_TEXT)
  if (refusal === 'not_loopback')
    return plain(
      res,
      403,
      'these metrics listen on loopback without a token and answer only requests for localhost or 127.0.0.1',
    )
  if (!isMetricsPath(url.pathname)) return plain(res, 404, 'not found: /metrics and /healthz are served here')
  if (!authorized(req, url, token))
    return plain(res, 401, 'these metrics need the access token: send Authorization: Bearer <token>')
  const answer = await endpoint.respond(url.pathname)
  if (answer === undefined) return plain(res, 404, 'not found')
  res.writeHead(answer.status, {
    'Content-Type': answer.contentType,
    'Content-Length': String(Buffer.byteLength(answer.body)),
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
  })
  res.end(req.method === 'HEAD' ? undefined : answer.body)
}
