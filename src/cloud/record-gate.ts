/**
 * Which readings become upload records: those with a serial number, at most one per beacon
 * per `minIntervalMs` of reading time, and only if the record would pass the server's checks.
 */
import { randomUUID } from 'node:crypto'
import { InvalidOptionError } from '../errors.js'
import type { Beacon, BeaconReading } from '../reading.js'
import { parseLogRecord, toLogRecord } from './records.js'
import type { BeaconLogRecord, GeoLocation } from '../reading.js'
import type { UploaderStats } from './uploader-options.js'

/** Turns readings into records, thinned per beacon; counts what it skips in `stats`. */
export class RecordGate {
  private readonly lastQueued = new Map<string, number>()
  private pruneAt = 50_000

  constructor(
    private readonly minIntervalMs: number,
    private readonly location: GeoLocation | undefined,
    private readonly stats: Pick<UploaderStats, 'skippedNoSerial' | 'skippedInterval' | 'skippedInvalid'>,
  ) {}

  /**
   * The record for `reading`, or undefined when it is skipped. Throws `InvalidOptionError`
   * for something that is not a reading at all.
   */
  admit(reading: BeaconReading | Beacon): BeaconLogRecord | undefined {
    if (
      reading === null ||
      typeof reading !== 'object' ||
      typeof reading.timestamp !== 'number' ||
      !Number.isFinite(reading.timestamp)
    ) {
      throw new InvalidOptionError('invalid_option', 'push needs a BeaconReading or Beacon with a numeric timestamp', {
        option: 'reading',
      })
    }
    const serial = reading.serialNumber
    if (typeof serial !== 'string' || serial.length === 0) {
      this.stats.skippedNoSerial++
      return undefined
    }
    const t = reading.timestamp
    const last = this.lastQueued.get(serial)
    // A reading older than the last one sent (a clock stepped back) starts the interval afresh.
    if (last !== undefined && t >= last && t - last < this.minIntervalMs) {
      this.stats.skippedInterval++
      return undefined
    }
    this.lastQueued.set(serial, t)
    if (this.lastQueued.size > this.pruneAt) {
      for (const [s, at] of this.lastQueued) if (t - at >= this.minIntervalMs) this.lastQueued.delete(s)
      // Doubling keeps pruning amortised O(1) even when every entry is still recent.
      this.pruneAt = Math.max(50_000, this.lastQueued.size * 2)
    }
    const record = toLogRecord(reading, randomUUID(), this.location) as BeaconLogRecord
    try {
      // A record the server would refuse is better counted here than dropped after a 400.
      parseLogRecord(record, 'record', true)
    } catch {
      this.lastQueued.delete(serial)
      this.stats.skippedInvalid++
      return undefined
    }
    return record
  }

  /** The record admitted for this reading was not queued: the beacon's next reading may go. */
  withdraw(reading: BeaconReading | Beacon): void {
    const serial = reading.serialNumber
    if (serial !== undefined && this.lastQueued.get(serial) === reading.timestamp) this.lastQueued.delete(serial)
  }
}
