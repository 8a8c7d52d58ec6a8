/**
 * The fleet's side of `beaconkit fleet teach` (#39): on the fleet's connection it reads the
 * non-retained commands of `<p>/fleet/teach` (teach-command.ts), starts the teaching in the room
 * method, and answers on `<p>/fleet/teach/<request>` — at once (`done: false`, or `ok: false` and
 * why), and once the sample is stored and saved to the fingerprint file (`done: true`). A teaching
 * that gathers no reading is answered `ok: false` a few seconds after its end. Bounded: a command
 * is at most 1 KiB, at most {@link MAX_PENDING_TEACHINGS} wait at once.
 */

import type { FleetTracker } from '../fleet/tracker.js'
import { readTeachCommand, teachAnswerTopic, teachCommandTopic } from '../fleet/teach-command.js'
import type { TeachAnswer, TeachCommand } from '../fleet/teach-command.js'
import type { SharedClient } from '../mqtt/shared-connection.js'
import type { FleetRooms } from './fleet-rooms.js'

/** Teachings waiting for their sample at most; a command beyond is refused. */
export const MAX_PENDING_TEACHINGS = 64
/** How long after its end a teaching without a sample is answered as failed (ms). */
const GRACE_MS = 5000

interface Pending {
  command: TeachCommand
  until: number
  /** Whether the teaching came over MQTT and is answered there (the editor's are not). */
  answer: boolean
}

/** Why a teaching was not started. */
export interface TeachRefusal {
  code: 'no_room_method' | 'no_fingerprint_file' | 'unknown_room' | 'beacon_not_heard' | 'too_many_teachings'
  message: string
}

/** Answers teach commands for one fleet (see the file comment). */
export class FleetTeach {
  private readonly pending: Pending[] = []
  private timer: NodeJS.Timeout | undefined
  private readonly topic: string

  constructor(
    private readonly client: SharedClient,
    private readonly topicPrefix: string,
    private readonly tracker: FleetTracker,
    private readonly rooms: FleetRooms,
    private readonly warn: (text: string) => void,
  ) {
    this.topic = teachCommandTopic(topicPrefix)
  }

  /** Subscribes to the command topic and checks the teachings every second. */
  start(): void {
    this.client.on('message', (topic: string, payload: Buffer, packet: { retain?: boolean }) => {
      if (topic === this.topic) this.onCommand(payload, packet.retain === true)
    })
    // The session is clean: each connection subscribes again. Connection errors are the tracker's to report.
    const subscribe = (): void => void this.client.subscribe([this.topic], { qos: 1 })
    this.client.on('connect', subscribe)
    this.client.on('error', () => undefined)
    if (this.client.connected) subscribe()
    this.timer = setInterval(() => void this.tick(), 1000)
    this.timer.unref()
  }

  /** Stops checking; what was taught is saved by the fleet's stop. */
  stop(): void {
    if (this.timer !== undefined) clearInterval(this.timer)
    this.timer = undefined
    this.client.end()
  }

  private answer(c: TeachCommand, a: Omit<TeachAnswer, 'request' | 'id' | 'room'>): void {
    const body: TeachAnswer = { request: c.request, id: c.id, room: c.room, ...a }
    this.client.publish(teachAnswerTopic(this.topicPrefix, c.request), JSON.stringify(body), { qos: 1, retain: false })
  }

  private onCommand(payload: Buffer, retained: boolean): void {
    // A command is sent once; a retained one would teach again on every connection.
    const c = retained ? undefined : readTeachCommand(payload)
    if (c === undefined) return
    const refusal = this.begin(c, true)
    if (refusal === undefined) this.answer(c, { ok: true, done: false })
    else this.answer(c, { ok: false, done: false, error: refusal.message })
  }

  /**
   * Starts teaching `room` with beacon `id` for `seconds`, as the editor's "teach this room with
   * this tag" asks (`POST /api/teach`); the outcome shows as the room's fingerprints once stored.
   * @returns undefined when it started, else why not (a code for the HTTP answer and a message)
   */
  teachNow(id: string, room: string, seconds: number): TeachRefusal | undefined {
    return this.begin({ id, room, seconds, request: '' }, false)
  }

  private begin(c: TeachCommand, answer: boolean): TeachRefusal | undefined {
    const locator = this.rooms.rooms
    const now = this.tracker.clock.now()
    const no = (code: TeachRefusal['code'], message: string): TeachRefusal => ({ code, message })
    if (locator === undefined)
      return no('no_room_method', 'the fleet decides rooms by the strongest gateway: run it with --rooms plan')
    if (this.rooms.file === undefined)
      return no(
        'no_fingerprint_file',
        'the fleet runs without --fingerprints <file>: what it is taught would not be kept',
      )
    if (!locator.site.rooms.some((r) => r.name === c.room)) return no('unknown_room', `the site has no room ${c.room}`)
    if (this.tracker.get(c.id) === undefined)
      return no('beacon_not_heard', `beacon ${c.id} is not heard by the fleet now`)
    if (this.pending.length >= MAX_PENDING_TEACHINGS)
      return no('too_many_teachings', 'too many teachings under way; try again later')
    if (!locator.teach(c.id, c.room, now, c.seconds)) return no('unknown_room', `the site has no room ${c.room}`)
    this.pending.push({ command: c, until: now + c.seconds * 1000, answer })
    return undefined
  }

  private async tick(): Promise<void> {
    const locator = this.rooms.rooms
    if (locator === undefined) return
    const now = this.tracker.clock.now()
    const taught = locator.takeTaught()
    if (taught.length > 0) await this.rooms.save(Date.now())
    for (const sample of taught) {
      const i = this.pending.findIndex((p) => p.command.room === sample.room && now >= p.until)
      if (i < 0) continue
      const [p] = this.pending.splice(i, 1)
      if (p.answer) this.answer(p.command, { ok: true, done: true, gateways: Object.keys(sample.gateways).length })
    }
    for (let i = this.pending.length - 1; i >= 0; i--) {
      const p = this.pending[i]
      if (now < p.until + GRACE_MS) continue
      this.pending.splice(i, 1)
      this.warn(`fleet teach: ${p.command.id} in ${p.command.room} gave no reading; nothing was taught`)
      if (p.answer)
        this.answer(p.command, { ok: false, done: true, error: 'no gateway heard the beacon while it was taught' })
    }
  }
}
