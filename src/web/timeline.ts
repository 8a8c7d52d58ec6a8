/**
 * A fleet recording (fleet/fleet-recorder.ts) loaded for review: the page's slider asks for the
 * view at any moment, rebuilt from the keyframe before it plus the changes since. Lines that are
 * not of the format are skipped and counted, never thrown.
 */
import { createReadStream } from 'node:fs'
import { createInterface } from 'node:readline'
import { InvalidOptionError } from '../errors.js'
import { Site } from '../positioning/site.js'
import { MAX_NAME_LENGTH } from '../positioning/beacon-names.js'
import { FLEET_RECORDING_FORMAT } from '../fleet/fleet-recorder.js'
import type { FleetBeacon } from '../fleet/fleet-beacon.js'
import { gatewaysOf, planOf, viewOfFleetBeacon } from './view.js'
import type { LiveSnapshot } from './live-view.js'
import { TimelineIndex } from './timeline-index.js'
import type { TimelineEntry as Entry } from './timeline-index.js'

const isText = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= 256
const isNum = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)

function readBeacon(v: unknown): FleetBeacon | undefined {
  if (typeof v !== 'object' || v === null) return undefined
  const o = v as Record<string, unknown>
  if (!isText(o.id) || !Array.isArray(o.gateways) || !isNum(o.firstSeen) || !isNum(o.lastSeen)) return undefined
  const gateways = o.gateways.flatMap((g: unknown) => {
    const r = g as Record<string, unknown> | null
    if (r === null || typeof r !== 'object' || !isText(r.gateway) || !isNum(r.rssi)) return []
    return [
      {
        gateway: r.gateway,
        rssi: r.rssi,
        lastSeen: isNum(r.lastSeen) ? r.lastSeen : (o.lastSeen as number),
        ...(isNum(r.distance) ? { distance: r.distance } : {}),
      },
    ]
  })
  const b: FleetBeacon = {
    id: o.id,
    time: isNum(o.time) ? o.time : (o.lastSeen as number),
    present: true,
    gateways,
    firstSeen: o.firstSeen,
    lastSeen: o.lastSeen,
  }
  if (isText(o.room)) b.room = o.room
  if (isText(o.name) && o.name.length <= MAX_NAME_LENGTH) b.name = o.name
  const p = o.position as Record<string, unknown> | undefined
  if (p !== undefined && p !== null && typeof p === 'object' && isNum(p.x) && isNum(p.y) && isNum(p.accuracy))
    b.position = { x: p.x, y: p.y, accuracy: p.accuracy }
  return b
}

function readEntry(o: Record<string, unknown>): Entry | undefined {
  const t = o.t
  if (!isNum(t)) return undefined
  switch (o.event) {
    case 'keyframe':
    case 'beacons': {
      if (!Array.isArray(o.beacons)) return undefined
      const beacons = o.beacons.map(readBeacon).filter((b): b is FleetBeacon => b !== undefined)
      return { t, event: o.event, beacons }
    }
    case 'gone':
      return isText(o.id) ? { t, event: 'gone', id: o.id } : undefined
    case 'found':
      return isText(o.id) ? { t, event: 'found', id: o.id, ...(isText(o.room) ? { room: o.room } : {}) } : undefined
    case 'room':
      if (!isText(o.id) || !isText(o.to)) return undefined
      return { t, event: 'room', id: o.id, ...(isText(o.from) ? { from: o.from } : {}), room: o.to }
    case 'gateway':
      return isText(o.gateway) && (o.state === 'online' || o.state === 'offline' || o.state === 'forgotten')
        ? { t, event: 'gateway', gateway: o.gateway, state: o.state }
        : undefined
    default:
      return undefined
  }
}

const HISTORY = 60

/** A `{"t","event":"site","site"}` line: the site the fleet took at `t`, if it reads as one. */
function siteChange(r: Record<string, unknown>): { t: number; site: Site } | undefined {
  if (typeof r.t !== 'number' || !Number.isFinite(r.t)) return undefined
  try {
    return { t: r.t, site: Site.fromJSON(r.site) }
  } catch {
    return undefined
  }
}

/** A loaded fleet recording: its site, its time span, and the view at any moment of it. */
export class FleetTimeline {
  /** Lines skipped as not of the format. */
  readonly malformed: number
  readonly site: Site | undefined
  readonly start: number
  readonly end: number
  private readonly entries: Entry[]
  private readonly index: TimelineIndex
  /** The sites the fleet took while recording, in time order (the header's is `site`). */
  private readonly sites: { t: number; site: Site }[]
  /** Each recorded beacon's name (the last it was recorded with), for the log's lines. */
  private readonly names = new Map<string, string>()

  private constructor(
    site: Site | undefined,
    entries: Entry[],
    malformed: number,
    sites: { t: number; site: Site }[] = [],
  ) {
    this.site = site
    this.sites = sites.sort((a, b) => a.t - b.t)
    // Lines are written in time order; a stable sort keeps it so if a clock stepped back.
    this.entries = entries
      .map((e, i) => ({ e, i }))
      .sort((a, b) => a.e.t - b.e.t || a.i - b.i)
      .map((x) => x.e)
    this.malformed = malformed
    this.start = this.entries[0]?.t ?? 0
    this.end = this.entries[this.entries.length - 1]?.t ?? 0
    this.index = new TimelineIndex(this.entries)
    for (const e of this.entries) {
      if (e.event !== 'keyframe' && e.event !== 'beacons') continue
      for (const b of e.beacons) if (b.name !== undefined) this.names.set(b.id, b.name)
    }
  }

