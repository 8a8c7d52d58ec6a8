/**
 * Checks of the options both platform clients (account and developer interface) take, so that
 * the same option is refused with the same words in either.
 */
import { InvalidOptionError } from '../errors.js'
import type { RetryPolicy } from './retry.js'

/** An `InvalidOptionError` naming the option. */
export function invalid(option: string, message: string): InvalidOptionError {
  return new InvalidOptionError('invalid_option', message, { option })
}

/** A positive number of milliseconds, or the fallback when not given. */
export function positiveOr(value: number | undefined, fallback: number, option: string): number {
  if (value === undefined) return fallback
  if (!Number.isFinite(value) || value <= 0)
    throw invalid(option, `${option} must be a positive number of milliseconds`)
  return value
}

/** The `retry` option over its defaults (2 retries, 250 ms doubling up to 4 s). */
export function retryPolicy(retry: Partial<RetryPolicy> | undefined): RetryPolicy {
  const retries = retry?.retries ?? 2
  if (!Number.isInteger(retries) || retries < 0)
    throw invalid('retry.retries', 'retry.retries must be a non-negative integer')
  return {
    retries,
    initialDelayMs: positiveOr(retry?.initialDelayMs, 250, 'retry.initialDelayMs'),
    maxDelayMs: positiveOr(retry?.maxDelayMs, 4_000, 'retry.maxDelayMs'),
  }
}
