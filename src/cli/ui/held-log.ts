/**
 * Log lines while the live table is on the terminal: a stderr line would tear the screen, so
 * warnings and conditions are held instead, the latest shows in the status line, and the last
 * few are logged once the table is gone. Plain info, debug and trace lines are left out there.
 */

import { forwardingLogger, levelEnabled, logRecord } from '../../log/logger.js'
import type { Logger, LogRecord, LogThreshold } from '../../log/logger.js'

/** How many held lines are logged after the table; the count of the others is said instead. */
const KEPT = 10

/** A logger that holds its lines for the status line (see the file comment). */
export class HeldLog {
  readonly logger: Logger
  private readonly held: LogRecord[] = []
  private count = 0

  constructor(
    private readonly base: Logger,
    threshold: LogThreshold,
  ) {
    this.logger = forwardingLogger((record) => {
      if (!levelEnabled(record.level, threshold) || record.level === 'trace' || record.level === 'debug') return
      // An info line is held only when it clears a condition (its warning may be on the status line).
      if (record.level === 'info' && record.fields.condition === undefined) return
      this.count++
      this.held.push(record)
      if (this.held.length > KEPT) this.held.shift()
    })
  }

  /** The latest held line as a status-line note (`⚠` for a warning), if any. */
  note(): string | undefined {
    const latest = this.held.at(-1)
    if (latest === undefined) return undefined
    return latest.level === 'info' ? latest.msg : `⚠ ${latest.msg}`
  }

  /** Logs the held lines to the real logger (once the table is gone); holds nothing after. */
  flush(): void {
    if (this.count > this.held.length)
      this.base.info(`${this.count - this.held.length} earlier log lines of the run not shown`)
    for (const record of this.held.splice(0)) logRecord(this.base, record)
    this.count = 0
  }
}
