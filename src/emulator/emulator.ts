/**
 * A local stand-in for the account interface (docs/cloud-upload.md, "The emulator"), on loopback HTTP,
 * with fault injection so retry, backoff and de-duplication can be exercised for real.
 */
import { createServer } from 'node:http'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { InvalidOptionError } from '../errors.js'
import { EmulatorStore } from './emulator-store.js'
import { HttpError, intParam, pathSegment, readBody, send, sinceParam } from './emulator-http.js'
import { seededRandom } from '../util/random.js'
import type { EmulatorAccount } from './emulator-store.js'
import { normalizeSerial, parseLogRecord, ShapeError } from '../cloud/records.js'
import type { BeaconLogRecord } from '../reading.js'
import { DeveloperEmulatorCore } from './dev-emulator.js'
import type { DeveloperEmulator, DeveloperEmulatorOptions } from './dev-emulator.js'
import { listen, urlHost } from '../util/listen.js'

/** Injected misbehaviour. Rates are probabilities from 0 to 1 per request. */
export interface EmulatorFaults {
  /** Answer 500 instead of handling the request. */
  failureRate?: number
  /** Wait this long before handling each request. */
  latencyMs?: number
  /** Destroy the connection without an answer; half of them after the request took effect. */
  resetRate?: number
  /** Answer 401 to every request. */
  force401?: boolean
  /** Answer 429 to every request, with Retry-After (default 1 s). */
  force429?: boolean | { retryAfterSeconds: number }
}

/** Options of {@link startEmulator}. */
export interface EmulatorOptions {
  /** 0 (the default) picks a free port. */
  port?: number
  /** Default 127.0.0.1. */
  host?: string
  /** Logins; default one account `demo@example.com` / `demo-password`. */
  accounts?: EmulatorAccount[]
  /** Seed of the generated data and of fault decisions. Default 1. */
  seed?: number
  /** JSON file the store is loaded from and saved to (debounced, and on close). */
  persistPath?: string
  faults?: EmulatorFaults
  /** Largest request body accepted. Default 16 MiB. */
  maxBodyBytes?: number
  /** Where the developer interface pushes sensor data and task events (platform docs 6); none when unset. */
  webhookUrl?: string
  /** The developer interface's task delay, redelivery pause, safe mode and push signature. */
  developer?: DeveloperEmulatorOptions
}

/** A running emulator. */
export interface Emulator {
  /** Base URL, e.g. `http://127.0.0.1:43125`. */
  url: string
  port: number
  /** The data, for tests and the demo. */
  store: EmulatorStore
  /** The developer interface (paths under `/developers`): its data, pushes and injected failures. */
  developer: DeveloperEmulator
  /** Requests received so far (including failed and reset ones). */
  readonly requests: number
  /** Replaces the injected faults. */
  setFaults(faults: EmulatorFaults): void
  /** Stops listening, drops open connections and saves the store when persisted. */
  close(): Promise<void>
}

/** The default login when no accounts are given. */
export const DEFAULT_EMULATOR_ACCOUNT: EmulatorAccount = { email: 'demo@example.com', password: 'demo-password' }

function checkFaults(faults: EmulatorFaults): EmulatorFaults {
  for (const k of ['failureRate', 'resetRate'] as const) {
    const v = faults[k]
    if (v !== undefined && !(v >= 0 && v <= 1))
      throw new InvalidOptionError('invalid_option', `faults.${k} must be between 0 and 1`, { option: `faults.${k}` })
  }
  if (faults.latencyMs !== undefined && !(faults.latencyMs >= 0)) {
    throw new InvalidOptionError('invalid_option', 'faults.latencyMs must be >= 0', { option: 'faults.latencyMs' })
  }
  return { ...faults }
}

