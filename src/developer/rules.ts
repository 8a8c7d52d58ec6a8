/**
 * The developer interface's request rules (platform docs 4.2–4.13, 8), in one place: the client checks
 * a request with them before it sends anything, and the emulator answers with the spec's error
 * code when a request breaks one. Pure: values in, the first broken rule out.
 */

/** A broken rule: the field, what it must be, and the `err_code` the platform answers. */
export interface Violation {
  field: string
  rule: string
  errCode: number
}

/** Threshold keys per device type (platform docs 4.3). */
export const THRESHOLD_KEYS: Readonly<Record<string, readonly string[]>> = {
  co: ['coAlarmHigh'],
  co2: ['co2AlarmHigh'],
  so2: ['so2AlarmHigh'],
  no2: ['no2AlarmHigh'],
  ch4: ['ch4AlarmHigh'],
  nh3: ['nh3AlarmHigh'],
  pm: ['pm2_5AlarmHigh', 'pm10AlarmHigh', 'pm1AlarmHigh'],
  lpg: ['lpgAlarmHigh'],
  tvoc: ['ch2oAlarmHigh'],
  temp_humi: ['tempAlarmHigh', 'tempAlarmLow', 'humiAlarmHigh', 'humiAlarmLow'],
  o3: ['o3AlarmHigh'],
  angle: ['angleAlarmHigh'],
}

/** Thresholds the spec requires to be positive integers, with their error codes (5020614–5020620). */
export const INTEGER_THRESHOLDS: Readonly<Record<string, number>> = {
  coAlarmHigh: 5020614,
  co2AlarmHigh: 5020615,
  so2AlarmHigh: 5020616,
  no2AlarmHigh: 5020617,
  ch4AlarmHigh: 5020618,
  pm2_5AlarmHigh: 5020619,
  pm10AlarmHigh: 5020620,
}

/** The spec's "invalid params" (5020601), used where it names no code of its own. */
export const INVALID_PARAMS = 5020601

/** Largest `count` of a page, and of a 4.13 `data` array. */
export const MAX_COUNT = 1000

const v = (field: string, rule: string, errCode: number): Violation => ({ field, rule, errCode })

/** 4.2–4.5 `sns` (5020610), or 4.11 / 4.12 `sns` with `errCode` 5010101. */
export function checkSns(sns: unknown, errCode = 5020610): Violation | undefined {
  if (!Array.isArray(sns) || sns.length === 0) return v('sns', 'must be a non-empty array of serial numbers', errCode)
  const bad = sns.findIndex((s) => typeof s !== 'string' || s.length === 0)
  if (bad >= 0) return v(`sns[${bad}]`, 'must be a non-empty string (a serial number)', errCode)
  return undefined
}

/** 4.2 `cfg.interval`: an integer greater than 60 (5020612). */
export function checkInterval(interval: unknown): Violation | undefined {
  if (typeof interval !== 'number' || !Number.isInteger(interval) || interval <= 60)
    return v('interval', 'must be an integer greater than 60 (seconds)', 5020612)
  return undefined
}

/** 4.3: a known device type, and at least one threshold, each one that applies to it and is a number. */
export function checkThresholds(deviceType: unknown, cfg: unknown): Violation | undefined {
  const keys =
    typeof deviceType === 'string' && Object.hasOwn(THRESHOLD_KEYS, deviceType) ? THRESHOLD_KEYS[deviceType] : undefined
  if (keys === undefined)
    return v(
      'deviceType',
      `must be a sensor type with thresholds: ${Object.keys(THRESHOLD_KEYS).join(', ')}`,
      INVALID_PARAMS,
    )
  if (typeof cfg !== 'object' || cfg === null || Array.isArray(cfg))
    return v('cfg', 'must be an object of thresholds', INVALID_PARAMS)
  const entries = Object.entries(cfg)
  if (entries.length === 0)
    return v('cfg', `must hold at least one threshold (${keys.join(', ')} for ${deviceType as string})`, INVALID_PARAMS)
  for (const [key, value] of entries) {
    if (!keys.includes(key))
      return v(
        `cfg.${key}`,
        `does not apply to deviceType ${deviceType as string}; use ${keys.join(', ')}`,
        INVALID_PARAMS,
      )
    const integerCode = INTEGER_THRESHOLDS[key]
    if (integerCode !== undefined) {
      if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0)
        return v(`cfg.${key}`, 'should be a positive integer', integerCode)
    } else if (typeof value !== 'number' || !Number.isFinite(value)) {
      return v(`cfg.${key}`, 'must be a number', INVALID_PARAMS)
    }
  }
  return undefined
}

