/**
 * The walkable-cell grid: the floor cut into square cells, each walkable or not. The grid
 * filter keeps its probability on walkable cells only, so walls and furniture constrain the
 * track. Read from the tetam occupancy format, or made from a rectangle when no plan exists.
 */
import { InvalidOptionError } from '../errors.js'
import type { Area } from './site.js'

function bad(what: string, fix: string): InvalidOptionError {
  return new InvalidOptionError('invalid_option', `walkable grid: ${what}; ${fix}`, { option: 'grid' })
}

/** Cells of a grid {@link WalkableGrid.fromArea} sizes by itself: 1 m cells up to 4,096 m². */
export const AUTO_MAX_CELLS = 4096

/** One number of the occupancy header, with the blanks around it. */
const HEAD_NUMBER = String.raw`\s*([-\d.eE+]+)\s*`
/** The occupancy file's first line: `[[minX, minY], [maxX, maxY]]::cell`. */
const OCCUPANCY_HEAD = new RegExp(
  String.raw`^\s*\[\s*\[${HEAD_NUMBER},${HEAD_NUMBER}\]\s*,` +
    String.raw`\s*\[${HEAD_NUMBER},${HEAD_NUMBER}\]\s*\]\s*::${HEAD_NUMBER}$`,
)

/** A rectangular grid of square cells over the plan, with a walkable flag per cell. */
export class WalkableGrid {
  /** Cells along x and y. */
  readonly nx: number
  readonly ny: number
  /** 1 for walkable, 0 for not; index `ix + iy * nx`. */
  readonly walkable: Uint8Array

  constructor(
    /** Centre of cell (0, 0), metres. */
    readonly originX: number,
    readonly originY: number,
    /** Cell side, metres. */
    readonly cell: number,
    nx: number,
    ny: number,
    walkable?: Uint8Array,
  ) {
    if (!(cell > 0) || !Number.isFinite(cell)) throw bad(`cell size ${cell}`, 'give a positive cell size in metres')
    if (!Number.isInteger(nx) || !Number.isInteger(ny) || nx < 1 || ny < 1 || nx * ny > 4_000_000)
      throw bad(`${nx} × ${ny} cells`, 'give between 1 and 4 million cells; use larger cells for a large site')
    this.nx = nx
    this.ny = ny
    this.walkable = walkable ?? new Uint8Array(nx * ny).fill(1)
    if (this.walkable.length !== nx * ny)
      throw bad('the walkable flags do not match the grid size', 'give one flag per cell')
  }

  /**
   * All cells walkable over a rectangle, centres `cell / 2` inside its edges. Without a cell
   * size: 0.5 m, doubled until the grid has at most {@link AUTO_MAX_CELLS} cells — a site
   * without a plan is positioned to metres, and past ~1,000 m² half-metre cells would only
   * multiply the filter's work and memory per beacon.
   */
  static fromArea(area: Area, cell?: number): WalkableGrid {
    if (cell === undefined) {
      cell = 0.5
      const w = area.maxX - area.minX
      const h = area.maxY - area.minY
      while (Math.round(w / cell) * Math.round(h / cell) > AUTO_MAX_CELLS) cell *= 2
    }
    const nx = Math.max(1, Math.round((area.maxX - area.minX) / cell))
    const ny = Math.max(1, Math.round((area.maxY - area.minY) / cell))
    return new WalkableGrid(area.minX + cell / 2, area.minY + cell / 2, cell, nx, ny)
  }

  /**
   * Reads the occupancy format of the tetam data set: a header `[[minX, minY], [maxX, maxY]]::cell`,
   * then one line per cell `[x, y]::v`, (x, y) the cell's centre, v 1 for an occupied cell (desk,
   * wall) and 0 for a free one. Both readings are the data's, not its README's: the README calls
   * 1 "walkable", but the file's border (the hall's walls) is all 1 and the ground-truth tracks
   * lie on `::0` cells 97 % of the time when (x, y) is the centre, against 90 % if it were the
   * lower-left corner. Pass `{ walkableValue: '1' }` for a file that means the opposite. Cells
   * not listed are free.
   * Throws `InvalidOptionError` on a malformed header; malformed cell lines are skipped and counted.
   */
  static parseOccupancy(
    text: string,
    options: { walkableValue?: '0' | '1' } = {},
  ): { grid: WalkableGrid; skipped: number } {
    const walkableValue = options.walkableValue ?? '0'
    const lines = text.split(/\r?\n/)
    const head = OCCUPANCY_HEAD.exec(lines[0] ?? '')
    if (head === null)
      throw bad(
        'the first line is not "[[minX, minY], [maxX, maxY]]::cell"',
        'give the occupancy file of the site (see docs/positioning.md)',
      )
    const [minX, minY, maxX, maxY, cell] = head.slice(1).map(Number)
    if (![minX, minY, maxX, maxY, cell].every(Number.isFinite) || maxX <= minX || maxY <= minY || !(cell > 0))
      throw bad(
        'the header does not describe a rectangle and a cell size',
        'give minX < maxX, minY < maxY and a positive cell size',
      )
    const cells: [number, number, boolean][] = []
    let skipped = 0
    let nx = Math.ceil((maxX - minX) / cell - 1e-9)
    let ny = Math.ceil((maxY - minY) / cell - 1e-9)
    const row = /^\s*\[\s*([-\d.eE+]+)\s*,\s*([-\d.eE+]+)\s*\]\s*::\s*([01])\s*$/
    for (let i = 1; i < lines.length; i++) {
      if (lines[i].trim() === '') continue
      const m = row.exec(lines[i])
      const ix = m === null ? -1 : Math.round((Number(m[1]) - minX) / cell)
      const iy = m === null ? -1 : Math.round((Number(m[2]) - minY) / cell)
      // A stray line far off the header's rectangle would blow the grid up: skip it.
      if (m === null || ix < 0 || iy < 0 || ix > nx + 2 || iy > ny + 2) {
        skipped++
        continue
      }
      nx = Math.max(nx, ix + 1)
      ny = Math.max(ny, iy + 1)
      cells.push([ix, iy, m[3] === walkableValue])
    }
    const walkable = new Uint8Array(nx * ny).fill(1)
    for (const [ix, iy, free] of cells) walkable[ix + iy * nx] = free ? 1 : 0
    return { grid: new WalkableGrid(minX, minY, cell, nx, ny, walkable), skipped }
  }

  /** Number of cells. */
  get size(): number {
    return this.nx * this.ny
  }

  /** Centre x of column `ix`. */
  x(ix: number): number {
    return this.originX + ix * this.cell
  }

  /** Centre y of row `iy`. */
  y(iy: number): number {
    return this.originY + iy * this.cell
  }

  /** The cell holding (x, y), clamped to the grid. */
  cellAt(x: number, y: number): number {
    const ix = Math.min(this.nx - 1, Math.max(0, Math.round((x - this.originX) / this.cell)))
    const iy = Math.min(this.ny - 1, Math.max(0, Math.round((y - this.originY) / this.cell)))
    return ix + iy * this.nx
  }
}
