/**
 * The fleet's room method and away rule (#39), built from its settings and its site: the
 * `RoomLocator` (floors, the plan, learnt offsets, taught rooms) when the method is `plan`, the
 * taught rooms and offsets read from `fingerprints` (a damaged file is a warning: the fleet starts
 * untaught, never stops), and the `AwayTimer` always.
 */

import { AwayTimer } from '../fleet/away-timer.js'
import { readFingerprintFile, writeFingerprintFile } from '../fleet/fingerprint-file.js'
import { FingerprintFileError } from '../fleet/fingerprint-file.js'
import { DEFAULT_GONE_TIMEOUT_MS } from '../fleet/fleet-state-options.js'
import { Fingerprints } from '../positioning/fingerprints.js'
import { RoomLocator } from '../positioning/room-locator.js'
import type { Site } from '../positioning/site.js'
import type { FleetSettings } from './settings/fleet.js'

/** What the tracker is given, and how the taught rooms and offsets are kept. */
export interface FleetRooms {
  rooms?: RoomLocator
  away: AwayTimer
  /** The fingerprint file, when there is one (`fleet.fingerprints`). */
  file?: string
  /** Writes the taught rooms and learnt offsets to the file; a failure is a warning. */
  save(now: number): Promise<void>
  /**
   * The room method for a new site (an edited site file): the plan method's locator rebuilt on
   * it (learnt offsets of remaining gateways and fingerprints of remaining rooms kept), made when
   * the site now places every gateway, or none (the strongest gateway) when it no longer does.
   */
  setSite(site: Site): RoomLocator | undefined
}

/**
 * The room method the settings and the site decide: `plan` when asked, or by default when the
 * site places every gateway (its plan can predict what each hears); else `strongest`.
 */
export function roomMethodOf(
  settings: Pick<FleetSettings, 'roomMethod'>,
  site: Site | undefined,
): 'strongest' | 'plan' {
  if (site === undefined) return 'strongest'
  if (settings.roomMethod !== undefined) return settings.roomMethod
  const anchors = site.anchorList()
  const placed = anchors.length > 0 && anchors.every((a) => a.x !== undefined && a.y !== undefined)
  return site.kind === 'receivers' && placed ? 'plan' : 'strongest'
}

/**
 * Builds the room method and the away rule; reads the fingerprint file first.
 * @param warn where a damaged file, skipped entries or a failed save are reported
 */
export async function fleetRooms(
  settings: Pick<FleetSettings, 'roomMethod' | 'away' | 'fingerprints'>,
  site: Site | undefined,
  warn: (text: string) => void,
): Promise<FleetRooms> {
  const away = new AwayTimer({ ...settings.away, fallbackMs: DEFAULT_GONE_TIMEOUT_MS })
  const file = settings.fingerprints
  const fingerprints = new Fingerprints()
  // Only a file read is written back: never overwritten with less than it held.
  let read = false
  /** The last plan-method locator, kept while a site has the strongest gateway (its offsets). */
  let held: RoomLocator | undefined
  const load = async (into: RoomLocator): Promise<void> => {
    if (file === undefined) return
    const got = await readFingerprintFile(file)
    if (got.error !== undefined)
      warn(`${got.error.message}; the fleet starts untaught (teach the rooms again, or fix or remove ${file})`)
    if (got.skipped > 0) warn(`fingerprints ${file}: ${got.skipped} damaged entries left out`)
    let refused = 0
    for (const sample of got.samples) if (!fingerprints.add(sample)) refused++
    if (refused > 0) warn(`fingerprints ${file}: ${refused} samples over the bounds left out`)
    // A locator made since (another edit) takes them: the offsets go to the one in use.
    const target = made.rooms ?? into
    target.offsets.restore(got.offsets)
    read = true
  }
  const made: FleetRooms = {
    away,
    ...(file === undefined ? {} : { file }),
    save: async (now) => {
      const locator = made.rooms ?? held
      if (file === undefined || !read || locator === undefined) return
      try {
        await writeFingerprintFile(file, { samples: fingerprints.samples(), offsets: locator.offsets.list() }, now)
      } catch (error) {
        warn(error instanceof FingerprintFileError ? error.message : `fingerprints ${file}: ${String(error)}`)
      }
    },
    setSite: (next) => {
      if (roomMethodOf(settings, next) !== 'plan') {
        delete made.rooms
        return undefined
      }
      const first = held === undefined
      held = made.rooms = held?.forSite(next) ?? new RoomLocator(next, { fingerprints })
      // A fleet that started with the strongest gateway reads the taught rooms and offsets now.
      if (first) load(held).catch((error: unknown) => warn(`fingerprints ${String(file)}: ${String(error)}`))
      return held
    },
  }
  if (site === undefined || roomMethodOf(settings, site) !== 'plan') return made
  held = made.rooms = new RoomLocator(site, { fingerprints })
  await load(held)
  return made
}