  /** Whether a file starts with the fleet recording header (false for advertisement recordings). */
  static async isFleetRecording(path: string): Promise<boolean> {
    const lines = createInterface({ input: createReadStream(path, { end: 64 * 1024 }), crlfDelay: Infinity })
    try {
      for await (const line of lines) {
        try {
          return (JSON.parse(line) as { format?: unknown }).format === FLEET_RECORDING_FORMAT
        } catch {
          return false
        }
      }
      return false
    } finally {
      lines.close()
    }
  }

  /** Reads a recording; throws InvalidOptionError when the file is not one. */
  static async load(path: string): Promise<FleetTimeline> {
    const input = createReadStream(path)
    const opened = new Promise<void>((resolve, reject) => {
      input.once('open', () => resolve())
      input.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          new InvalidOptionError(
            error.code === 'ENOENT' ? 'file_not_found' : 'unreadable_file',
            `fleet recording ${path} cannot be read (${error.code ?? 'error'})`,
            { option: 'file', cause: error },
          ),
        ),
      )
    })
    await opened
    let site: Site | undefined
    let header = false
    let malformed = 0
    const entries: Entry[] = []
    const sites: { t: number; site: Site }[] = []
    for await (const line of createInterface({ input, crlfDelay: Infinity })) {
      if (line.trim() === '') continue
      let o: unknown
      try {
        o = JSON.parse(line)
      } catch {
        malformed++
        continue
      }
      if (typeof o !== 'object' || o === null) {
        malformed++
        continue
      }
      const r = o as Record<string, unknown>
      if (!header) {
        if (r.format !== FLEET_RECORDING_FORMAT)
          throw new InvalidOptionError(
            'not_a_recording',
            `${path} is not a fleet recording ` +
              `(its first line is not {"format":"${FLEET_RECORDING_FORMAT}",…}); ` +
              'record one with `beaconkit fleet --record`',
            { option: 'file' },
          )
        header = true
        if (r.site !== undefined) {
          try {
            site = Site.fromJSON(r.site)
          } catch {
            malformed++
          }
        }
        continue
      }
      const changed = r.event === 'site' ? siteChange(r) : undefined
      if (changed !== undefined) {
        sites.push(changed)
        continue
      }
      const entry = readEntry(r)
      if (entry === undefined) malformed++
      else entries.push(entry)
    }
    if (!header)
      throw new InvalidOptionError(
        'not_a_recording',
        `${path} is empty: a fleet recording starts with its header line`,
        { option: 'file' },
      )
    return new FleetTimeline(site, entries, malformed, sites)
  }

  /** Index of the last entry at or before `t`, or −1. */
  private indexAt(t: number): number {
    let lo = 0
    let hi = this.entries.length - 1
    let found = -1
    while (lo <= hi) {
      const mid = (lo + hi) >> 1
      if (this.entries[mid].t <= t) {
        found = mid
        lo = mid + 1
      } else hi = mid - 1
    }
    return found
  }

  /** The site in force at `t`: the last one the fleet took by then, else the header's. */
  siteAt(t: number): Site | undefined {
    let site = this.site
    for (const s of this.sites) {
      if (s.t > t) break
      site = s.site
    }
    return site
  }

  /** The page's view at time `t` (clamped to the recording). */
  snapshot(at: number): LiveSnapshot & { replay: { start: number; end: number; at: number } } {
    const t = Math.min(this.end, Math.max(this.start, at))
    const last = this.indexAt(t)
    const from = this.index.replayFrom(last)
    const beacons = new Map<string, FleetBeacon>()
    const history = new Map<string, number[]>()
    const trails = new Map<string, [number, number][]>()
    for (let i = from; i <= last; i++) {
      const e = this.entries[i]
      if (e.event === 'keyframe' || e.event === 'beacons') {
        if (e.event === 'keyframe') beacons.clear()
        for (const b of e.beacons) {
          beacons.set(b.id, b)
          const h = history.get(b.id) ?? []
          h.push(b.gateways[0]?.rssi ?? -127)
          if (h.length > HISTORY) h.shift()
          history.set(b.id, h)
          if (b.position !== undefined) {
            const tr = trails.get(b.id) ?? []
            tr.push([b.position.x, b.position.y])
            if (tr.length > 12) tr.shift()
            trails.set(b.id, tr)
          }
        }
      } else if (e.event === 'gone') beacons.delete(e.id)
    }
    // Gateway states and the log depend on every line before: from the nearest checkpoint.
    const site = this.siteAt(t)
    const { gateways, log } = this.index.stateAt(last, gatewaysOf(site))
    for (const b of beacons.values())
      for (const g of b.gateways)
        if ((gateways.get(g.gateway)?.state ?? 'unknown') === 'unknown')
          gateways.set(g.gateway, { ...(gateways.get(g.gateway) ?? { id: g.gateway }), state: 'online' })
    const present = [...beacons.values()].filter((b) => history.has(b.id))
    return {
      mode: 'fleet',
      time: t,
      plan: planOf(site, undefined),
      gateways: [...gateways.values()],
      beacons: present.map((b) => viewOfFleetBeacon(b, undefined)),
      history: Object.fromEntries([...history].filter(([id]) => beacons.has(id))),
      trails: Object.fromEntries([...trails].filter(([id]) => beacons.has(id))),
      log: log.map((e) => {
        const name = e.event === 'online' || e.event === 'offline' ? undefined : this.names.get(e.id)
        return name === undefined ? e : { ...e, name }
      }),
      replay: { start: this.start, end: this.end, at: t },
    }
  }
}