/** 4.4 `data`: a hexadecimal string (5020613). */
export function checkHex(data: unknown): Violation | undefined {
  if (typeof data !== 'string' || !/^[0-9a-fA-F]+$/.test(data))
    return v('data', 'must be a non-empty hexadecimal string such as 0a1b', 5020613)
  return undefined
}

/** 4.5 path `dataPacker` and body `data` (704). */
export function checkParserRequest(dataPacker: unknown, data: unknown): Violation | undefined {
  if (typeof dataPacker !== 'string' || !/^[A-Za-z0-9_-]+$/.test(dataPacker))
    return v('dataPacker', 'must be a parser type of letters, digits, - and _, such as tracker', 704)
  if (typeof data !== 'object' || data === null || Array.isArray(data))
    return v('data', 'must be an object (its content is defined by the parser)', 704)
  return undefined
}

/** `count` of 4.7, 4.9, 4.10: a positive integer, at most 1000 (5010108). */
export function checkCount(count: unknown): Violation | undefined {
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_COUNT)
    return v('count', 'should be a positive integer and le 1000', 5010108)
  return undefined
}

/** `page`: an integer from 1. */
export function checkPage(page: unknown): Violation | undefined {
  if (typeof page !== 'number' || !Number.isInteger(page) || page < 1)
    return v('page', 'must be an integer from 1', INVALID_PARAMS)
  return undefined
}

/** 4.10 `order`, `startTime`, `endTime`. */
export function checkHistoryQuery(q: {
  startTime?: unknown
  endTime?: unknown
  order?: unknown
}): Violation | undefined {
  for (const field of ['startTime', 'endTime'] as const) {
    const t = q[field]
    if (t !== undefined && (typeof t !== 'number' || !Number.isFinite(t) || t < 0))
      return v(field, 'must be a timestamp in ms (a number >= 0)', INVALID_PARAMS)
  }
  if (typeof q.startTime === 'number' && typeof q.endTime === 'number' && q.startTime > q.endTime)
    return v('startTime', 'must not be later than endTime', INVALID_PARAMS)
  if (q.order !== undefined && q.order !== 'asc' && q.order !== 'desc')
    return v('order', "must be 'asc' or 'desc'", INVALID_PARAMS)
  return undefined
}

/** A serial number in a path (4.6, 4.8, 4.10). */
export function checkSn(sn: unknown): Violation | undefined {
  if (typeof sn !== 'string' || sn.length === 0) return v('sn', 'must be a non-empty serial number', INVALID_PARAMS)
  return undefined
}

/** 4.13 `type` and `data` (5020601). */
export function checkInfoUpdate(type: unknown, data: unknown): Violation | undefined {
  if (type !== 'device' && type !== 'station') return v('type', "must be 'device' or 'station'", INVALID_PARAMS)
  if (!Array.isArray(data) || data.length === 0 || data.length > MAX_COUNT)
    return v('data', `must be an array of 1 to ${MAX_COUNT} updates`, INVALID_PARAMS)
  for (let i = 0; i < data.length; i++) {
    const item = data[i] as Record<string, unknown> | null
    const at = `data[${i}]`
    if (typeof item !== 'object' || item === null || Array.isArray(item))
      return v(at, 'must be an object { sn, name?, tags?, lonlat? }', INVALID_PARAMS)
    // The spec marks sn optional, but an update without one names nothing to update.
    if (typeof item.sn !== 'string' || item.sn.length === 0)
      return v(`${at}.sn`, 'must be the serial number to update', INVALID_PARAMS)
    if (item.name !== undefined && typeof item.name !== 'string')
      return v(`${at}.name`, 'must be a string', INVALID_PARAMS)
    if (item.tags !== undefined && (!Array.isArray(item.tags) || !item.tags.every((t) => typeof t === 'string')))
      return v(`${at}.tags`, 'must be an array of strings', INVALID_PARAMS)
    if (item.lonlat !== undefined) {
      const ll = item.lonlat as unknown[]
      const ok =
        Array.isArray(ll) &&
        ll.length === 2 &&
        typeof ll[0] === 'number' &&
        typeof ll[1] === 'number' &&
        Math.abs(ll[0]) <= 180 &&
        Math.abs(ll[1]) <= 90
      if (!ok) return v(`${at}.lonlat`, 'must be [longitude, latitude] in degrees', INVALID_PARAMS)
    }
  }
  return undefined
}
