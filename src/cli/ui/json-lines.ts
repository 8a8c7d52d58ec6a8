/**
 * The `--json` view: one JSON object per line per scanner event, in the shapes of
 * docs/cli.md, so `beaconkit … | jq` and log shippers can consume them.
 */

import { serializeJsonEvent } from '../../scanner/json-events.js'
import type { JsonEvent } from '../../scanner/json-events.js'

export type { JsonEvent } from '../../scanner/json-events.js'

/** Where lines go (process.stdout, or a collecting array in tests). */
export interface LineSink {
  write(text: string): unknown
}

/** Formats one event as a line (with its newline). */
export function formatJsonEvent(event: JsonEvent): string {
  return `${serializeJsonEvent(event)}\n`
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
