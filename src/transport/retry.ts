/**
 * Retries of idempotent calls to the platform, shared by its clients: which failures are
 * worth another attempt, and the jittered backoff between attempts.
 */
import { AccountError } from '../errors.js'
import type { AccountErrorCode } from '../errors.js'

/** Failures that may pass: no answer, a slow one, a server error, rate limiting. A redirect or a refusal will not. */
const RETRYABLE: ReadonlySet<AccountErrorCode> = new Set(['network', 'timeout', 'server', 'rate_limited'])

/** How often and how patiently to retry. */
export interface RetryPolicy {
  /** Attempts after the first. */
  retries: number
  initialDelayMs: number
  maxDelayMs: number
}

/** The account interface's transient failures: {@link withRetries}' default test. */
export function isTransientAccountError(e: unknown): boolean {
  return e instanceof AccountError && RETRYABLE.has(e.code)
}

/**
 * Runs `attempt` until it succeeds, fails for good, or the retries are used up. `transient`
 * says which failures may pass (the error's `retryAfterSeconds`, when it has one, is honoured).
 */
export async function withRetries<T>(
  attempt: () => Promise<T>,
  policy: RetryPolicy,
  signal?: AbortSignal,
  transient: (e: unknown) => boolean = isTransientAccountError,
): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt()
    } catch (e) {
      if (!transient(e) || n > policy.retries) throw e
      const retryAfterSeconds = (e as { retryAfterSeconds?: number }).retryAfterSeconds ?? 0
      // A server asking for a longer pause than we would ever wait gets its answer to the caller.
      if (retryAfterSeconds * 1000 > policy.maxDelayMs) throw e
      const backoff = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (n - 1))
      const jittered = backoff / 2 + Math.random() * (backoff / 2)
      await sleep(Math.max(jittered, retryAfterSeconds * 1000), signal)
    }
  }
}

function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) {
      reject(new AccountError('aborted', 'the call was aborted while waiting to retry'))
      return
    }
    const onAbort = (): void => {
      clearTimeout(timer)
      reject(new AccountError('aborted', 'the call was aborted while waiting to retry'))
    }
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
