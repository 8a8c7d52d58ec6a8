/**
 * How the uploader reports trouble: each distinct error once (a retry loop must not emit the
 * same failure every tick), and nothing lost in silence when nobody listens (see unheard.ts).
 */
import type { EventEmitter } from 'eventemitter3'
import type { AccountError } from '../errors.js'
import { emitError, warnOnce } from '../util/unheard.js'
import type { DropInfo, QueueWarning } from '../queue/queue.js'
import type { UploaderEvents, UploaderStats } from './uploader-options.js'

/**
 * Where an error came from. Each channel remembers its last error on its own, so that pushes
 * succeeding do not make a repeating read failure news again, and the other way round.
 */
export type ErrorChannel = 'open' | 'push' | 'read' | 'stop'

/** The uploader's event side, apart from its machinery. */
export class UploaderReports {
  // Per channel, the last error reported: the same failure again is not news.
  private readonly lastKeys = new Map<ErrorChannel, string>()

  constructor(
    private readonly emitter: EventEmitter<UploaderEvents>,
    private readonly stats: UploaderStats,
  ) {}

  /**
   * Emits `error`, unless it repeats the last one of its channel (`stop`, upload stopped by
   * the server, is always emitted); returns whether it was a repeat.
   */
  error(e: unknown, channel: ErrorChannel): boolean {
    const error = e instanceof Error ? e : new Error(String(e))
    const code = (error as Error & { code?: unknown }).code
    const key = `${typeof code === 'string' ? code : error.name}:${error.message}`
    if (channel !== 'stop' && this.lastKeys.get(channel) === key) return true
    this.lastKeys.set(channel, key)
    emitError(this.emitter, 'Uploader', error)
    return false
  }

  /** The channel works again: its next failure is reported even if it repeats the last one. */
  recovered(channel: ErrorChannel): void {
    this.lastKeys.delete(channel)
  }

  /** Counts and emits a drop; a loss of accepted records is never silent. */
  dropped(info: DropInfo & { error?: AccountError }): void {
    const damage = info.reason === 'corrupt' || info.reason === 'missing'
    this.stats.dropped += info.count
    if (damage) this.stats.lost += info.count
    this.stats.salvaged += info.salvaged ?? 0
    if (this.emitter.listenerCount('dropped') > 0) this.emitter.emit('dropped', info)
    else if (damage) {
      const where = info.segment === undefined ? '' : `, segment ${info.segment}`
      warnOnce(
        this.emitter,
        `dropped:${info.reason}`,
        `Uploader lost ${info.count} queued records (${info.reason}${where}); listen to 'dropped' for every report`,
      )
    }
  }

  /** Emits a queue warning, or a process warning (once per code) when nobody listens. */
  warning(w: QueueWarning): void {
    if (this.emitter.listenerCount('warning') > 0) this.emitter.emit('warning', w)
    else warnOnce(this.emitter, `warning:${w.code}`, `Uploader: ${w.message}`)
  }
}