/** Starts the emulator; resolves once it listens. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const accounts = options.accounts ?? [DEFAULT_EMULATOR_ACCOUNT]
  if (
    !Array.isArray(accounts) ||
    accounts.some((a) => typeof a?.email !== 'string' || typeof a.password !== 'string' || a.email === '')
  ) {
    throw new InvalidOptionError('invalid_option', 'accounts must be an array of { email, password } strings', {
      option: 'accounts',
    })
  }
  const seed = options.seed ?? 1
  if (!Number.isInteger(seed))
    throw new InvalidOptionError('invalid_option', 'seed must be an integer', { option: 'seed' })
  const port = options.port ?? 0
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new InvalidOptionError('invalid_option', 'port must be an integer from 0 to 65535', { option: 'port' })
  }
  const host = options.host ?? '127.0.0.1'
  const maxBodyBytes = options.maxBodyBytes ?? 16 * 1024 * 1024
  const store = new EmulatorStore(accounts, seed, options.persistPath)
  const developer = new DeveloperEmulatorCore(seed, options.webhookUrl, options.developer)
  const faultRng = seededRandom(seed ^ 0x5eed5)
  let faults = checkFaults(options.faults ?? {})
  let requests = 0

  const authenticate = (req: IncomingMessage): string => {
    const header = req.headers.authorization ?? ''
    const m = /^Basic ([A-Za-z0-9+/=]+)$/.exec(header)
    const decoded = m === null ? '' : Buffer.from(m[1], 'base64').toString('utf8')
    const colon = decoded.indexOf(':')
    const email = colon < 0 ? undefined : store.authenticate(decoded.slice(0, colon), decoded.slice(colon + 1))
    if (email === undefined)
      throw new HttpError(401, 'valid basic credentials (account e-mail and password) are required', 'unauthorized')
    return email
  }

  // Takes decoded text: URLSearchParams has decoded a query value already.
  const serial = (text: string | undefined): string => {
    const mac = text === undefined ? undefined : normalizeSerial(text)
    if (mac === undefined) throw new HttpError(400, 'mac must be a serial number of 12 hex digits', 'bad_param')
    return mac
  }

  const route = (req: IncomingMessage, url: URL, body: unknown): [number, unknown] => {
    const method = req.method ?? 'GET'
    const parts = url.pathname.split('/').filter((p) => p.length > 0)
    const path = `/${parts.join('/')}`
    if (parts[0] === 'developers')
      return developer.handle(method, parts.slice(1).map(pathSegment), url.searchParams, body)
    if (method === 'POST' && path === '/sessions') {
      const b = body as { email?: unknown; password?: unknown } | undefined
      if (typeof b?.email !== 'string' || typeof b.password !== 'string')
        throw new HttpError(400, 'email and password are required strings', 'bad_param')
      const email = store.authenticate(b.email, b.password)
      if (email === undefined) throw new HttpError(401, 'e-mail or password is wrong', 'unauthorized')
      return [200, { user: { email }, createdTime: new Date().toISOString() }]
    }
    if (parts[0] === 'maps' && parts.length === 2 && method === 'GET') {
      authenticate(req)
      const map = store.maps.get(pathSegment(parts[1]))
      if (map === undefined) throw new HttpError(404, 'no map with this key', 'not_found')
      return [200, map]
    }
    if (parts[0] !== 'users' || parts[1] !== 'me' || parts[2] !== 'beacons' || parts.length > 4)
      throw new HttpError(404, `no route ${method} ${path}`, 'not_found')
    const email = authenticate(req)
    if (parts.length === 3) {
      if (method === 'GET') return [200, store.beacons(email)]
      if (method === 'POST') {
        const b = body as { mac?: unknown; token?: unknown } | undefined
        if (typeof b?.mac !== 'string' || typeof b.token !== 'string')
          throw new HttpError(400, 'mac and token are required strings', 'bad_param')
        const added = store.addBeacon(email, serial(b.mac), b.token)
        if (added === 'unknown') throw new HttpError(404, 'no device with this serial number', 'not_found')
        if (added === 'token_mismatch') throw new HttpError(400, 'token does not match the device', 'token_mismatch')
        return [200, added]
      }
    } else if (parts[3] === 'logs') {
      if (method === 'GET') {
        const q = url.searchParams
        const type = intParam(q, 'type', 0, 0, 2) as 0 | 1 | 2
        const page = intParam(q, 'page', 0, 0, Number.MAX_SAFE_INTEGER)
        const count = intParam(q, 'count', 100, 1, 1000)
        const mac = q.get('mac') === null ? undefined : serial(q.get('mac') as string)
        const logs = store.queryLogs(email, type, { mac, since: sinceParam(q) })
        return [200, logs.slice(page * count, page * count + count)]
      }
      if (method === 'POST') {
        const logs = (body as { logs?: unknown } | undefined)?.logs
        if (!Array.isArray(logs) || logs.length === 0)
          throw new HttpError(400, 'body must be { "logs": [record, ...] } with at least one record', 'bad_param')
        let records: BeaconLogRecord[]
        try {
          records = logs.map((r, i) => parseLogRecord(r, `logs[${i}]`, true))
        } catch (e) {
          if (e instanceof ShapeError) throw new HttpError(400, e.message, 'bad_record')
          throw e
        }
        const { stored, duplicates } = store.upload(email, records)
        return [200, { received: records.length, stored, duplicates }]
      }
    } else {
      const mac = serial(pathSegment(parts[3]))
      if (method === 'DELETE') {
        if (!store.removeBeacon(email, mac)) throw new HttpError(404, 'this account has no such beacon', 'not_found')
        return [200, { ok: true }]
      }
      if (method === 'PUT') {
        const tags = (body as { tags?: unknown } | undefined)?.tags
        if (!Array.isArray(tags) || !tags.every((t) => typeof t === 'string'))
          throw new HttpError(400, 'tags must be an array of strings', 'bad_param')
        const beacon = store.setTags(email, mac, tags as string[])
        if (beacon === undefined) throw new HttpError(404, 'this account has no such beacon', 'not_found')
        return [200, beacon]
      }
    }
    throw new HttpError(405, `${method} is not supported on ${path}`, 'method_not_allowed')
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    requests++
    const f = faults
    const text = await readBody(req, maxBodyBytes)
    if (f.latencyMs !== undefined && f.latencyMs > 0) await new Promise((r) => setTimeout(r, f.latencyMs))
    const roll = faultRng()
    const reset = f.resetRate ?? 0
    if (roll < reset / 2) {
      req.socket.destroy()
      return
    }
    if (faultRng() < (f.failureRate ?? 0)) throw new HttpError(500, 'injected failure', 'injected')
    if (f.force401 === true) throw new HttpError(401, 'injected 401', 'unauthorized')
    if (f.force429 !== undefined && f.force429 !== false) {
      const after = typeof f.force429 === 'object' ? f.force429.retryAfterSeconds : 1
      send(res, 429, { code: 'rate_limited', message: 'injected 429' }, { 'retry-after': String(after) })
      return
    }
    let body: unknown
    if (text.length > 0) {
      try {
        body = JSON.parse(text)
      } catch {
        // The developer interface answers in its envelope (platform docs 4.1), the account interface as it always did.
        if ((req.url ?? '').startsWith('/developers/')) {
          send(res, 400, { err_code: 5020601, err_msg: 'invalid params: the body is not JSON' })
          return
        }
        throw new HttpError(400, 'body is not JSON', 'bad_json')
      }
    }
    let url: URL
    try {
      url = new URL(req.url ?? '/', 'http://emulator')
    } catch {
      throw new HttpError(400, 'the request target is not a valid path', 'bad_path')
    }
    const [status, result] = route(req, url, body)
    // The other half of the resets: the request took effect but its answer is lost.
    if (roll < reset) {
      req.socket.destroy()
      return
    }
    send(res, status, result)
  }

  const server = createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (res.headersSent || req.socket.destroyed) return
      if (e instanceof HttpError) {
        const headers: Record<string, string> =
          e.status === 401 ? { 'www-authenticate': 'Basic realm="beaconkit-emulator"' } : {}
        send(res, e.status, { code: e.code, message: e.message }, headers)
      } else {
        send(res, 500, { code: 'internal', message: 'emulator error' })
      }
    })
  })
  const actualPort = await listen(server, port, host)
  return {
    url: `http://${urlHost(host)}:${actualPort}`,
    port: actualPort,
    store,
    developer,
    get requests() {
      return requests
    },
    setFaults(next: EmulatorFaults) {
      faults = checkFaults(next)
    },
    async close() {
      developer.close()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
      await store.flush()
    },
  }
}
