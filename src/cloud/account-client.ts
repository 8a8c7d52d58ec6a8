/**
 * Client of the platform's account interface (docs/cloud-upload.md): account check, beacon
 * management, beacon logs, deployment maps and the log upload the Uploader uses.
 */
import { inspect } from 'node:util'
import { AccountError } from '../errors.js'
import { DEFAULT_MAX_RESPONSE_BYTES, HttpTransport } from '../transport/http.js'
import { parseBaseUrl } from '../transport/base-url.js'
import { withRetries } from '../transport/retry.js'
import type { RetryPolicy } from '../transport/retry.js'
import { normalizeSerial, parseAccountBeacon, parseDeploymentMap, parseLogRecord, ShapeError } from './records.js'
import type { AccountBeacon, DeploymentMap, StoredLogRecord } from './records.js'
import type { BeaconLogRecord } from '../reading.js'
import { invalid, positiveOr, retryPolicy } from '../transport/client-options.js'
import { asArray, checked } from './account-answers.js'
import type { AccountClientOptions, BeaconLogQuery, CallOptions, UploadResult } from './account-options.js'

/**
 * The account interface. Every call but `verify` carries HTTP basic credentials; every call has
 * a timeout and accepts an AbortSignal; idempotent calls are retried with backoff.
 */
export class AccountClient {
  /** Base URL without a trailing slash. */
  readonly baseUrl: string
  /** The account e-mail. */
  readonly email: string
  readonly #password: string
  readonly #authorization: string
  readonly #http: HttpTransport
  readonly #timeoutMs: number
  readonly #retry: RetryPolicy

