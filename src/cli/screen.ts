/**
 * The terminal side of the live table: alternate screen, hidden cursor, a redraw from the
 * top-left corner per tick, and a restore that runs whatever way the process ends.
 */

import type { Beacon } from '../reading.js'
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

/** Draws the live table on a terminal. */
export class TableScreen {
  private readonly history = new RssiHistory()
  private last?: { beacons: readonly Beacon[]; status: TableStatus; now: number }
  private active = false
  private readonly onResize = (): void => {
    if (this.last !== undefined) this.draw(this.last.beacons, this.last.status, this.last.now)
  }

  private lastDraw = -Infinity

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

  /** One tick: records the RSSI history and redraws. */
  update(beacons: readonly Beacon[], status: TableStatus, now: number): void {
    this.history.record(beacons, now)
    this.last = { beacons, status, now }
    const real = Date.now()
    if (real - this.lastDraw < this.minRedrawMs) return
    this.lastDraw = real
    this.draw(beacons, status, now)
  }

  /** A beacon left: its sparkline history goes with it. */
  forget(id: string): void {
    this.history.forget(id)
  }

  /** Shows the cursor and leaves the alternate screen; safe to call twice. */
  close(): void {
    if (!this.active) return
    this.active = false
    this.term.off('resize', this.onResize)
    this.term.write(CURSOR_SHOW + ALT_SCREEN_OFF)
  }

  private draw(beacons: readonly Beacon[], status: TableStatus, now: number): void {
    if (!this.active) return
    const lines = renderTable(beacons, status, {
      width: this.term.columns ?? 80,
      height: this.term.rows ?? 24,
      now,
      history: (id) => this.history.samples(id),
    })
    // One write per frame, each line cleared to its end, so the old frame never shows through.
    this.term.write(HOME + lines.map((l) => l + CLEAR_LINE_RIGHT).join('\r\n') + CLEAR_BELOW)
  }
}

/** The escape sequence that undoes {@link TableScreen.open}, for last-resort exit handlers. */
export const RESTORE_TERMINAL = CURSOR_SHOW + ALT_SCREEN_OFF
