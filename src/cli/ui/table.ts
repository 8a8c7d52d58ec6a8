/**
 * The live table of `beaconkit scan | replay | simulate`, as a pure function of the
 * beacons, a status and the terminal size, so it is tested without a terminal.
 */

import type { Beacon } from '../../reading.js'
import type { AdapterState } from '../../sources/source.js'
import { sparkline } from './sparkline.js'
import type { RssiSample } from './sparkline.js'
import { renderGrid, statusLine, truncate } from './grid.js'
import type { Column } from './grid.js'

/** What the status line above the table says. */
export interface TableStatus {
  /** Absent for sources without an adapter (replays, the simulator). */
  adapterState?: AdapterState
  /** Advertisements per second over the last tick. */
  advertsPerSecond: number
  /** Beacons in range (may exceed the rows shown). */
  inRange: number
  /** Frames the decoder or the private-broadcast checks refused, so far. */
  rejected: number
  /** Where the advertisements come from, e.g. `replay demo.jsonl ×1`. */
  label?: string
  /** More status, appended in order (upload progress, the latest warning). */
  notes?: string[]
}

/** Layout options of {@link renderTable}. */
export interface TableOptions {
  /** Terminal columns; every line is cut to this. */
  width: number
  /** Terminal rows; rows that do not fit are summarised in a last line. Unlimited when absent. */
  height?: number
  /** ms on the scanner's clock: ages and the sparkline window end here. */
  now: number
  /** RSSI samples per beacon id for the sparkline column. */
  history?: (id: string) => readonly RssiSample[]
}

type BeaconColumn = Column<Beacon, TableOptions>

const SPARK_WIDTH = 15

function fixed(n: number | null | undefined, digits: number, unit = ''): string {
  if (n === undefined) return ''
  if (n === null) return 'off'
  return `${n.toFixed(digits)}${unit}`
}

function secureMarker(b: Beacon): string {
  const s = b.secure
  if (s === undefined) return ''
  const id = s.keyId === undefined ? '' : ` ${s.keyId}`
  if (s.verified) return `✓${id}`
  if (s.rejected !== undefined && s.rejected !== 'no_key') return `✗${id} ${s.rejected}`
  return `?${id}`
}

function movingText(b: Beacon): string {
  if (b.moving !== undefined) return b.moving ? 'yes' : 'no'
  if (b.movingState === undefined || b.movingState === 'unknown') return ''
  return b.movingState === 'disabled' ? 'off' : b.movingState
}

function ageText(b: Beacon, now: number): string {
  const s = Math.max(0, now - b.lastSeen) / 1000
  return s < 10 ? `${s.toFixed(1)}s` : `${Math.round(s)}s`
}

/** Major and minor tell beacons of one UUID apart: cut the UUID, keep `|major|minor`. */
function shrinkBeaconId(text: string, width: number): string {
  const bar = text.indexOf('|')
  if (text.length <= width || bar < 0) return truncate(text, width)
  const tail = text.slice(bar)
  const head = width - tail.length - 1
  return head >= 4 ? `${text.slice(0, head)}…${tail}` : truncate(text, width)
}

