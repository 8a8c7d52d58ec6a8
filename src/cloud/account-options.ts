/**
 * What an {@link AccountClient} is created with, what each call may override, and the shapes of
 * its log query and upload answer.
 */
import type { FetchLike } from '../transport/http.js'

/** Options of {@link AccountClient}. */
export interface AccountClientOptions {
  /**
   * The account interface's base URL ({cloud_base_url}); https unless loopback or
   * `allowInsecureHttp`.
   */
  baseUrl: string
  email: string
  /** Kept private: never logged, never in errors, never in inspect or JSON output. */
  password: string
  /** Replaces the global fetch. It must honour `redirect: 'manual'` (redirects are refused). */
  fetch?: FetchLike
  /**
   * Largest answer body read, in bytes; a longer answer is abandoned (its connection closed)
   * with `AccountError` code `response_too_large`. Default 4 MiB.
   */
  maxResponseBytes?: number
  /** Per-attempt limit on waiting for a complete answer. Default 15,000 ms. */
  timeoutMs?: number
  /** Allows plain http to a non-loopback host (credentials travel in the clear). */
  allowInsecureHttp?: boolean
  /** Retries of idempotent calls on network errors, timeouts, 5xx and 429. */
  retry?: { retries?: number; initialDelayMs?: number; maxDelayMs?: number }
}

/** Per-call options. */
export interface CallOptions {
  signal?: AbortSignal
  /** Overrides the client's timeoutMs for this call. */
  timeoutMs?: number
}

/** Query of GET /users/me/beacons/logs. */
export interface BeaconLogQuery {
  /** 0 = uploads by all users, 1 = own uploads, 2 = uploads by own inspectors. */
  type?: 0 | 1 | 2
  /** Time filter, passed through as text (the platform's documentation leaves its meaning open). */
  timestamp?: string | number
  /** Beacon serial number. */
  mac?: string
  /** Page index, from 0. Default 0. */
  page?: number
  /** Page size, 1 to 1000. Default 100. */
  count?: number
}

/** What the server said about an upload. */
export interface UploadResult {
  /** Records in the request. */
  sent: number
  /** Records the server reported new, when it reports it. */
  stored?: number
  /** Records the server reported as already received (same msgId), when it reports it. */
  duplicates?: number
}
