/**
 * Reading the account interface's answers: arrays however the server wraps them, and shape
 * errors of the records inside as `invalid_response`.
 */
import { AccountError } from '../errors.js'
import { ShapeError } from './records.js'

/** Reads a response body as an array: a bare array, or one wrapped as `{ data: [...] }`. */
export function asArray(body: unknown, what: string): unknown[] {
  if (Array.isArray(body)) return body
  const data = (body as { data?: unknown } | null | undefined)?.data
  if (Array.isArray(data)) return data
  throw new AccountError('invalid_response', `${what}: response must be an array (or { data: [...] })`)
}

/** Runs a parse of an answer, its ShapeError turned into an `invalid_response` AccountError. */
export function checked<T>(what: string, fn: () => T): T {
  try {
    return fn()
  } catch (e) {
    if (e instanceof ShapeError) throw new AccountError('invalid_response', `${what}: response field ${e.message}`)
    throw e
  }
}
