/**
 * A platform client's `baseUrl`: checked once, when the client is created, so that no request
 * ever goes to a malformed address or carries credentials in its URL.
 */
import { InvalidOptionError } from '../errors.js'

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]', '::1'])

/** A host name that never leaves this machine: plain http to it exposes nothing. */
export function isLoopback(hostname: string): boolean {
  return LOOPBACK.has(hostname) || /^127\.\d+\.\d+\.\d+$/.test(hostname)
}

/**
 * Checks a client's `baseUrl` (absolute, http or https, no credentials in it) and returns it
 * without a trailing slash, plus whether it is plain http off loopback (the caller decides
 * whether that is allowed). `credentialsWhere` says where credentials go instead.
 */
export function parseBaseUrl(
  text: unknown,
  credentialsWhere: string,
): { baseUrl: string; insecure: boolean; host: string } {
  const invalid = (message: string): InvalidOptionError =>
    new InvalidOptionError('invalid_option', message, { option: 'baseUrl' })
  let url: URL
  try {
    url = new URL(String(text))
  } catch {
    throw invalid('baseUrl must be an absolute URL such as https://cloud.example.com/api')
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw invalid('baseUrl must use https')
  if (url.username !== '' || url.password !== '')
    throw invalid(`put credentials in ${credentialsWhere}, not in baseUrl`)
  return {
    baseUrl: `${url.origin}${url.pathname}`.replace(/\/+$/, ''),
    insecure: url.protocol === 'http:' && !isLoopback(url.hostname),
    host: url.host,
  }
}
