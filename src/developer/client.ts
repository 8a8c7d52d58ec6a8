/**
 * Client of the platform's developer interface (platform docs 4.2–4.13;
 * docs/developer-interface.md): downlink tasks, device and station reads, history, linking and
 * info updates. It shares the account client's transport (timeouts, AbortSignal, no redirects,
 * bounded answers, https off loopback); requests are checked against the spec's rules before
 * anything is sent.
 */
import { inspect } from 'node:util'
import { DeveloperApiError } from '../errors.js'
import { DEFAULT_MAX_RESPONSE_BYTES, HttpTransport } from '../transport/http.js'
import { parseBaseUrl } from '../transport/base-url.js'
import { withRetries } from '../transport/retry.js'
import type { RetryPolicy } from '../transport/retry.js'
import { envelopeError, fromTransport, isTransient, unwrap } from './envelope.js'
import { pages } from './paging.js'
import * as rules from './rules.js'
import type { Violation } from './rules.js'
import type {
  DownlinkResult,
  HistoryQuery,
  HistoryRecord,
  InfoUpdate,
  LinkResult,
  Page,
  PageQuery,
  SensorDevice,
  Station,
  UpdateResult,
} from './types.js'
import { invalid, positiveOr, retryPolicy } from '../transport/client-options.js'
import type { DeveloperCallOptions, DeveloperClientOptions, SignRequest, Signer } from './client-options.js'
import { signHeaders } from './signing.js'

type Method = SignRequest['method']

/** Throws the first broken rule as an InvalidOptionError naming the field and the rule. */
function check(violation: Violation | undefined): void {
  if (violation !== undefined) throw invalid(violation.field, `${violation.field} ${violation.rule}`)
}

/**
 * The developer interface. Each method resolves with the envelope's `data`; a non-zero
 * `err_code` rejects with `DeveloperApiError`. Reads are retried with backoff; downlinks
 * (which create tasks on devices) and writes are sent once.
 */
export class DeveloperClient {
  /** Base URL without a trailing slash. */
  readonly baseUrl: string
  /** The AppID, when given. */
  readonly appId?: string
  readonly #sign: Signer | undefined
  readonly #http: HttpTransport
  readonly #timeoutMs: number
  readonly #retry: RetryPolicy

