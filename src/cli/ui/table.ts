/**
 * The live table of `beaconkit scan | replay | simulate`, as a pure function of the
 * beacons, a status and the terminal size, so it is tested without a terminal.
 */

import type { Beacon } from '../../reading.js'
import type { AdapterState } from '../../sources/source.js'
import { sparkline } from './sparkline.js'
import type { RssiSample } from './sparkline.js'

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

/** One column of a live table: of the scanner's beacons here, of the fleet's in fleet-table.ts. */
export interface Column<Row, Context> {
  header: string
  /** Higher survives longer when the terminal is narrow. */
  priority: number
  align: 'left' | 'right'
  /** Narrowest width the column may be cut to (with an ellipsis) before it is dropped. */
  minWidth?: number
  /**
   * Cut this column (to `minWidth`) only once every less important column is gone, instead of
   * before dropping any: for a column whose whole text matters more than the columns after it
   * (the fleet's ROOM). Default false.
   */
  squeezeLast?: boolean
  /** How to cut a value to the column width; default: keep the start. */
  shrink?: (text: string, width: number) => string
  cell(row: Row, o: Context): string
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
  { header: 'SERIAL/ADDRESS', priority: 100, align: 'left', minWidth: 12, cell: (b) => b.serialNumber ?? b.address },
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

const GAP = '  '

/** Device-supplied text reaches the terminal: strip control characters so no escape sequence gets through. */
export function clean(text: string): string {
  // eslint-disable-next-line no-control-regex
  return text.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?')
}

/** Cuts `text` to `width` characters, marking the cut with an ellipsis. */
export function truncate(text: string, width: number): string {
  if (width <= 0) return ''
  if (text.length <= width) return text
  return width === 1 ? '…' : `${text.slice(0, width - 1)}…`
}

function pad<R, C>(text: string, width: number, col: Column<R, C>): string {
  const cut = (col.shrink ?? truncate)(text, width)
  return col.align === 'left' ? cut.padEnd(width) : cut.padStart(width)
}

/** Unknown distances (−1 or absent) sort last; ties by id so rows do not jump around. */
function byAccuracy(a: Beacon, b: Beacon): number {
  const da = a.accuracy === undefined || a.accuracy < 0 ? Infinity : a.accuracy
  const db = b.accuracy === undefined || b.accuracy < 0 ? Infinity : b.accuracy
  if (da !== db) return da < db ? -1 : 1
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0
}

const STATUS_SEPARATOR = ' │ '

/** A status line of parts, cleaned of control characters. */
export function statusLine(parts: readonly string[]): string {
  return clean(parts.join(STATUS_SEPARATOR))
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

/** Chooses which columns fit in `width` and how wide each is. */
function layout<R, C>(
  columns: readonly Column<R, C>[],
  cells: string[][],
  width: number,
): { col: Column<R, C>; index: number; width: number }[] {
  let chosen = columns.map((col, index) => ({
    col,
    index,
    width: Math.max(col.header.length, ...cells.map((row) => row[index].length)),
  }))
  const total = (): number => chosen.reduce((sum, c) => sum + c.width, 0) + GAP.length * (chosen.length - 1)
  // First squeeze the shrinkable columns (but those squeezed last), then drop the least
  // important ones; a column squeezed last is cut when it is the least important one left,
  // and dropped only once cut to its narrowest.
  const squeeze = (c: (typeof chosen)[number]): boolean => {
    const over = total() - width
    if (over <= 0 || c.col.minWidth === undefined || c.index === 0 || c.width <= c.col.minWidth) return false
    c.width = Math.max(c.col.minWidth, c.width - over)
    return true
  }
  for (const c of chosen) if (c.col.squeezeLast !== true) squeeze(c)
  while (total() > width && chosen.length > 1) {
    let lowest = 0
    for (let i = 1; i < chosen.length; i++) {
      if (chosen[i].col.priority < chosen[lowest].col.priority) lowest = i
    }
    if (squeeze(chosen[lowest])) continue
    chosen = chosen.filter((_, i) => i !== lowest)
  }
  return chosen
}

/** How {@link renderGrid} lays out rows. */
export interface GridOptions<Context> {
  /** Terminal columns; every line is cut to this. */
  width: number
  /** Terminal rows; rows that do not fit are summarised in a last line. Unlimited when absent. */
  height?: number
  /** What the cells are computed with. */
  context: Context
  /** The line shown instead of a header when there are no rows. */
  empty: string
  /** What a row is called in the "… N more" line: [one, many]. */
  noun: [string, string]
  /** Legend entries per column header (shown only for columns that fit). */
  legend?: { column: string; text: string }[]
}

/**
 * A status line, a header and one line per row (in the order given), cut to `width` columns and
 * `height` rows. Columns are dropped from the least important up when the terminal is narrow;
 * rows that do not fit are counted in a last line. Pure: the same input gives the same lines.
 */
export function renderGrid<R, C>(
  rows: readonly R[],
  columns: readonly Column<R, C>[],
  status: string,
  options: GridOptions<C>,
): string[] {
  const width = Math.max(1, Math.floor(options.width))
  const lines: string[] = [truncate(status, width)]
  if (rows.length === 0) {
    lines.push(truncate(options.empty, width))
    return lines
  }
  let shown = rows
  let more = 0
  const legend = options.legend
  if (options.height !== undefined) {
    // Status and header, plus the legend when there is one.
    const room = Math.max(0, Math.floor(options.height) - 2 - (legend === undefined ? 0 : 1))
    if (rows.length > room) {
      // Keep one line to say how many were left out.
      shown = rows.slice(0, Math.max(0, room - 1))
      more = rows.length - shown.length
    }
  }
  const cells = shown.map((r) => columns.map((col) => clean(col.cell(r, options.context))))
  const chosen = layout(columns, cells, width)
  const line = (texts: string[]): string =>
    truncate(
      chosen
        .map((c) => pad(texts[c.index], c.width, c.col))
        .join(GAP)
        .trimEnd(),
      width,
    )
  lines.push(line(columns.map((c) => c.header)))
  for (const row of cells) lines.push(line(row))
  if (more > 0 && options.height !== undefined && lines.length < options.height) {
    lines.push(
      truncate(`… ${more} more ${more === 1 ? options.noun[0] : options.noun[1]} (enlarge the terminal)`, width),
    )
  }
  const shownHeaders = new Set(chosen.map((c) => c.col.header))
  const text = legend?.filter((entry) => shownHeaders.has(entry.column)).map((entry) => entry.text)
  if (text !== undefined && text.length > 0 && (options.height === undefined || lines.length < options.height)) {
    lines.push(truncate(`legend: ${text.join(STATUS_SEPARATOR)}`, width))
  }
  return lines
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
