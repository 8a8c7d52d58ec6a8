/**
 * The terminal side of the live table: alternate screen, hidden cursor, a redraw from the
 * top-left corner per tick, and a restore that runs whatever way the process ends.
 */

import type { Beacon } from '../../reading.js'
import { renderTable } from './table.js'
import type { TableStatus } from './table.js'
import { RssiHistory } from './sparkline.js'

/** What the screen needs of a terminal stream (a `tty.WriteStream` has it all). */
export interface TerminalLike {
  write(text: string): boolean
  readonly columns?: number
  readonly rows?: number
  on(event: 'resize', listener: () => void): unknown
  off(event: 'resize', listener: () => void): unknown
}

const ALT_SCREEN_ON = '\x1b[?1049h'
const ALT_SCREEN_OFF = '\x1b[?1049l'
const CURSOR_HIDE = '\x1b[?25l'
const CURSOR_SHOW = '\x1b[?25h'
const HOME = '\x1b[H'
const CLEAR_LINE_RIGHT = '\x1b[K'
const CLEAR_BELOW = '\x1b[J'

/**
 * A full-screen live view: the alternate screen, redrawn from its render function per update and
 * on resize. The scanner's table and the fleet's table are two renderings on it.
 */
export class TerminalScreen {
  private render: ((width: number, height: number) => string[]) | undefined
  private active = false
  private lastDraw = -Infinity
  private readonly onResize = (): void => this.draw()

  /**
   * @param minRedrawMs real milliseconds between two redraws; a virtual-time replay ticks
   *   thousands of times a second and the terminal cannot (nor can anyone read it).
   */
  constructor(
    private readonly term: TerminalLike,
    private readonly minRedrawMs = 0,
  ) {}

  /** Switches to the alternate screen and hides the cursor. */
  open(): void {
    if (this.active) return
    this.active = true
    this.term.write(ALT_SCREEN_ON + CURSOR_HIDE + HOME + CLEAR_BELOW)
    this.term.on('resize', this.onResize)
  }

  /** Shows what `render` draws for the terminal's size (now, or at the next redraw when too soon). */
  show(render: (width: number, height: number) => string[]): void {
    this.render = render
    const real = Date.now()
    if (real - this.lastDraw < this.minRedrawMs) return
    this.lastDraw = real
    this.draw()
  }

  /** Shows the cursor and leaves the alternate screen; safe to call twice. */
  close(): void {
    if (!this.active) return
    this.active = false
    this.term.off('resize', this.onResize)
    this.term.write(CURSOR_SHOW + ALT_SCREEN_OFF)
  }

  private draw(): void {
    if (!this.active || this.render === undefined) return
    const lines = this.render(this.term.columns ?? 80, this.term.rows ?? 24)
    // One write per frame, each line cleared to its end, so the old frame never shows through.
    this.term.write(HOME + lines.map((l) => l + CLEAR_LINE_RIGHT).join('\r\n') + CLEAR_BELOW)
  }
}

/** Draws the scanner's live table on a terminal. */
export class TableScreen extends TerminalScreen {
  private readonly history = new RssiHistory()

  /** One tick: records the RSSI history and redraws. */
  update(beacons: readonly Beacon[], status: TableStatus, now: number): void {
    this.history.record(beacons, now)
    this.show((width, height) =>
      renderTable(beacons, status, { width, height, now, history: (id) => this.history.samples(id) }),
    )
  }

  /** A beacon left: its sparkline history goes with it. */
  forget(id: string): void {
    this.history.forget(id)
  }
}

/** The escape sequence that undoes {@link TableScreen.open}, for last-resort exit handlers. */
export const RESTORE_TERMINAL = CURSOR_SHOW + ALT_SCREEN_OFF
