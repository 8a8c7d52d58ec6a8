/**
 * Calling the `sign` hook: it is the user's code and may quote the AppSecret, so whatever it
 * throws or returns wrong is reported without its own words.
 */
import { DeveloperApiError } from '../errors.js'
import type { SignRequest, Signer } from './client-options.js'

/** The headers `sign` adds to `request`. @throws DeveloperApiError `sign_failed` */
export async function signHeaders(sign: Signer, request: SignRequest): Promise<Record<string, string>> {
  const { method, path } = request
  let headers: unknown
  try {
    headers = await sign(request)
  } catch (e) {
    // The hook's own message may quote the AppSecret: only its class name is reported.
    const name = e instanceof Error ? e.name : typeof e
    throw new DeveloperApiError(
      'sign_failed',
      `the sign hook threw (${name}) for ${method} ${path.split('?')[0]}; fix the hook`,
    )
  }
  if (typeof headers !== 'object' || headers === null || !Object.values(headers).every((h) => typeof h === 'string')) {
    throw new DeveloperApiError('sign_failed', 'the sign hook must return an object of header names to string values')
  }
  return headers as Record<string, string>
}
