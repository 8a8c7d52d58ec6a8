/**
 * Server-Sent Events to the pages: one long response per page. EventSource reconnects by
 * itself (after the `retry` we set) when the server restarts, and every connection starts with
 * a full snapshot, so a page that reconnects cannot miss anything.
 *
 * A client that never reads would make the server buffer every event for it (about 0.8 MB/s on
 * a busy site, without end). So each stream may hold at most `maxBufferedBytes` unsent beyond
 * its first snapshot; past that it is dropped (and counted): a page that was only slow
 * reconnects and gets a fresh snapshot, which is all it would have caught up to anyway.
 *
 * Bytes alone are not enough: on a quiet site a reader that stopped reading fills only the
 * kernel's socket buffers (up to a few MB each) and would then be held for ever. So a stream whose
 * socket has not drained for `stallMs` is dropped as well, however little is waiting.
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

/**
 * Default time a stream's socket may go without draining (its client not reading what was
 * written) before it is dropped: 30 s, far longer than a page on a slow link needs to take one
 * snapshot, short enough that stalled readers cannot pile up.
 */
export const STREAM_STALL_MS = 30_000

/** Options of {@link EventStreams}. */
export interface EventStreamsOptions {
  /**
   * Bytes a stream may have unsent beyond its first snapshot before it is dropped; default
   * {@link MAX_STREAM_BUFFER_BYTES}.
   */
  maxBufferedBytes?: number
  /** Milliseconds a stream may go without draining before it is dropped; default {@link STREAM_STALL_MS}. */
  stallMs?: number
}

/** One open stream: its byte bound, and the timer armed while its socket waits to drain. */
interface Stream {
  limit: number
  /** The client's remote address, for the per-client count. */
  client: string
  stall?: NodeJS.Timeout
}

/** The open event streams. */
export class EventStreams {
  /** Each stream, with the bytes it may have unsent (the bound plus its first snapshot). */
  private readonly open = new Map<ServerResponse, Stream>()
  /** Open streams per remote address. */
  private readonly perClient = new Map<string, number>()
  private readonly heartbeat: NodeJS.Timeout
  private readonly maxBuffered: number
  private readonly stallMs: number
  /** Streams dropped because their client did not read. */
  dropped = 0

  constructor(options: EventStreamsOptions = {}) {
    this.maxBuffered = options.maxBufferedBytes ?? MAX_STREAM_BUFFER_BYTES
    this.stallMs = options.stallMs ?? STREAM_STALL_MS
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

  /** Streams open now from one remote address. */
  from(client: string): number {
    return this.perClient.get(client) ?? 0
  }

  /** Takes over a response as an event stream whose first event is `first`; `client` is its remote address. */
  add(res: ServerResponse, first: { event: string; data: unknown }, client: string): void {
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      // nginx buffers proxied responses unless told not to; events would arrive in bursts.
      'X-Accel-Buffering': 'no',
    })
    const snapshot = frame(first.event, first.data)
    // A big site's snapshot may itself wait in the buffer for a while: the bound starts above it.
    const stream: Stream = { limit: this.maxBuffered + Buffer.byteLength(snapshot), client }
    this.open.set(res, stream)
    this.perClient.set(client, this.from(client) + 1)
    res.on('close', () => this.forget(res))
    res.on('drain', () => {
      clearTimeout(stream.stall)
      delete stream.stall
    })
    res.write('retry: 1000\n\n')
    this.watch(res, stream, res.write(snapshot))
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
    const stream = this.open.get(res)
    if (stream === undefined) return
    // Node counts what the socket has not yet handed to the kernel; the kernel's own buffers
    // come on top and are bounded by the OS.
    if (res.writableLength > stream.limit) return this.drop(res)
    this.watch(res, stream, res.write(text))
  }

  /**
   * After a write: when the socket did not take it all (`flushed` false), the client has until
   * `stallMs` to read enough for it to drain, or the stream is dropped. Armed once per stall;
   * 'drain' disarms it.
   */
  private watch(res: ServerResponse, stream: Stream, flushed: boolean): void {
    if (flushed || stream.stall !== undefined) return
    stream.stall = setTimeout(() => this.drop(res), this.stallMs)
    stream.stall.unref()
  }

  /** Drops a stream whose client stopped reading, and counts it. */
  private drop(res: ServerResponse): void {
    if (!this.open.has(res)) return
    this.forget(res)
    this.dropped++
    // Not end(): a client that does not read would never take the rest, so the socket goes.
    res.destroy()
  }

  private forget(res: ServerResponse): void {
    const stream = this.open.get(res)
    if (stream === undefined) return
    clearTimeout(stream.stall)
    this.open.delete(res)
    const left = this.from(stream.client) - 1
    if (left > 0) this.perClient.set(stream.client, left)
    else this.perClient.delete(stream.client)
  }

  /** Ends every stream (the pages will try to reconnect). */
  close(): void {
    clearInterval(this.heartbeat)
    for (const [res, stream] of this.open) {
      clearTimeout(stream.stall)
      res.end()
    }
    this.open.clear()
    this.perClient.clear()
  }
}

function frame(event: string, data: unknown): string {
  // JSON has no raw newlines, so one data line per event.
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
}
