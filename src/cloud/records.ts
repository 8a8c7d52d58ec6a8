/**
 * The shapes of the account interface (docs/cloud-upload.md) and the checks that keep bad data
 * out in both directions: what we send is validated before it leaves, what we receive is
 * validated before it reaches the caller, and every complaint names the field at fault.
 */
import type { Beacon, BeaconLogRecord, BeaconReading, GeoLocation, LogSensor } from '../reading.js'

// The record shapes live with the shared vocabulary (reading.ts): the durable queue (queue/,
// below cloud/) stores them too.

/** A log record as read back from the server: older records may lack a msgId. */
export type StoredLogRecord = Omit<BeaconLogRecord, 'msgId'> & { msgId?: string }

/** An account beacon. */
export interface AccountBeacon {
  mac: string
  UMM?: string
  updatedTime?: number
  createTime?: string
  users?: { user: string; createdTime: string }[]
  /** `[longitude, latitude]`. */
  lonlat?: number[]
  sensor?: LogSensor
  tags?: string[]
}

/** A beacon placed on a deployment map. */
export interface PlacedBeacon {
  mac: string
  PosX: number
  PosY: number
  label?: string
  title?: string
  updatedTime?: string
  id?: string
}

/** A deployment map. */
export interface DeploymentMap {
  id: string
  key: string
  name: string
  address?: string
  description?: string
  floor?: string
  imageURL?: string
  user?: string
  createdTime?: number
  tags?: unknown[]
  xScale?: number
  yScale?: number
  __v?: number
  beacons: PlacedBeacon[]
}

/** Thrown by the validators below; `field` is a dotted path such as `logs[3].sensor.light`. */
export class ShapeError extends Error {
  constructor(
    readonly field: string,
    problem: string,
  ) {
    super(`${field} ${problem}`)
    this.name = 'ShapeError'
  }
}

type Obj = Record<string, unknown>

