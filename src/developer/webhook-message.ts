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

/** The msgId as text, when it is a usable one (a non-negative integer, or a non-empty string). */
export function msgIdOf(value: unknown): string | undefined {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return String(value)
  if (typeof value === 'string' && value.length > 0 && value.length <= 128) return value
  return undefined
}

function sensorData(data: unknown): string | undefined {
  if (!isObject(data)) return 'data must be an object'
  for (const k of NUMBERS) if (data[k] !== undefined && !finite(data[k])) return `data.${k} must be a number`
  for (const k of VECTORS) {
    const v = data[k]
    if (v !== undefined && (!isObject(v) || !finite(v.x) || !finite(v.y) || !finite(v.z))) return `data.${k} must be {x, y, z} numbers`
  }
  if (data.leak !== undefined && typeof data.leak !== 'boolean') return 'data.leak must be true or false'
  const ll = data.lonlat
  if (ll !== undefined && !(Array.isArray(ll) && ll.length === 2 && finite(ll[0]) && finite(ll[1]))) return 'data.lonlat must be [longitude, latitude]'
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
  if (typeof m.appId !== 'string' || m.appId === '') return { problem: 'appId must be a non-empty string' }
  if (msgIdOf(m.msgId) === undefined) return { problem: 'msgId must be a non-negative integer (or a non-empty string)' }
  if (!finite(m.createdTime) && typeof m.createdTime !== 'string') return { problem: 'createdTime must be a timestamp' }
  const common = { appId: m.appId, createdTime: m.createdTime as number | string, msgId: m.msgId as number | string }
  if (m.type === 'text') {
    if (typeof m.sn !== 'string' || m.sn === '') return { problem: 'sn must be a non-empty string' }
    if (typeof m.deviceType !== 'string') return { problem: 'deviceType must be a string' }
    // Every member of data is optional, and so, by the spec's table, is a packet with none.
    const data = m.data ?? {}
    const problem = sensorData(data)
    if (problem !== undefined) return { problem }
    return { message: { ...common, type: 'text', sn: m.sn, deviceType: m.deviceType, data: data as SensorData } }
  }
  if (m.type === 'event') {
    const taskId = typeof m.taskId === 'number' && Number.isSafeInteger(m.taskId) ? String(m.taskId) : m.taskId
    if (typeof taskId !== 'string' || taskId === '') return { problem: 'taskId must be a task id (a string or an integer)' }
    const data = m.data
    if (!isObject(data) || (data.resultCode !== 0 && data.resultCode !== 1)) return { problem: 'data.resultCode must be 0 (success) or 1 (fail)' }
    if (data.resultData !== undefined && !isObject(data.resultData)) return { problem: 'data.resultData must be an object' }
    const out: TaskEvent['data'] = { resultCode: data.resultCode }
    if (data.resultData !== undefined) out.resultData = data.resultData as Record<string, unknown>
    return { message: { ...common, type: 'event', taskId, data: out } }
  }
  return { problem: "type must be 'text' (sensor data) or 'event' (task event)" }
}
