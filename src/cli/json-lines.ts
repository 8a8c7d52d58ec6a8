/**
 * The `--json` view: one JSON object per line per scanner event, in the shapes of
 * the README ("The command line"), so `beaconkit … | jq` and log shippers can consume them.
 */

import type { Beacon } from '../reading.js'

/** One line of `--json` output. */
export type JsonEvent =
  | { event: 'found' | 'gone'; time: number; beacon: Beacon }
  | { event: 'changed'; time: number; beacon: Beacon; changes: unknown }
  | { event: 'updated'; time: number; beacons: readonly Beacon[] }

/** Where lines go (process.stdout, or a collecting array in tests). */
export interface LineSink {
  write(text: string): unknown
}

/** Formats one event as a line (with its newline). */
export function formatJsonEvent(event: JsonEvent): string {
  return `${JSON.stringify(event)}\n`
}

/** Writes scanner events as JSON lines. */
export class JsonLinesOutput {
  private closed = false

  constructor(private readonly sink: LineSink) {}

  /** Writes one event; ignored after `close()`, so late events during shutdown cannot interleave with the exit. */
  write(event: JsonEvent): void {
    if (this.closed) return
    this.sink.write(formatJsonEvent(event))
  }

  /** Stops writing. */
  close(): void {
    this.closed = true
  }
}