  constructor(options: DeveloperClientOptions) {
    if (typeof options !== 'object' || options === null)
      throw invalid('options', 'DeveloperClient needs options: { baseUrl }')
    const url = parseBaseUrl(options.baseUrl, 'the sign hook')
    if (url.insecure && options.allowInsecureHttp !== true) {
      throw invalid(
        'baseUrl',
        `refusing plain http to ${url.host}: signed requests would travel in the clear; ` +
          'use https, or set allowInsecureHttp if you accept the risk',
      )
    }
    if (options.appId !== undefined && (typeof options.appId !== 'string' || options.appId === ''))
      throw invalid('appId', 'appId must be a non-empty string')
    if (options.sign !== undefined && typeof options.sign !== 'function')
      throw invalid('sign', 'sign must be a function (request) => headers')
    const secrets = options.secrets ?? []
    if (!Array.isArray(secrets) || !secrets.every((s) => typeof s === 'string'))
      throw invalid('secrets', 'secrets must be an array of strings')
    const maxResponseBytes = options.maxResponseBytes ?? DEFAULT_MAX_RESPONSE_BYTES
    if (!Number.isSafeInteger(maxResponseBytes) || maxResponseBytes < 1)
      throw invalid(
        'maxResponseBytes',
        'maxResponseBytes must be a positive whole number of bytes, such as 4194304 (4 MiB)',
      )
    this.baseUrl = url.baseUrl
    if (options.appId !== undefined) this.appId = options.appId
    this.#sign = options.sign
    this.#http = new HttpTransport({
      baseUrl: this.baseUrl,
      fetch: options.fetch,
      secrets: secrets.filter((s) => s.length > 0),
      maxResponseBytes,
      service: {
        name: 'the developer interface',
        unauthorizedHint: 'check the sign hook and the AppID/AppSecret it uses',
      },
    })
    this.#timeoutMs = positiveOr(options.timeoutMs, 15_000, 'timeoutMs')
    this.#retry = retryPolicy(options.retry)
  }

  /** Sets the transmission period, in seconds (> 60), of sensors (4.2). Not retried. */
  async setInterval(sns: string[], interval: number, options: DeveloperCallOptions = {}): Promise<DownlinkResult> {
    check(rules.checkSns(sns))
    check(rules.checkInterval(interval))
    return (await this.call('POST', '/developers/device/interval', options, {
      sns,
      cfg: { interval },
    })) as DownlinkResult
  }

  /** Sets alarm thresholds of sensors of one `deviceType` (4.3); only the keys of that type. Not retried. */
  async setThresholds(
    sns: string[],
    deviceType: string,
    cfg: Record<string, number>,
    options: DeveloperCallOptions = {},
  ): Promise<DownlinkResult> {
    check(rules.checkSns(sns))
    check(rules.checkThresholds(deviceType, cfg))
    return (await this.call('POST', '/developers/device/threshold', options, {
      sns,
      deviceType,
      cfg,
    })) as DownlinkResult
  }

  /** Sends raw data, a hex string, to alpha transmission modules (4.4). Not retried. */
  async sendRawData(sns: string[], hex: string, options: DeveloperCallOptions = {}): Promise<DownlinkResult> {
    check(rules.checkSns(sns))
    check(rules.checkHex(hex))
    return (await this.call('POST', '/developers/device/cdata', options, { sns, data: hex })) as DownlinkResult
  }

  /** Sends `data` through the downlink parser `dataPacker` (e.g. `tracker`) (4.5). Not retried. */
  async sendParserData(
    dataPacker: string,
    sns: string[],
    data: Record<string, unknown>,
    options: DeveloperCallOptions = {},
  ): Promise<DownlinkResult> {
    check(rules.checkParserRequest(dataPacker, data))
    check(rules.checkSns(sns))
    return (await this.call('POST', `/developers/device/${dataPacker}/data`, options, { sns, data })) as DownlinkResult
  }

  /** One sensor device (4.6). */
  async getDevice(sn: string, options: DeveloperCallOptions = {}): Promise<SensorDevice> {
    check(rules.checkSn(sn))
    return (await this.call('GET', `/developers/device/${encodeURIComponent(sn)}`, options)) as SensorDevice
  }

  /** One page of sensor devices (4.7); page from 1, count default 20. */
  async listDevices(query: PageQuery = {}, options: DeveloperCallOptions = {}): Promise<Page<SensorDevice>> {
    return (await this.call('GET', `/developers/device/list?${pageParams(query, 20)}`, options)) as Page<SensorDevice>
  }

  /** One base station (4.8). */
  async getStation(sn: string, options: DeveloperCallOptions = {}): Promise<Station> {
    check(rules.checkSn(sn))
    return (await this.call('GET', `/developers/station/${encodeURIComponent(sn)}`, options)) as Station
  }

  /** One page of base stations (4.9). */
  async listStations(query: PageQuery = {}, options: DeveloperCallOptions = {}): Promise<Page<Station>> {
    return (await this.call('GET', `/developers/station/list?${pageParams(query, 20)}`, options)) as Page<Station>
  }

  /** One page of a sensor's history (4.10); page 1, count 100, newest first unless given. */
  async deviceHistory(
    sn: string,
    query: HistoryQuery = {},
    options: DeveloperCallOptions = {},
  ): Promise<HistoryRecord[]> {
    check(rules.checkSn(sn))
    check(rules.checkHistoryQuery(query))
    const params = pageParams(query, 100)
    if (query.startTime !== undefined) params.set('startTime', String(query.startTime))
    if (query.endTime !== undefined) params.set('endTime', String(query.endTime))
    if (query.order !== undefined) params.set('order', query.order)
    const data = await this.call('GET', `/developers/device/${encodeURIComponent(sn)}/log?${params}`, options)
    if (!Array.isArray(data))
      throw new DeveloperApiError(
        'invalid_response',
        'GET /developers/device/:sn/log answered data that is not an array of history records',
        { status: 200 },
      )
    return data as HistoryRecord[]
  }

  /** Links devices to this application's merchant (4.11). */
  async linkDevices(sns: string[], options: DeveloperCallOptions = {}): Promise<LinkResult> {
    check(rules.checkSns(sns, 5010101))
    return (await this.call('POST', '/developers/device/relation', options, { sns })) as LinkResult
  }

  /** Unlinks devices (4.12). */
  async unlinkDevices(sns: string[], options: DeveloperCallOptions = {}): Promise<UpdateResult> {
    check(rules.checkSns(sns, 5010101))
    return (await this.call('DELETE', '/developers/device/relation', options, { sns })) as UpdateResult
  }

  /** Updates names, tags and coordinates of devices or stations, at most 1000 at once (4.13). */
  async updateInfo(
    type: 'device' | 'station',
    items: InfoUpdate[],
    options: DeveloperCallOptions = {},
  ): Promise<UpdateResult> {
    check(rules.checkInfoUpdate(type, items))
    return (await this.call('PUT', `/developers/${type}/info`, options, { data: items })) as UpdateResult
  }

  /** Every sensor device, page after page (`for await (const d of client.devices())`). */
  devices(query: PageQuery = {}, options: DeveloperCallOptions = {}): AsyncGenerator<SensorDevice, void, undefined> {
    return pages((page) => this.listDevices({ ...query, page }, options), query.page ?? 1)
  }

  /** Every base station, page after page. */
  stations(query: PageQuery = {}, options: DeveloperCallOptions = {}): AsyncGenerator<Station, void, undefined> {
    return pages((page) => this.listStations({ ...query, page }, options), query.page ?? 1)
  }

  /** A sensor's whole history matching `query`, page after page, until a page comes back short. */
  async *history(
    sn: string,
    query: HistoryQuery = {},
    options: DeveloperCallOptions = {},
  ): AsyncGenerator<HistoryRecord, void, undefined> {
    const count = query.count ?? 100
    for (let page = query.page ?? 1; ; page++) {
      const records = await this.deviceHistory(sn, { ...query, page, count }, options)
      yield* records
      if (records.length < count) return
    }
  }

  /** Shows the client without its hook or secrets. */
  [inspect.custom](): string {
    const appId = this.appId === undefined ? '' : `, appId: '${this.appId}'`
    return `DeveloperClient { baseUrl: '${this.baseUrl}'${appId}, signed: ${this.#sign !== undefined} }`
  }

  /** JSON without the hook or secrets. */
  toJSON(): { baseUrl: string; appId?: string } {
    return this.appId === undefined ? { baseUrl: this.baseUrl } : { baseUrl: this.baseUrl, appId: this.appId }
  }

  private async call(method: Method, path: string, options: DeveloperCallOptions, body?: unknown): Promise<unknown> {
    const timeoutMs = positiveOr(options.timeoutMs, this.#timeoutMs, 'timeoutMs')
    const what = `${method} ${path.split('?')[0]}`
    const bodyText = body === undefined ? undefined : JSON.stringify(body)
    // A downlink creates a task on every device each time it is sent: never sent twice blindly.
    const policy = method === 'GET' ? this.#retry : { ...this.#retry, retries: 0 }
    try {
      return await withRetries(
        async () => {
          const headers = await this.signed(method, path, bodyText ?? '')
          const answer = await this.#http.exchange({
            method,
            path,
            ...(bodyText === undefined ? {} : { bodyText }),
            ...(headers === undefined ? {} : { headers }),
            signal: options.signal,
            timeoutMs,
            wantBody: true,
            check: (status, parsed, retryAfterSeconds, scrub) =>
              envelopeError(what, status, parsed, retryAfterSeconds, scrub),
          })
          return unwrap(what, answer)
        },
        policy,
        options.signal,
        isTransient,
      )
    } catch (e) {
      throw fromTransport(e)
    }
  }

  private async signed(method: Method, path: string, body: string): Promise<Record<string, string> | undefined> {
    if (this.#sign === undefined) return undefined
    const request: SignRequest = {
      method,
      path,
      url: `${this.baseUrl}${path}`,
      body,
      ...(this.appId === undefined ? {} : { appId: this.appId }),
    }
    return signHeaders(this.#sign, request)
  }
}

function pageParams(query: PageQuery, defaultCount: number): URLSearchParams {
  const page = query.page ?? 1
  const count = query.count ?? defaultCount
  check(rules.checkPage(page))
  check(rules.checkCount(count))
  return new URLSearchParams({ page: String(page), count: String(count) })
}
