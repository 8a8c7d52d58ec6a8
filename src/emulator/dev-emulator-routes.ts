/**
 * The developer interface's routes in the emulator (platform docs 4.2–4.13): the spec's validation and
 * error codes, answered in the `{err_code, data}` envelope. Rules are the client's own
 * (developer/rules.ts), so the two cannot drift apart.
 */
import * as rules from '../developer/rules.js'
import type { Violation } from '../developer/rules.js'
import type { DownlinkResult, InfoUpdate, SensorDevice } from '../developer/types.js'
import { ALPHA_MODULE, ALPHA_SENSOR, EMULATOR_MERCHANT } from './dev-emulator-store.js'
import type { DeveloperStore, EmulatorTask } from './dev-emulator-store.js'

/** A failure answered as `{err_code, err_msg}` (or `errmsg` for 5020613, as in the spec's example). */
export class EnvelopeError extends Error {
  constructor(
    readonly status: number,
    readonly errCode: number,
    message: string,
    readonly errInfo?: string,
  ) {
    super(message)
  }

  /** The answer body. */
  body(): Record<string, unknown> {
    const key = this.errCode === 5020613 ? 'errmsg' : 'err_msg'
    return {
      err_code: this.errCode,
      [key]: this.message,
      ...(this.errInfo === undefined ? {} : { err_info: this.errInfo }),
    }
  }
}

/** Part 7's messages; a broken rule's own text where part 7 has none. */
const MESSAGES: Record<number, string> = {
  5010101: 'sns is a required parameter',
  5010107: 'device not found',
  5010108: 'count should be a positive integer and le 1000',
  5020601: 'invalid params',
  5020610: 'sns is required array of strings',
  5020612: 'interval is a required integer greater than 60',
  5020613: 'data is required hex string',
  704: 'Invalid Params',
}

function refuse(violation: Violation | undefined): void {
  if (violation === undefined) return
  const { errCode, field, rule } = violation
  if (errCode === 704) throw new EnvelopeError(400, 704, MESSAGES[704], `${field} ${rule}`)
  const text =
    errCode >= 5020614 && errCode <= 5020620
      ? `${field.replace(/^cfg\./, '')} should be a positive integer`
      : (MESSAGES[errCode] ?? `${field} ${rule}`)
  throw new EnvelopeError(400, errCode, errCode === 5020601 ? `invalid params: ${field} ${rule}` : text)
}

/** Creates the batch's tasks; the caller schedules their completion. */
export type TaskSink = (tasks: EmulatorTask[]) => void

function intQuery(q: URLSearchParams, name: string, fallback: number): unknown {
  const raw = q.get(name)
  if (raw === null) return fallback
  return /^-?\d+$/.test(raw) ? Number(raw) : raw
}

function numberQuery(q: URLSearchParams, name: string): unknown {
  const raw = q.get(name)
  if (raw === null) return undefined
  return /^\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw
}

function pageOf<T>(
  all: T[],
  q: URLSearchParams,
): { items: T[]; page_info: { current_page: number; count: number; items_count: number } } {
  const count = intQuery(q, 'count', 20)
  refuse(rules.checkCount(count))
  const page = intQuery(q, 'page', 1)
  refuse(rules.checkPage(page))
  const c = count as number
  const p = page as number
  return {
    items: all.slice((p - 1) * c, p * c),
    page_info: { current_page: p, count: Math.ceil(all.length / c), items_count: all.length },
  }
}

/** Applies to a tracker: a command name, and an emergency time in whole seconds when given. */
function checkTracker(data: Record<string, unknown>): void {
  if (typeof data.command !== 'string' || data.command === '')
    throw new EnvelopeError(400, 704, MESSAGES[704], 'tracker: command must be a non-empty string')
  const t = data.emergencyTime
  if (t !== undefined && (typeof t !== 'number' || !Number.isInteger(t) || t < 0))
    throw new EnvelopeError(400, 704, MESSAGES[704], 'tracker: emergencyTime must be whole seconds >= 0')
}

/** Parsers the emulator knows (4.5). */
const PARSERS: Record<string, (data: Record<string, unknown>) => void> = { tracker: checkTracker }

/**
 * Answers one developer request: `parts` is the path split on `/` after `developers`.
 * Returns the status and the success envelope, or throws an EnvelopeError.
 */
