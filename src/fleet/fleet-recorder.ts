/**
 * Records a fleet run for review (`beaconkit fleet --record`, `beaconkit replay … --http`): the
 * tracker's fused view, not its raw inputs, so a day stays small and replays without a broker.
 * JSONL, one event per line with `t` on the tracker's clock:
 *
 * - header `{"format":"beaconkit-fleet","version":1,"site"?}`
 * - `{"t","event":"keyframe","beacons":[…]}` every 60 s: every beacon present (seeking starts here)
 * - `{"t","event":"beacons","beacons":[…]}` each second: the beacons that changed (room,
 *   position by 0.5 m, the gateways hearing it, RSSI by 3 dB)
 * - `{"t","event":"found"|"gone","id","room"?}`, `{"t","event":"room","id","from"?,"to"}`,
 *   `{"t","event":"gateway","gateway","state"}`
 * - `{"t","event":"site","site"}`: the site the running fleet took then (an edited site file)
 *
 * Beacons are the `<p>/fleet/beacons/<id>` payloads (FleetBeacon): no key, no password.
 */
import { createWriteStream } from 'node:fs'
import type { WriteStream } from 'node:fs'
import { InvalidOptionError } from '../errors.js'
import { subscribe } from '../util/subscribe.js'
import type { FleetTracker } from './tracker.js'
import type { FleetGatewayEvent } from './tracker-types.js'
import type { FleetBeacon } from './fleet-beacon.js'
import type { RoomChange } from './room-choice.js'
import type { Site } from '../positioning/site.js'

/** The header's `format`. */
export const FLEET_RECORDING_FORMAT = 'beaconkit-fleet'

const KEYFRAME_MS = 60_000

/** A Site back in the JSON shape of docs/fleet.md, for the recording's header. */
export function siteToJSON(site: Site): Record<string, unknown> {
  const anchors = Object.fromEntries(
    site.anchorList().map((a) => [
      a.id,
      {
        ...(a.x === undefined ? {} : { x: a.x }),
        ...(a.y === undefined ? {} : { y: a.y }),
        ...(a.z === undefined ? {} : { z: a.z }),
        ...(a.room === undefined ? {} : { room: a.room }),
      },
    ]),
  )
  return {
    [site.kind === 'beacons' ? 'anchorBeacons' : 'gateways']: anchors,
    ...(site.area === undefined ? {} : { area: site.area }),
    rooms: site.rooms.map((r) => (r.polygon === undefined ? { name: r.name } : { name: r.name, polygon: r.polygon })),
    // The replayed map draws the walls too (Site.fromJSON reads this form back).
    ...(site.walls.length === 0
      ? {}
      : {
          walls: site.walls.map((w) => ({
            from: w.from,
            to: w.to,
            ...(w.attenuationDb === undefined ? {} : { attenuationDb: w.attenuationDb }),
          })),
        }),
    ...(site.beaconNames.length === 0 ? {} : { beacons: site.beaconNames.map((b) => ({ ...b })) }),
  }
}

function round(n: number, step: number): number {
  return Math.round(n / step)
}

/** What must differ for a beacon to be written again. */
function signature(b: FleetBeacon): string {
  const p = b.position === undefined ? '' : `${round(b.position.x, 0.5)},${round(b.position.y, 0.5)}`
  return `${b.room ?? ''}|${p}|${b.gateways.map((g) => `${g.gateway}:${round(g.rssi, 3)}`).join(',')}`
}

function compact(b: FleetBeacon): FleetBeacon {
  const out: FleetBeacon = {
    id: b.id,
    time: b.time,
    present: true,
    gateways: b.gateways.map((g) => ({ ...g, rssi: Math.round(g.rssi * 10) / 10 })),
    firstSeen: b.firstSeen,
    lastSeen: b.lastSeen,
  }
  if (b.room !== undefined) out.room = b.room
  if (b.position !== undefined) out.position = b.position
  if (b.name !== undefined) out.name = b.name
  return out
}

