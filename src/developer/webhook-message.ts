/**
 * The webhook's two messages (platform docs 6.2 sensor data, 6.3 task event): checked field by field,
 * so a handler only ever sees a message of the documented shape. Pure: JSON value in, a typed
 * message or the first problem out.
 */

/** x, y, z of a magnetometer, accelerometer or gyroscope. */
export interface Vector3 {
  x: number
  y: number
  z: number
}

/** Content of a sensor data push (6.2); every member optional, other members passed on as sent. */
export interface SensorData {
  battery?: number
  interval?: number
  temperature?: number
  light?: number
  humidity?: number
  ch4?: number
  pm2_5?: number
  leak?: boolean
  smoke?: number
  magnetic?: Vector3
  /** Longitude, latitude. */
  lonlat?: [number, number]
  accelerometer?: Vector3
  gyro?: Vector3
  /** User-defined data. */
  customer?: string
  [other: string]: unknown
}

/** A sensor data push (6.2, type `text`). */
export interface DataMessage {
  appId: string
  sn: string
  type: 'text'
  deviceType: string
  /** As sent (the spec says Timestamp; the platform's samples are ms numbers). */
  createdTime: number | string
  /** As sent (the spec says Number); de-duplication compares it as text. */
  msgId: number | string
  data: SensorData
}

/** A task event (6.3, type `event`). */
export interface TaskEvent {
  appId: string
  /** As returned by the downlink call (a String in the spec, a Number in its sample: always text here). */
  taskId: string
  type: 'event'
  createdTime: number | string
  msgId: number | string
  data: { resultCode: 0 | 1; resultData?: Record<string, unknown> }
}

/** One parsed push. */
export type WebhookMessage = DataMessage | TaskEvent

const NUMBERS = ['battery', 'interval', 'temperature', 'light', 'humidity', 'ch4', 'pm2_5', 'smoke'] as const
const VECTORS = ['magnetic', 'accelerometer', 'gyro'] as const

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

const finite = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

/**
 * Longest appId, sn, deviceType, taskId and msgId taken (characters). The spec gives no length;
 * real ones are a few dozen characters at most, and a longer one is refused (400, `malformed`)
 * rather than carried into the handler, logs and the de-dup memory.
 */
export const MAX_ID_LENGTH = 128

/** The problem with an id field that must be a non-empty string of at most MAX_ID_LENGTH characters. */
function idProblem(v: unknown, field: string, allowEmpty = false): string | undefined {
  if (typeof v !== 'string' || (!allowEmpty && v === ''))
    return `${field} must be a ${allowEmpty ? '' : 'non-empty '}string`
  if (v.length > MAX_ID_LENGTH) return `${field} must be at most ${MAX_ID_LENGTH} characters`
  return undefined
}

/** The msgId as text, when it is a usable one (a non-negative integer, or a non-empty string). */
export function msgIdOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value)
  if (typeof value === 'string' && value.length > 0 && value.length <= MAX_ID_LENGTH) return value
  return undefined
}

function sensorData(data: unknown): string | undefined {
  if (!isObject(data)) return 'data must be an object'
  for (const k of NUMBERS) if (data[k] !== undefined && !finite(data[k])) return `data.${k} must be a number`
  for (const k of VECTORS) {
    const v = data[k]
    if (v !== undefined && (!isObject(v) || !finite(v.x) || !finite(v.y) || !finite(v.z)))
      return `data.${k} must be {x, y, z} numbers`
  }
  if (data.leak !== undefined && typeof data.leak !== 'boolean') return 'data.leak must be true or false'
  const ll = data.lonlat
  if (ll !== undefined && !(Array.isArray(ll) && ll.length === 2 && finite(ll[0]) && finite(ll[1])))
    return 'data.lonlat must be [longitude, latitude]'
  if (data.customer !== undefined && typeof data.customer !== 'string') return 'data.customer must be a string'
  return undefined
}

/**
 * Checks a decoded push. Returns the message, or the first problem as text. A message still
 * carrying `encryptData` is not handled here: decrypt it first.
 */
export function parseWebhookMessage(value: unknown): { message: WebhookMessage } | { problem: string } {
  if (!isObject(value)) return { problem: 'the body must be a JSON object' }
  const m = value
  const appIdProblem = idProblem(m.appId, 'appId')
  if (appIdProblem !== undefined) return { problem: appIdProblem }
  if (msgIdOf(m.msgId) === undefined)
    return {
      problem: `msgId must be a non-negative integer (or a non-empty string of at most ${MAX_ID_LENGTH} characters)`,
    }
  if (!finite(m.createdTime) && typeof m.createdTime !== 'string') return { problem: 'createdTime must be a timestamp' }
  const common = {
    appId: m.appId as string,
    createdTime: m.createdTime as number | string,
    msgId: m.msgId as number | string,
  }
  if (m.type === 'text') {
    const problem = idProblem(m.sn, 'sn') ?? idProblem(m.deviceType, 'deviceType', true)
    if (problem !== undefined) return { problem }
    // Every member of data is optional, and so, by the spec's table, is a packet with none.
    const data = m.data ?? {}
    const dataProblem = sensorData(data)
    if (dataProblem !== undefined) return { problem: dataProblem }
    return {
      message: {
        ...common,
        type: 'text',
        sn: m.sn as string,
        deviceType: m.deviceType as string,
        data: data as SensorData,
      },
    }
  }
  if (m.type === 'event') {
    const taskId = typeof m.taskId === 'number' && Number.isSafeInteger(m.taskId) ? String(m.taskId) : m.taskId
    if (typeof taskId !== 'string' || taskId === '' || taskId.length > MAX_ID_LENGTH)
      return { problem: `taskId must be a task id (an integer, or a string of at most ${MAX_ID_LENGTH} characters)` }
    const data = m.data
    if (!isObject(data) || (data.resultCode !== 0 && data.resultCode !== 1))
      return { problem: 'data.resultCode must be 0 (success) or 1 (fail)' }
    if (data.resultData !== undefined && !isObject(data.resultData))
      return { problem: 'data.resultData must be an object' }
    const out: TaskEvent['data'] = { resultCode: data.resultCode }
    if (data.resultData !== undefined) out.resultData = data.resultData as Record<string, unknown>
    return { message: { ...common, type: 'event', taskId, data: out } }
  }
  return { problem: "type must be 'text' (sensor data) or 'event' (task event)" }
}
