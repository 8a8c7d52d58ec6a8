/**
 * Names for beacons: the site file's `beacons` list (docs/fleet.md "The site file") names a
 * beacon by its id or by its serial number. The names go into the fleet topics, Home Assistant,
 * the fleet table and the map; a list also says which beacons Home Assistant is told of (only
 * those). Read once from a trusted file, yet bounded like everything else: a file of a million
 * entries or megabyte names is a mistake to report, not to hold.
 */
import { InvalidOptionError } from '../errors.js'
import { isTopicLevel } from '../util/topic-level.js'

/** One named beacon: an id, a serial number or both, and its name. */
export interface BeaconName {
  id?: string
  serialNumber?: string
  name: string
  /** False: named, yet not announced to Home Assistant (default true). */
  announce?: false
}

/** Entries of a `beacons` list at most. */
export const MAX_NAMED_BEACONS = 10_000
/** Characters of a name (and of a serial number) at most. */
export const MAX_NAME_LENGTH = 64

function bad(what: string, fix: string): InvalidOptionError {
  return new InvalidOptionError('invalid_option', `site: ${what}; ${fix}`, { option: 'site' })
}

function isName(v: unknown): v is string {
  return typeof v === 'string' && v.trim() !== '' && v.length <= MAX_NAME_LENGTH && !/\p{Cc}/u.test(v)
}

/**
 * The named entries of a site file's `beacons` list: `[{ "id"?, "serialNumber"?, "name" }]`.
 * `serial` is read as `serialNumber` (the spelling of the site simulator's beacons, which share
 * the list); an entry without `name` names nothing (a simulated beacon left unnamed) and is
 * skipped. Throws `InvalidOptionError` naming the first entry that is wrong.
 */
export function readBeaconNames(v: unknown): BeaconName[] {
  if (v === undefined) return []
  if (!Array.isArray(v))
    throw bad(
      'beacons is not a list',
      'list each beacon as { "id": "…", "name": "…" } or { "serialNumber": "…", "name": "…" }',
    )
  if (v.length > MAX_NAMED_BEACONS)
    throw bad(`beacons lists ${v.length} entries`, `name at most ${MAX_NAMED_BEACONS} beacons`)
  const out: BeaconName[] = []
  v.forEach((e: unknown, i) => {
    if (typeof e !== 'object' || e === null || Array.isArray(e))
      throw bad(`beacons[${i}] is not an object`, 'write { "id": "…", "name": "…" }')
    const o = e as Record<string, unknown>
    if (o.name === undefined) return
    if (!isName(o.name))
      throw bad(`beacons[${i}].name is not a name`, `give a text of 1 to ${MAX_NAME_LENGTH} characters`)
    const serial = o.serialNumber ?? o.serial
    if (o.id !== undefined && !isTopicLevel(o.id))
      throw bad(
        `beacons[${i}].id is not a beacon id`,
        'give the id as beaconkit reports it (no "/", "+", "#" or control characters)',
      )
    if (serial !== undefined && !isName(serial))
      throw bad(
        `beacons[${i}].serialNumber is not a serial number`,
        'give it as the beacon reports it, e.g. "0117C5000001"',
      )
    if (o.announce !== undefined && typeof o.announce !== 'boolean')
      throw bad(`beacons[${i}].announce is not true or false`, 'write "announce": false to keep it from Home Assistant')
    if (o.id === undefined && serial === undefined)
      throw bad(`beacons[${i}] (${o.name}) has neither "id" nor "serialNumber"`, 'say which beacon the name is for')
    const entry: BeaconName = { name: o.name }
    if (o.id !== undefined) entry.id = o.id as string
    if (serial !== undefined) entry.serialNumber = serial as string
    if (o.announce === false) entry.announce = false
    out.push(entry)
  })
  return out
}

/**
 * Looks names up by id, then by serial number. Without entries every beacon is "listed" (there
 * is no list); with entries, only a beacon named by its id or serial number is.
 */
export class BeaconNames {
  private readonly byId = new Map<string, string>()
  private readonly bySerial = new Map<string, string>()
  /** Ids and serial numbers named but marked `announce: false`. */
  private readonly quiet = new Set<string>()

  constructor(readonly entries: readonly BeaconName[]) {
    for (const e of entries) {
      if (e.id !== undefined) this.byId.set(e.id, e.name)
      if (e.serialNumber !== undefined) this.bySerial.set(e.serialNumber, e.name)
      if (e.announce === false) for (const key of [e.id, e.serialNumber]) if (key !== undefined) this.quiet.add(key)
    }
  }

  /** Whether a list was given. */
  get listing(): boolean {
    return this.entries.length > 0
  }

  /** The beacon's name, by its id or (when known) its serial number. */
  nameOf(id: string, serialNumber?: string): string | undefined {
    return (
      this.byId.get(id) ??
      this.bySerial.get(id) ??
      (serialNumber === undefined ? undefined : this.bySerial.get(serialNumber))
    )
  }

  /**
   * Whether the beacon may be announced: always without a list, else only when it is named and
   * not marked `announce: false`.
   */
  listed(id: string, serialNumber?: string): boolean {
    if (!this.listing) return true
    if (this.nameOf(id, serialNumber) === undefined) return false
    return !this.quiet.has(id) && (serialNumber === undefined || !this.quiet.has(serialNumber))
  }
}