function isObj(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function obj(v: unknown, field: string): Obj {
  if (!isObj(v)) throw new ShapeError(field, 'must be an object')
  return v
}

function str(o: Obj, key: string, path: string, required: boolean): string | undefined {
  const v = o[key]
  if (v === undefined || (v === null && !required)) {
    if (required) throw new ShapeError(`${path}${key}`, 'is required')
    return undefined
  }
  if (typeof v !== 'string') throw new ShapeError(`${path}${key}`, 'must be a string')
  return v
}

function num(o: Obj, key: string, path: string, required: boolean): number | undefined {
  const v = o[key]
  if (v === undefined || (v === null && !required)) {
    if (required) throw new ShapeError(`${path}${key}`, 'is required')
    return undefined
  }
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new ShapeError(`${path}${key}`, 'must be a finite number')
  return v
}

const SERIAL = /^[0-9A-F]{12}$/

/**
 * Normalises a beacon serial number ("mac" in the account interface) to 12 upper-case hex
 * digits; colons or dashes between byte pairs are accepted. Returns undefined when malformed.
 */
export function normalizeSerial(text: string): string | undefined {
  const compact = text.trim().replace(/[:-]/g, '').toUpperCase()
  return SERIAL.test(compact) ? compact : undefined
}

/** Validates the sensor object of a log record or account beacon. */
export function parseSensor(v: unknown, field: string): LogSensor {
  const o = obj(v, field)
  const out: LogSensor = {}
  const p = `${field}.`
  const temperature = num(o, 'temperature', p, false)
  const light = num(o, 'light', p, false)
  const power = num(o, 'power', p, false)
  const accelerometer = num(o, 'accelerometer', p, false)
  if (temperature !== undefined) out.temperature = temperature
  if (light !== undefined) out.light = light
  if (power !== undefined) out.power = power
  if (accelerometer !== undefined) out.accelerometer = accelerometer
  return out
}

function parseLocation(v: unknown, field: string): GeoLocation {
  const o = obj(v, field)
  const lat = num(o, 'lat', `${field}.`, true) as number
  const lon = num(o, 'lon', `${field}.`, true) as number
  if (lat < -90 || lat > 90) throw new ShapeError(`${field}.lat`, 'must be between -90 and 90')
  if (lon < -180 || lon > 180) throw new ShapeError(`${field}.lon`, 'must be between -180 and 180')
  return { lat, lon }
}

/**
 * Validates one beacon log record. `requireMsgId` is true for uploads (the id is what makes
 * redelivery safe) and false for records read back, which older servers may lack.
 */
export function parseLogRecord(v: unknown, field: string, requireMsgId: boolean): BeaconLogRecord {
  const o = obj(v, field)
  const p = `${field}.`
  const msgId = str(o, 'msgId', p, requireMsgId)
  if (requireMsgId && (msgId === undefined || msgId.length === 0 || msgId.length > 128)) {
    throw new ShapeError(`${p}msgId`, 'must be 1 to 128 characters')
  }
  const record: BeaconLogRecord = {
    msgId: msgId ?? '',
    beaconMac: str(o, 'beaconMac', p, true) as string,
    updatedTime: num(o, 'updatedTime', p, true) as number,
    sensor: o.sensor === undefined || o.sensor === null ? {} : parseSensor(o.sensor, `${p}sensor`),
  }
  const umm = str(o, 'beaconUMM', p, false)
  if (umm !== undefined) record.beaconUMM = umm
  if (o.location !== undefined && o.location !== null) record.location = parseLocation(o.location, `${p}location`)
  const v2 = num(o, '__v', p, false)
  if (v2 !== undefined) record.__v = v2
  return record
}

/**
 * Whether a record read back from the upload queue's directory is one the server would take
 * (the check the record passed before it was queued): anything else on disk is damage,
 * dropped and reported, rather than sent to fail its whole batch.
 */
export function isLogRecord(v: object): boolean {
  try {
    parseLogRecord(v, 'record', true)
    return true
  } catch {
    return false
  }
}

/** Validates an account beacon (2.6); only `mac` is required, other fields are checked when present. */
export function parseAccountBeacon(v: unknown, field: string): AccountBeacon {
  const o = obj(v, field)
  const p = `${field}.`
  const beacon: AccountBeacon = { mac: str(o, 'mac', p, true) as string }
  const umm = str(o, 'UMM', p, false)
  if (umm !== undefined) beacon.UMM = umm
  const updated = num(o, 'updatedTime', p, false)
  if (updated !== undefined) beacon.updatedTime = updated
  const created = str(o, 'createTime', p, false)
  if (created !== undefined) beacon.createTime = created
  if (o.users !== undefined && o.users !== null) {
    if (!Array.isArray(o.users)) throw new ShapeError(`${p}users`, 'must be an array')
    beacon.users = o.users.map((u, i) => {
      const uo = obj(u, `${p}users[${i}]`)
      return {
        user: str(uo, 'user', `${p}users[${i}].`, true) as string,
        createdTime: str(uo, 'createdTime', `${p}users[${i}].`, false) ?? '',
      }
    })
  }
  if (o.lonlat !== undefined && o.lonlat !== null) {
    if (!Array.isArray(o.lonlat) || !o.lonlat.every((n) => typeof n === 'number' && Number.isFinite(n))) {
      throw new ShapeError(`${p}lonlat`, 'must be an array of numbers')
    }
    beacon.lonlat = o.lonlat as number[]
  }
  if (o.sensor !== undefined && o.sensor !== null) beacon.sensor = parseSensor(o.sensor, `${p}sensor`)
  if (o.tags !== undefined && o.tags !== null) {
    if (!Array.isArray(o.tags) || !o.tags.every((t) => typeof t === 'string')) {
      throw new ShapeError(`${p}tags`, 'must be an array of strings')
    }
    beacon.tags = o.tags as string[]
  }
  return beacon
}

/** Validates a deployment map (2.8). */
export function parseDeploymentMap(v: unknown, field: string): DeploymentMap {
  const o = obj(v, field)
  const p = `${field}.`
  if (!Array.isArray(o.beacons)) throw new ShapeError(`${p}beacons`, 'must be an array')
  const map: DeploymentMap = {
    id: str(o, 'id', p, true) as string,
    key: str(o, 'key', p, true) as string,
    name: str(o, 'name', p, true) as string,
    beacons: o.beacons.map((b, i) => {
      const bo = obj(b, `${p}beacons[${i}]`)
      const bp = `${p}beacons[${i}].`
      const placed: PlacedBeacon = {
        mac: str(bo, 'mac', bp, true) as string,
        PosX: num(bo, 'PosX', bp, true) as number,
        PosY: num(bo, 'PosY', bp, true) as number,
      }
      for (const k of ['label', 'title', 'updatedTime', 'id'] as const) {
        const s = str(bo, k, bp, false)
        if (s !== undefined) placed[k] = s
      }
      return placed
    }),
  }
  for (const k of ['address', 'description', 'floor', 'imageURL', 'user'] as const) {
    const s = str(o, k, p, false)
    if (s !== undefined) map[k] = s
  }
  for (const k of ['createdTime', 'xScale', 'yScale', '__v'] as const) {
    const n = num(o, k, p, false)
    if (n !== undefined) map[k] = n
  }
  if (o.tags !== undefined && o.tags !== null) {
    if (!Array.isArray(o.tags)) throw new ShapeError(`${p}tags`, 'must be an array')
    map.tags = o.tags
  }
  return map
}

function isFiniteNumber(v: unknown): v is number {
  return typeof v === 'number' && Number.isFinite(v)
}

/**
 * Turns a reading into a log record, or returns undefined when it has no serial number: the
 * account interface identifies beacons by serial number only (2.6 `mac`), so a plain iBeacon
 * without a vendor frame cannot be attributed and is skipped rather than guessed at.
 */
export function toLogRecord(
  reading: BeaconReading | Beacon,
  msgId: string,
  location: GeoLocation | undefined,
): BeaconLogRecord | undefined {
  if (reading.serialNumber === undefined) return undefined
  const sensor: LogSensor = {}
  // null means "switched off" on the device; the record carries only numbers, so it is omitted.
  if (isFiniteNumber(reading.temperature)) sensor.temperature = reading.temperature
  if (isFiniteNumber(reading.light)) sensor.light = reading.light
  if (isFiniteNumber(reading.batteryLevel)) sensor.power = reading.batteryLevel
  if (isFiniteNumber(reading.accelerometerCount)) sensor.accelerometer = reading.accelerometerCount
  const record: BeaconLogRecord = {
    msgId,
    beaconMac: reading.serialNumber,
    updatedTime: reading.timestamp,
    sensor,
  }
  if (reading.beaconID !== undefined) record.beaconUMM = reading.beaconID
  if (location !== undefined) record.location = { lat: location.lat, lon: location.lon }
  return record
}

/** Checks a gateway location option; returns a problem description or undefined when fine. */
export function locationProblem(location: GeoLocation): string | undefined {
  try {
    parseLocation(location, 'location')
    return undefined
  } catch (e) {
    return (e as Error).message
  }
}
