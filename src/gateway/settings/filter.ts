/**
 * The model's `filters` section as the scanner's filter: serial numbers, proximity UUIDs and
 * beacon ids checked and written the way readings carry them; each problem named by its path.
 */

import type { BeaconkitConfig } from '../../config/load-config.js'
import { beaconIdOf } from '../../frames/ibeacon.js'
import type { BeaconFilter } from '../../range/filter.js'
import { quoted } from './problems.js'
import type { SettingProblems } from './problems.js'

const SERIAL = /^[0-9a-f]{12}$/i
const UUID = /^[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}$/i

/** Canonical upper-case 8-4-4-4-12, the form readings carry. */
export function canonicalUuid(text: string): string {
  const hex = text.replace(/-/g, '').toUpperCase()
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** `UUID|major|minor` in canonical form, or undefined when it is not one. */
export function canonicalBeaconId(text: string): string | undefined {
  const parts = text.split('|')
  const valid =
    parts.length === 3 && UUID.test(parts[0]) && parts.slice(1).every((p) => /^\d{1,5}$/.test(p) && Number(p) <= 65535)
  return valid ? beaconIdOf(canonicalUuid(parts[0]), Number(parts[1]), Number(parts[2])) : undefined
}

/** The scanner's filter (empty lists left out). */
export function filterSettings(model: BeaconkitConfig, problems: SettingProblems): BeaconFilter {
  const f = model.filters ?? {}
  const filter: {
    serialNumbers?: string[]
    proximityUUIDs?: string[]
    beaconIDs?: string[]
    minRssi?: number
    verifiedOnly?: boolean
  } = {}
  const serials = f.serialNumbers ?? []
  serials.forEach((s, i) => {
    if (!SERIAL.test(s))
      problems.add(
        `filters.serialNumbers[${i}]`,
        `--serial takes a 12-digit hex serial number such as 0117C5456A36, not ${quoted(s)}`,
      )
  })
  if (serials.length > 0) filter.serialNumbers = serials.map((s) => s.toUpperCase())
  const uuids = f.proximityUUIDs ?? []
  uuids.forEach((u, i) => {
    if (!UUID.test(u))
      problems.add(
        `filters.proximityUUIDs[${i}]`,
        `--uuid takes a proximity UUID such as E2C56DB5-DFFB-48D2-B060-D0F5A71096E0, not ${quoted(u)}`,
      )
  })
  if (uuids.length > 0) filter.proximityUUIDs = uuids.map(canonicalUuid)
  const ids: string[] = []
  ;(f.beaconIDs ?? []).forEach((text, i) => {
    const id = canonicalBeaconId(text)
    if (id === undefined)
      problems.add(
        `filters.beaconIDs[${i}]`,
        `--beacon-id takes UUID|major|minor, e.g. 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|1|2' (quote ` +
          `the |), not ${quoted(text)}`,
      )
    else ids.push(id)
  })
  if (ids.length > 0) filter.beaconIDs = ids
  const minRssi = f.minRssi
  if (minRssi !== undefined && !(Number.isInteger(minRssi) && minRssi >= -127 && minRssi <= 20))
    problems.add('filters.minRssi', '--min-rssi must be a whole number of dBm between -127 and 20')
  if (minRssi !== undefined) filter.minRssi = minRssi
  if (f.verifiedOnly === true) filter.verifiedOnly = true
  return filter
}
