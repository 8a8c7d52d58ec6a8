/**
 * A live table as a pure function: columns with priorities, cut to the terminal's width (the
 * least important dropped first) and height, and a status line above; what the scanner's table
 * (table.ts) and the fleet's (fleet-table.ts) are drawn with.
 */

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

/** Between two columns. */
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

/** A cell cut to its column's width and aligned as the column says. */
function pad<R, C>(text: string, width: number, col: Column<R, C>): string {
  const cut = (col.shrink ?? truncate)(text, width)
  return col.align === 'left' ? cut.padEnd(width) : cut.padStart(width)
}

/** Between two parts of a status line. */
const STATUS_SEPARATOR = ' │ '

/** A status line of parts, cleaned of control characters. */
export function statusLine(parts: readonly string[]): string {
  return clean(parts.join(STATUS_SEPARATOR))
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
