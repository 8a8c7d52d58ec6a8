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

/** Runs `attempt` until it succeeds, fails for good, or the retries are used up. */
export async function withRetries<T>(attempt: () => Promise<T>, policy: RetryPolicy, signal?: AbortSignal): Promise<T> {
  for (let n = 1; ; n++) {
    try {
      return await attempt()
    } catch (e) {
      if (!(e instanceof AccountError) || !RETRYABLE.has(e.code) || n > policy.retries) throw e
      // A server asking for a longer pause than we would ever wait gets its answer to the caller.
      if ((e.retryAfterSeconds ?? 0) * 1000 > policy.maxDelayMs) throw e
      const backoff = Math.min(policy.maxDelayMs, policy.initialDelayMs * 2 ** (n - 1))
      const jittered = backoff / 2 + Math.random() * (backoff / 2)
      await sleep(Math.max(jittered, (e.retryAfterSeconds ?? 0) * 1000), signal)
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
