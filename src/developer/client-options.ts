/**
 * What a {@link DeveloperClient} is created with (and each call may override), and the shape of
 * the `sign` hook that authenticates its requests.
 */
import type { FetchLike } from '../transport/http.js'

/** What a `sign` hook gets: the request exactly as it will be sent. */
export interface SignRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE'
  /** Path and query below baseUrl, e.g. `/developers/device/list?page=1&count=20`. */
  path: string
  /** The whole URL. */
  url: string
  /** The exact JSON body that will be sent; `''` when there is none. */
  body: string
  /** The client's `appId`, when given. */
  appId?: string
}

/**
 * Adds authentication to a request: returns the headers to send (e.g. a signature made with
 * the AppSecret). The platform's scheme is not published in the spec (part 5): plug yours in
 * here. Called again for every attempt, so a timestamp or nonce is fresh each time.
 */
export type Signer = (request: SignRequest) => Record<string, string> | Promise<Record<string, string>>

/** Options of {@link DeveloperClient}. */
export interface DeveloperClientOptions {
  /**
   * The developer interface's base URL ({base_url}; paths below it start with `/developers`);
   * https unless loopback or `allowInsecureHttp`.
   */
  baseUrl: string
  /** The AppID, handed to `sign`. */
  appId?: string
  /** Authentication hook; without it requests go unsigned (the emulator accepts them). */
  sign?: Signer
  /** Replaces the global fetch. It must honour `redirect: 'manual'` (redirects are refused). */
  fetch?: FetchLike
  /** Per-attempt limit on waiting for a complete answer. Default 15,000 ms. */
  timeoutMs?: number
  /**
   * Largest answer body read, in bytes (default 4 MiB); a longer one fails with code
   * `response_too_large`.
   */
  maxResponseBytes?: number
  /** Allows plain http to a non-loopback host (signatures travel in the clear). */
  allowInsecureHttp?: boolean
  /**
   * Retries of reads (GET) on network errors, timeouts, 5xx, 429 and err_code -1. Downlinks and
   * writes are never retried.
   */
  retry?: { retries?: number; initialDelayMs?: number; maxDelayMs?: number }
  /**
   * Strings masked in every error message (e.g. your AppSecret, if your sign hook sends it as
   * is). Kept private.
   */
  secrets?: readonly string[]
}

/** Per-call options. */
export interface DeveloperCallOptions {
  signal?: AbortSignal
  /** Overrides the client's timeoutMs for this call. */
  timeoutMs?: number
}