/**
 * Writes a fleet recording.
 *
 * ```ts
 * const recorder = await FleetRecorder.create('day.jsonl', { site })
 * recorder.attach(tracker)
 * // …
 * await recorder.close()
 * ```
 */
export class FleetRecorder {
  private readonly sent = new Map<string, string>()
  private lastKeyframe = -Infinity
  private detach: (() => void) | undefined
  /** Lines written. */
  written = 0

  private constructor(private readonly out: WriteStream) {}

  /** Creates the file (refusing to overwrite one unless `force`) and writes the header. */
  static async create(path: string, options: { site?: Site; force?: boolean } = {}): Promise<FleetRecorder> {
    const out = createWriteStream(path, { flags: options.force === true ? 'w' : 'wx' })
    await new Promise<void>((resolve, reject) => {
      out.once('open', () => resolve())
      out.once('error', (error: NodeJS.ErrnoException) => {
        const what =
          error.code === 'EEXIST'
            ? 'exists already; give another file name, or add --force to replace it (FleetRecorder.create: force: true)'
            : `cannot be written (${error.code ?? 'error'})`
        reject(
          new InvalidOptionError('unwritable_file', `fleet recording ${path} ${what}`, {
            option: 'record',
            cause: error,
          }),
        )
      })
    })
    const recorder = new FleetRecorder(out)
    recorder.line({
      format: FLEET_RECORDING_FORMAT,
      version: 1,
      ...(options.site === undefined ? {} : { site: siteToJSON(options.site) }),
    })
    return recorder
  }

  private line(value: unknown): void {
    this.out.write(`${JSON.stringify(value)}\n`)
    this.written++
  }

  /** Records the tracker's events from now on. */
  attach(tracker: FleetTracker): void {
    this.detach?.()
    const now = (): number => tracker.clock.now()
    const onUpdated = (list: FleetBeacon[]): void => {
      const t = now()
      if (t - this.lastKeyframe >= KEYFRAME_MS) {
        this.lastKeyframe = t
        this.line({ t, event: 'keyframe', beacons: list.map(compact) })
        for (const b of list) this.sent.set(b.id, signature(b))
        return
      }
      const changed = list.filter((b) => this.sent.get(b.id) !== signature(b))
      if (changed.length === 0) return
      for (const b of changed) this.sent.set(b.id, signature(b))
      this.line({ t, event: 'beacons', beacons: changed.map(compact) })
    }
    const onFound = (b: FleetBeacon): void =>
      this.line({ t: now(), event: 'found', id: b.id, ...(b.room === undefined ? {} : { room: b.room }) })
    const onGone = (b: FleetBeacon): void => {
      this.sent.delete(b.id)
      this.line({ t: now(), event: 'gone', id: b.id })
    }
    const onRoom = (b: FleetBeacon, c: RoomChange): void =>
      this.line({ t: now(), event: 'room', id: b.id, ...(c.from === undefined ? {} : { from: c.from }), to: c.to })
    const onGateway = (g: FleetGatewayEvent): void =>
      this.line({ t: g.time, event: 'gateway', gateway: g.gateway, state: g.state })
    this.detach = subscribe(tracker, {
      updated: onUpdated,
      found: onFound,
      gone: onGone,
      room: onRoom,
      gateway: onGateway,
    })
  }

  /**
   * The running fleet took a new site at `t` (its clock): from then on the replayed map draws it.
   * A reader of an earlier version skips the line (counted as not of the format).
   */
  site(site: Site, t: number): void {
    this.line({ t, event: 'site', site: siteToJSON(site) })
  }

  /** Stops recording and closes the file once everything is written. */
  async close(): Promise<void> {
    this.detach?.()
    this.detach = undefined
    await new Promise<void>((resolve) => this.out.end(() => resolve()))
  }
}