const COLUMNS: BeaconColumn[] = [
  {
    header: 'SERIAL/ADDRESS',
    priority: 100,
    align: 'left',
    minWidth: 12,
    // A phone or watch of the IRK file by its key's name (its address changes every few minutes).
    cell: (b) => b.serialNumber ?? (b.irk === undefined ? b.address : `irk:${b.irk}`),
  },
  {
    header: 'MODEL/FW',
    priority: 40,
    align: 'left',
    cell: (b) => [b.hardwareModelName, b.firmwareVersion].filter((x) => x !== undefined).join('/'),
  },
  {
    header: 'BEACON ID',
    priority: 65,
    align: 'left',
    minWidth: 20,
    shrink: shrinkBeaconId,
    cell: (b) => b.beaconID ?? '',
  },
  { header: 'RSSI', priority: 90, align: 'right', cell: (b) => String(b.rssi) },
  {
    header: 'LAST 30 s',
    priority: 60,
    align: 'left',
    cell: (b, o) => sparkline(o.history?.(b.id) ?? [], { now: o.now, width: SPARK_WIDTH }),
  },
  { header: 'SMOOTH', priority: 35, align: 'right', cell: (b) => fixed(b.smoothedRssi, 1) },
  {
    header: 'DIST',
    priority: 85,
    align: 'right',
    cell: (b) => (b.accuracy === undefined || b.accuracy < 0 ? '?' : fixed(b.accuracy, 2, 'm')),
  },
  { header: 'PROX', priority: 80, align: 'left', cell: (b) => b.proximity ?? '' },
  { header: 'BATT', priority: 55, align: 'right', cell: (b) => fixed(b.batteryLevel, 0, '%') },
  { header: 'TEMP', priority: 50, align: 'right', cell: (b) => fixed(b.temperature, 1, '°C') },
  { header: 'LIGHT', priority: 30, align: 'right', cell: (b) => fixed(b.light, 0, 'lx') },
  { header: 'MOVE', priority: 45, align: 'left', cell: movingText },
  {
    header: 'ACC',
    priority: 25,
    align: 'right',
    cell: (b) => (b.accelerometerCount === undefined ? '' : String(b.accelerometerCount)),
  },
  { header: 'SEC', priority: 75, align: 'left', cell: secureMarker },
  { header: 'AGE', priority: 70, align: 'right', cell: (b, o) => ageText(b, o.now) },
]

/** Unknown distances (−1 or absent) sort last; ties by id so rows do not jump around. */
function byAccuracy(a: Beacon, b: Beacon): number {
  const da = a.accuracy === undefined || a.accuracy < 0 ? Infinity : a.accuracy
  const db = b.accuracy === undefined || b.accuracy < 0 ? Infinity : b.accuracy
  if (da !== db) return da < db ? -1 : 1
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

/** The status line. */
export function renderStatus(status: TableStatus): string {
  return statusLine([
    status.label === undefined ? 'beaconkit' : `beaconkit ${status.label}`,
    ...(status.adapterState === undefined ? [] : [`adapter ${status.adapterState}`]),
    `${Math.round(status.advertsPerSecond)} adverts/s`,
    `${status.inRange} in range`,
    `${status.rejected} rejected`,
    ...(status.notes ?? []),
  ])
}

/**
 * Renders the status line, the header and one row per beacon, sorted by distance
 * (accuracy), cut to `width` columns and `height` rows. Columns are dropped from the least
 * important up when the terminal is narrow; rows that do not fit are counted in a last line.
 * Pure: the same input gives the same lines.
 */
export function renderTable(beacons: readonly Beacon[], status: TableStatus, options: TableOptions): string[] {
  const sorted = [...beacons].sort(byAccuracy)
  const legend = sorted.length === 0 ? undefined : legendFor(sorted)
  return renderGrid(sorted, COLUMNS, renderStatus(status), {
    width: options.width,
    ...(options.height === undefined ? {} : { height: options.height }),
    context: options,
    empty: 'no beacons in range yet',
    noun: ['beacon', 'beacons'],
    ...(legend === undefined ? {} : { legend }),
  })
}

/** What the markers in the table mean, per column, for the markers the beacons show; undefined when none. */
function legendFor(beacons: readonly Beacon[]): { column: string; text: string }[] | undefined {
  const entries: { column: string; text: string }[] = []
  const secure = beacons.map((b) => b.secure).filter((s) => s !== undefined)
  const sec: string[] = []
  if (secure.some((s) => s.verified)) sec.push('✓ verified with a broadcast key')
  if (secure.some((s) => !s.verified && (s.rejected === undefined || s.rejected === 'no_key')))
    sec.push('? encrypted, no key for it here (--key)')
  if (secure.some((s) => !s.verified && s.rejected !== undefined && s.rejected !== 'no_key'))
    sec.push('✗ failed verification (reason follows)')
  if (sec.length > 0) entries.push({ column: 'SEC', text: `SEC ${sec.join(', ')}` })
  if (beacons.some((b) => b.accuracy === undefined || b.accuracy < 0))
    entries.push({ column: 'DIST', text: 'DIST ? unknown distance' })
  return entries.length === 0 ? undefined : entries
}