  constructor(options: AccountClientOptions) {
    if (typeof options.email !== 'string' || options.email.length === 0)
      throw invalid('email', 'email must be a non-empty string')
    if (typeof options.password !== 'string' || options.password.length === 0) {
      throw invalid('password', 'password must be a non-empty string')
    }
    const url = parseBaseUrl(options.baseUrl, 'email and password')
    if (url.insecure && options.allowInsecureHttp !== true) {
      throw new AccountError(
        'insecure_url',
        `refusing to send credentials over plain http to ${url.host}; ` +
          'use https, or set allowInsecureHttp if you accept the risk',
      )
    }
    this.baseUrl = url.baseUrl
    this.email = options.email
    this.#password = options.password
    const basic = Buffer.from(`${options.email}:${options.password}`, 'utf8').toString('base64')
    this.#authorization = `Basic ${basic}`
    const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
    if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes < 1) {
      throw invalid(
        'maxResponseBytes',
        'maxResponseBytes must be a positive whole number of bytes, such as 4194304 (4 MiB)',
      )
    }
    // The basic token is a secret of its own: for a short password, no part of it is.
    this.#http = new HttpTransport({
      baseUrl: this.baseUrl,
      fetch: options.fetch,
      secrets: [options.password, basic],
      maxResponseBytes,
    })
    this.#timeoutMs = positiveOr(options.timeoutMs, 15_000, 'timeoutMs')
    this.#retry = retryPolicy(options.retry)
  }

  /**
   * Checks the e-mail and password (POST /sessions). Rejects with code `unauthorized` when
   * refused.
   */
  async verify(options: CallOptions = {}): Promise<void> {
    // /sessions changes nothing on the server, so a retry is safe.
    await this.call('POST', '/sessions', options, {
      body: { email: this.email, password: this.#password },
      auth: false,
      idempotent: true,
    })
  }

  /** The account's beacons (GET /users/me/beacons). */
  async listBeacons(options: CallOptions = {}): Promise<AccountBeacon[]> {
    const body = await this.call('GET', '/users/me/beacons', options, { idempotent: true, wantBody: true })
    return checked('GET /users/me/beacons', () =>
      asArray(body, 'GET /users/me/beacons').map((b, i) => parseAccountBeacon(b, `[${i}]`)),
    )
  }

  /** Adds a beacon by serial number and the verification token printed with it. Not retried. */
  async addBeacon(beacon: { mac: string; token: string }, options: CallOptions = {}): Promise<AccountBeacon> {
    const mac = this.serial(beacon?.mac, 'mac')
    if (typeof beacon.token !== 'string' || beacon.token.length === 0)
      throw invalid('token', 'token must be the non-empty verification key printed with the device')
    const body = await this.call('POST', '/users/me/beacons', options, {
      body: { mac, token: beacon.token },
      wantBody: true,
    })
    return checked('POST /users/me/beacons', () => parseAccountBeacon(body, 'beacon'))
  }

  /** Removes a beacon from the account. */
  async removeBeacon(sn: string, options: CallOptions = {}): Promise<void> {
    const mac = this.serial(sn, 'sn')
    await this.call('DELETE', `/users/me/beacons/${mac}`, options, { idempotent: true })
  }

  /** Replaces a beacon's tags. */
  async setBeaconTags(sn: string, tags: string[], options: CallOptions = {}): Promise<void> {
    const mac = this.serial(sn, 'sn')
    if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string'))
      throw invalid('tags', 'tags must be an array of strings')
    await this.call('PUT', `/users/me/beacons/${mac}`, options, { body: { tags }, idempotent: true })
  }

  /** One page of beacon logs (GET /users/me/beacons/logs); page 0 and count 100 unless given. */
  async beaconLogs(query: BeaconLogQuery = {}, options: CallOptions = {}): Promise<StoredLogRecord[]> {
    const params = new URLSearchParams()
    if (query.type !== undefined) {
      if (query.type !== 0 && query.type !== 1 && query.type !== 2)
        throw invalid('type', 'type must be 0 (all users), 1 (own) or 2 (inspectors)')
      params.set('type', String(query.type))
    }
    if (query.timestamp !== undefined) {
      if (typeof query.timestamp !== 'string' && typeof query.timestamp !== 'number')
        throw invalid('timestamp', 'timestamp must be a string or a number')
      params.set('timestamp', String(query.timestamp))
    }
    if (query.mac !== undefined) params.set('mac', this.serial(query.mac, 'mac'))
    const page = query.page ?? 0
    if (!Number.isInteger(page) || page < 0) throw invalid('page', 'page must be an integer >= 0')
    const count = query.count ?? 100
    if (!Number.isInteger(count) || count < 1 || count > 1000)
      throw invalid('count', 'count must be an integer from 1 to 1000')
    params.set('page', String(page))
    params.set('count', String(count))
    const body = await this.call('GET', `/users/me/beacons/logs?${params.toString()}`, options, {
      idempotent: true,
      wantBody: true,
    })
    return checked('GET /users/me/beacons/logs', () =>
      asArray(body, 'GET /users/me/beacons/logs').map((r, i) => {
        const { msgId, ...rest } = parseLogRecord(r, `[${i}]`, false)
        const record: StoredLogRecord = msgId === '' ? rest : { msgId, ...rest }
        return record
      }),
    )
  }

  /** Every beacon log matching `query`, page after page from `query.page` (default 0). */
  async *allBeaconLogs(
    query: BeaconLogQuery = {},
    options: CallOptions = {},
  ): AsyncGenerator<StoredLogRecord, void, undefined> {
    const count = query.count ?? 100
    for (let page = query.page ?? 0; ; page++) {
      const records = await this.beaconLogs({ ...query, page, count }, options)
      yield* records
      if (records.length < count) return
    }
  }

  /** A deployment map by its key (GET /maps/:key). */
  async getMap(key: string, options: CallOptions = {}): Promise<DeploymentMap> {
    if (typeof key !== 'string' || key.length === 0) throw invalid('key', 'key must be the non-empty map id')
    const body = await this.call('GET', `/maps/${encodeURIComponent(key)}`, options, {
      idempotent: true,
      wantBody: true,
    })
    return checked('GET /maps/:key', () => parseDeploymentMap(body, 'map'))
  }

  /**
   * Uploads beacon log records (POST /users/me/beacons/logs, body `{ logs }`). Not retried
   * here: the Uploader owns retries. Safe to repeat: the server drops repeated msgIds.
   */
  async uploadLogs(records: BeaconLogRecord[], options: CallOptions = {}): Promise<UploadResult> {
    if (!Array.isArray(records) || records.length === 0) throw invalid('records', 'records must be a non-empty array')
    records.forEach((r, i) => {
      try {
        parseLogRecord(r, `records[${i}]`, true)
      } catch (e) {
        if (e instanceof ShapeError) throw invalid('records', `${e.message}`)
        throw e
      }
    })
    // Any 2xx means accepted (the platform's documentation allows an empty body), so the body is
    // only informative.
    const body = await this.call('POST', '/users/me/beacons/logs', options, {
      body: { logs: records },
      wantBody: 'optional',
    })
    const result: UploadResult = { sent: records.length }
    const reported = body as { stored?: unknown; duplicates?: unknown } | undefined
    if (typeof reported?.stored === 'number') result.stored = reported.stored
    if (typeof reported?.duplicates === 'number') result.duplicates = reported.duplicates
    return result
  }

  /**
   * `text` without this client's password in any form (plain, URL- or form-encoded, base64 as
   * in the basic-auth header, or any 8-character run of those), for logging text that came
   * from a server or the network. Every `AccountError` message is already scrubbed.
   */
  scrub(text: string): string {
    return this.#http.scrub(text)
  }

  /** Shows the account without its password. */
  [inspect.custom](): string {
    return `AccountClient { baseUrl: '${this.baseUrl}', email: '${this.email}' }`
  }

  /** JSON without the password. */
  toJSON(): { baseUrl: string; email: string } {
    return { baseUrl: this.baseUrl, email: this.email }
  }

  /** Without the password. */
  toString(): string {
    return `AccountClient(${this.email} @ ${this.baseUrl})`
  }

  private serial(value: unknown, option: string): string {
    const mac = typeof value === 'string' ? normalizeSerial(value) : undefined
    if (mac === undefined)
      throw invalid(option, `${option} must be a beacon serial number of 12 hex digits, such as 0117C5456A36`)
    return mac
  }

  private async call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    options: CallOptions,
    how: { body?: unknown; auth?: boolean; idempotent?: boolean; wantBody?: boolean | 'optional' },
  ): Promise<unknown> {
    const timeoutMs = positiveOr(options.timeoutMs, this.#timeoutMs, 'timeoutMs')
    const policy = how.idempotent === true ? this.#retry : { ...this.#retry, retries: 0 }
    return withRetries(
      () =>
        this.#http.exchange({
          method,
          path,
          body: how.body,
          authorization: how.auth === false ? undefined : this.#authorization,
          signal: options.signal,
          timeoutMs,
          wantBody: how.wantBody ?? false,
        }),
      policy,
      options.signal,
    )
  }
}
