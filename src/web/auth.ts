/**
 * Who may read the map: anyone on this machine when the server listens on loopback only, and
 * otherwise only a client that shows the access token. The token travels in the URL fragment to
 * the page (never sent to the server by the browser), then back as a header, or as a query
 * parameter for the event stream (EventSource cannot set headers).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto'
import { isIP } from 'node:net'
import type { IncomingMessage } from 'node:http'
import { InvalidOptionError } from '../errors.js'

/**
 * The host name of a request's `Host` header (port and brackets as URL parsing leaves them), or
 * undefined when the header is missing, empty or not a host at all: a request the server
 * cannot place is answered 400, never a 500 from a throwing URL parse.
 */
export function requestHostname(header: string | undefined): string | undefined {
  if (header === undefined || header.trim() === '') return undefined
  try {
    const { hostname, pathname, search, username } = new URL(`http://${header}`)
    // `a/b` or `a?b` or `u@h` would parse; none is a Host header.
    if (hostname === '' || pathname !== '/' || search !== '' || username !== '') return undefined
    return hostname
  } catch {
    return undefined
  }
}

/** Whether `host` names only this machine: 127.0.0.0/8, ::1 or `localhost`. */
export function isLoopbackHost(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '').toLowerCase()
  if (h === 'localhost' || h === '::1') return true
  if (isIP(h) === 4) return h.startsWith('127.')
  if (h.startsWith('::ffff:')) return h.slice(7).startsWith('127.')
  return false
}

/** The answer to a request whose `Host` header names no host (400), the same for every server here. */
export const NO_HOST_TEXT = 'the request has no usable Host header (empty or malformed); send Host: 127.0.0.1'

/**
 * Why a server without a token (loopback only) refuses a request, or undefined when it may go on:
 * `no_host` (answer 400) or `not_loopback` (403) — a web site rebinding its DNS name to 127.0.0.1
 * must not reach a loopback server from a visitor's browser. With a token, the token decides.
 */
export function hostRefusal(req: IncomingMessage, token: string | undefined): 'no_host' | 'not_loopback' | undefined {
  if (token !== undefined) return undefined
  const hostname = requestHostname(req.headers.host)
  if (hostname === undefined) return 'no_host'
  return isLoopbackHost(hostname) ? undefined : 'not_loopback'
}

/** A fresh token: 24 random bytes, URL-safe, so it can sit in a fragment or query unescaped. */
export function generateToken(): string {
  return randomBytes(24).toString('base64url')
}

/** Refuses a token a URL would mangle or a guess could find. */
export function checkToken(token: string): string {
  if (!/^[A-Za-z0-9._~-]{16,256}$/.test(token)) {
    throw new InvalidOptionError(
      'invalid_option',
      'the map access token must be 16 to 256 characters of A-Z a-z 0-9 . _ ~ -; leave it out to have one generated',
      { option: 'token' },
    )
  }
  return token
}

/** The token a request shows: `Authorization: Bearer <t>`, else `?token=<t>`. */
function presented(req: IncomingMessage, url: URL): string | undefined {
  const header = req.headers.authorization
  if (typeof header === 'string' && header.startsWith('Bearer ')) return header.slice(7).trim()
  return url.searchParams.get('token') ?? undefined
}

/** Compares in constant time so the answer's timing says nothing of the token. */
export function authorized(req: IncomingMessage, url: URL, token: string | undefined): boolean {
  if (token === undefined) return true
  const given = presented(req, url)
  if (given === undefined) return false
  const a = Buffer.from(given)
  const b = Buffer.from(token)
  return a.length === b.length && timingSafeEqual(a, b)
}
