/**
 * `<p>/fleet/teach` (#39): `beaconkit fleet teach <beacon-id> <room> [--seconds 20]` asks the
 * running fleet to record that beacon's RSSI pattern as a fingerprint of the room, with a
 * non-retained `{"id", "room", "seconds", "request"}`; the fleet answers on
 * `<p>/fleet/teach/<request>` with `{"request", "ok", "room", "id", "error"?, "gateways"?}` (not
 * retained) when it starts and when it is done. Only clients the broker's ACL lets write the
 * fleet's command topics may teach (docs/fleet.md, "Running on a shared broker"). Anyone who may
 * publish there can send anything, so the payload is bounded and every field checked.
 */
import { isTopicLevel } from '../util/topic-level.js'

/** A teach command larger than this is not one. */
export const MAX_TEACH_COMMAND_BYTES = 1024
/** Seconds a teaching lasts by default, and at most. */
export const DEFAULT_TEACH_SECONDS = 20
export const MAX_TEACH_SECONDS = 300

const REQUEST = /^[A-Za-z0-9_-]{1,64}$/

/** A teach command as read. */
export interface TeachCommand {
  id: string
  room: string
  seconds: number
  /** Names the answer's topic: the command line waits there. */
  request: string
}

/** The fleet's answer. `ok: true` with `done: false` when it starts, `done: true` once stored. */
export interface TeachAnswer {
  request: string
  id: string
  room: string
  ok: boolean
  done: boolean
  /** Why not (an unknown room, a beacon not heard, no `--fingerprints` file). */
  error?: string
  /** Gateways in the stored fingerprint. */
  gateways?: number
}

/** `<p>/fleet/teach` */
export function teachCommandTopic(topicPrefix: string): string {
  return `${topicPrefix}/fleet/teach`
}

/** `<p>/fleet/teach/<request>` */
export function teachAnswerTopic(topicPrefix: string, request: string): string {
  return `${topicPrefix}/fleet/teach/${request}`
}

/** The payload of a teach command. */
export function teachCommandPayload(c: TeachCommand): string {
  return JSON.stringify(c)
}

/** The command a payload holds, or undefined when it is not a valid one. */
export function readTeachCommand(payload: Buffer): TeachCommand | undefined {
  if (payload.length === 0 || payload.length > MAX_TEACH_COMMAND_BYTES) return undefined
  let v: unknown
  try {
    v = JSON.parse(payload.toString('utf8'))
  } catch {
    return undefined
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined
  const o = v as Record<string, unknown>
  if (!isTopicLevel(o.id) || typeof o.request !== 'string' || !REQUEST.test(o.request)) return undefined
  if (typeof o.room !== 'string' || o.room.trim() === '' || o.room.length > 64 || /\p{Cc}/u.test(o.room))
    return undefined
  const seconds = o.seconds ?? DEFAULT_TEACH_SECONDS
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 1 || seconds > MAX_TEACH_SECONDS)
    return undefined
  return { id: o.id, room: o.room, seconds, request: o.request }
}

/** The answer a payload holds (the command line reads the fleet's), or undefined. */
export function readTeachAnswer(payload: Buffer): TeachAnswer | undefined {
  if (payload.length === 0 || payload.length > MAX_TEACH_COMMAND_BYTES) return undefined
  try {
    const v = JSON.parse(payload.toString('utf8')) as Partial<TeachAnswer> | null
    if (typeof v !== 'object' || v === null) return undefined
    if (typeof v.request !== 'string' || typeof v.ok !== 'boolean' || typeof v.done !== 'boolean') return undefined
    if (typeof v.id !== 'string' || typeof v.room !== 'string') return undefined
    const a: TeachAnswer = { request: v.request, id: v.id, room: v.room, ok: v.ok, done: v.done }
    if (typeof v.error === 'string') a.error = v.error.slice(0, 200)
    if (typeof v.gateways === 'number' && Number.isSafeInteger(v.gateways)) a.gateways = v.gateways
    return a
  } catch {
    return undefined
  }
}
