/**
 * Server-Sent Events to the pages: one long response per page. EventSource reconnects by
 * itself (after the `retry` we set) when the server restarts, and every connection starts with
 * a full snapshot, so a page that reconnects cannot miss anything.
 *
 * A client that never reads would make the server buffer every event for it (about 0.8 MB/s on
 * a busy site, without end). So each stream may hold at most `maxBufferedBytes` unsent beyond
 * its first snapshot; past that it is dropped (and counted): a page that was only slow
 * reconnects and gets a fresh snapshot, which is all it would have caught up to anyway.
 */
import type { ServerResponse } from 'node:http'

const HEARTBEAT_MS = 15_000
const KEEP_ALIVE = ': keep-alive\n\n'

/**
 * Default bound on the bytes one stream may have waiting to be sent, beyond its first snapshot:
 * 4 MiB, several seconds of the busiest stream measured, so only a client that has stopped
 * reading (or cannot keep up at all) reaches it.
 */
export const MAX_STREAM_BUFFER_BYTES = 4 * 1024 * 1024

/** Options of {@link EventStreams}. */
export interface EventStreamsOptions {
  /** Bytes a stream may have unsent beyond its first snapshot before it is dropped; default {@link MAX_STREAM_BUFFER_BYTES}. */
  maxBufferedBytes?: number
}

/** The open event streams. */
export class EventStreams {
  /** Each stream, with the bytes it may have unsent (the bound plus its first snapshot). */
  private readonly open = new Map<ServerResponse, number>()
  private readonly heartbeat: NodeJS.Timeout
  private readonly maxBuffered: number
  /** Streams dropped because their client did not read. */
  dropped = 0

  constructor(options: EventStreamsOptions = {}) {
    this.maxBuffered = options.maxBufferedBytes ?? MAX_STREAM_BUFFER_BYTES
    // A comment line now and then keeps proxies and NATs from closing an idle stream.
    this.heartbeat = setInterval(() => {
      for (const res of this.open.keys()) this.write(res, KEEP_ALIVE)
    }, HEARTBEAT_MS)
    this.heartbeat.unref()
  }

  /** Pages connected now. */
  get size(): number {
    return this.open.size
  }

  /** Takes over a response as an event stream whose first event is `first`. */
  add(res: ServerResponse, first: { event: string; data: unknown }): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      // nginx buffers proxied responses unless told not to; events would arrive in bursts.
      'X-Accel-Buffering': 'no',
    })
    res.write('retry: 1000\n\n')
    const snapshot = frame(first.event, first.data)
    res.write(snapshot)
    // A big site's snapshot may itself wait in the buffer for a while: the bound starts above it.
    this.open.set(res, this.maxBuffered + Buffer.byteLength(snapshot))
    res.on('close', () => this.open.delete(res))
  }

  /** Sends one event to every page. */
  send(event: string, data: unknown): void {
    if (this.open.size === 0) return
    const text = frame(event, data)
    for (const res of this.open.keys()) this.write(res, text)
  }

  /**
   * Writes to one stream, or drops it when its client has let too much pile up. What is waiting
   * is checked before the write, so one event larger than the bound still goes to a client that
   * reads: a stream holds at most the bound plus one event.
   */
  private write(res: ServerResponse, text: string): void {
    const limit = this.open.get(res)
    if (limit === undefined) return
    // Node counts what the socket has not yet handed to the kernel; the kernel's own buffers
    // come on top and are bounded by the OS.
    if (res.writableLength > limit) {
      this.open.delete(res)
      this.dropped++
      // Not end(): a client that does not read would never take the rest, so the socket goes.
      res.destroy()
      return
    }
    res.write(text)
  }

  /** Ends every stream (the pages will try to reconnect). */
  close(): void {
    clearInterval(this.heartbeat)
    for (const res of this.open.keys()) res.end()
    this.open.clear()
  }
}

function frame(event: string, data: unknown): string {
  // JSON has no raw newlines, so one data line per event.
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
}