export function developerRoute(
  store: DeveloperStore,
  tasks: TaskSink,
  method: string,
  parts: string[],
  q: URLSearchParams,
  body: unknown,
): [number, unknown] {
  const b = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>
  const ok = (data: unknown): [number, unknown] => [200, { err_code: 0, data }]
  const [kind, second, third] = parts
  const downlink = (
    taskKind: EmulatorTask['kind'],
    supports: (d: SensorDevice) => boolean,
    payload: unknown,
    listUnsupported = true,
  ): [number, unknown] => {
    const sns = [...new Set(b.sns as string[])]
    const scheduleNo = store.scheduleNo()
    const result: DownlinkResult = {
      scheduleNo,
      ok: [],
      unexistSns: [],
      ...(listUnsupported ? { unsupportSns: [] } : {}),
    }
    const created: EmulatorTask[] = []
    for (const sn of sns) {
      const device = store.ownDevice(sn)
      if (device === undefined) result.unexistSns.push(sn)
      else if (!supports(device)) result.unsupportSns?.push(sn)
      else {
        const task = store.addTask(scheduleNo, sn, taskKind, payload)
        created.push(task)
        result.ok.push({ sn, taskId: task.taskId })
      }
    }
    tasks(created)
    return ok(result)
  }
  if (kind === 'device' && method === 'POST' && parts.length === 2 && second === 'interval') {
    refuse(rules.checkSns(b.sns))
    const interval = (b.cfg as { interval?: unknown } | undefined)?.interval
    refuse(rules.checkInterval(interval))
    return downlink('interval', (d) => d.deviceType !== ALPHA_MODULE, interval)
  }
  if (kind === 'device' && method === 'POST' && parts.length === 2 && second === 'threshold') {
    refuse(rules.checkSns(b.sns))
    refuse(rules.checkThresholds(b.deviceType, b.cfg))
    return downlink(
      'threshold',
      (d) => d.deviceType === b.deviceType && d.deviceType !== ALPHA_MODULE && d.deviceType !== ALPHA_SENSOR,
      b.cfg,
    )
  }
  if (kind === 'device' && method === 'POST' && parts.length === 2 && second === 'cdata') {
    refuse(rules.checkSns(b.sns))
    refuse(rules.checkHex(b.data))
    return downlink('cdata', (d) => d.deviceType === ALPHA_MODULE, b.data)
  }
  if (kind === 'device' && method === 'POST' && parts.length === 3 && third === 'data' && second !== 'relation') {
    refuse(rules.checkParserRequest(second, b.data))
    const parser = Object.hasOwn(PARSERS, second) ? PARSERS[second] : undefined
    if (parser === undefined)
      throw new EnvelopeError(
        400,
        704,
        MESSAGES[704],
        `unknown dataPacker ${second}; the emulator knows ${Object.keys(PARSERS).join(', ')}`,
      )
    refuse(rules.checkSns(b.sns))
    parser(b.data as Record<string, unknown>)
    return downlink('parser', () => true, b.data, false)
  }
  if (kind === 'device' && parts.length === 2 && second === 'relation' && (method === 'POST' || method === 'DELETE')) {
    refuse(rules.checkSns(b.sns, 5010101))
    const sns = [...new Set(b.sns as string[])]
    if (method === 'POST') {
      const result = {
        ok: [] as string[],
        thisOwner: [] as string[],
        otherOwner: [] as string[],
        notFound: [] as string[],
      }
      for (const sn of sns) {
        const owner = store.owners.get(sn)
        if (!store.devices.has(sn)) result.notFound.push(sn)
        else if (owner === EMULATOR_MERCHANT) result.thisOwner.push(sn)
        else if (owner !== undefined) result.otherOwner.push(sn)
        else {
          store.owners.set(sn, EMULATOR_MERCHANT)
          result.ok.push(sn)
        }
      }
      return ok(result)
    }
    const result = { ok: [] as string[], notFound: [] as string[] }
    for (const sn of sns) {
      if (store.owners.get(sn) === EMULATOR_MERCHANT) {
        store.owners.delete(sn)
        result.ok.push(sn)
      } else result.notFound.push(sn)
    }
    return ok(result)
  }
  if ((kind === 'device' || kind === 'station') && method === 'GET' && parts.length === 2 && second === 'list') {
    return ok(kind === 'device' ? pageOf(store.ownDevices(), q) : pageOf([...store.stations.values()], q))
  }
  if (kind === 'station' && method === 'GET' && parts.length === 2) {
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(second))
      throw new EnvelopeError(400, 5020601, 'invalid params: sn must be letters, digits, - and _')
    const station = store.stations.get(second)
    if (station === undefined) throw new EnvelopeError(404, 5010107, MESSAGES[5010107])
    return ok(station)
  }
  if (kind === 'device' && method === 'GET' && parts.length === 2) {
    const device = store.ownDevice(second)
    if (device === undefined) throw new EnvelopeError(404, 5010107, MESSAGES[5010107])
    return ok(device)
  }
  if (kind === 'device' && method === 'GET' && parts.length === 3 && third === 'log') {
    const count = intQuery(q, 'count', 100)
    refuse(rules.checkCount(count))
    const page = intQuery(q, 'page', 1)
    refuse(rules.checkPage(page))
    const query = {
      startTime: numberQuery(q, 'startTime'),
      endTime: numberQuery(q, 'endTime'),
      order: q.get('order') ?? undefined,
    }
    refuse(rules.checkHistoryQuery(query))
    const from = (query.startTime as number | undefined) ?? -Infinity
    const to = (query.endTime as number | undefined) ?? Infinity
    const records = (store.ownDevice(second) === undefined ? [] : store.history(second)).filter(
      (r) => r.createdTime >= from && r.createdTime <= to,
    )
    const ordered = query.order === 'asc' ? records : [...records].reverse()
    const c = count as number
    return ok(ordered.slice(((page as number) - 1) * c, (page as number) * c))
  }
  if (method === 'PUT' && parts.length === 2 && third === undefined && second === 'info') {
    refuse(rules.checkInfoUpdate(kind, b.data))
    const result = { ok: [] as string[], notFound: [] as string[] }
    for (const item of b.data as InfoUpdate[]) {
      const target = kind === 'device' ? store.ownDevice(item.sn) : store.stations.get(item.sn)
      if (target === undefined) {
        result.notFound.push(item.sn)
        continue
      }
      if (item.name !== undefined) target.name = item.name
      if (item.tags !== undefined) target.tags = [...item.tags]
      // A device has no lonlat among its 2.1 fields; 4.13 sets one all the same.
      if (item.lonlat !== undefined) (target as { lonlat?: [number, number] }).lonlat = [item.lonlat[0], item.lonlat[1]]
      result.ok.push(item.sn)
    }
    return ok(result)
  }
  throw new EnvelopeError(404, 5020601, `invalid params: no developer route ${method} /developers/${parts.join('/')}`)
}
