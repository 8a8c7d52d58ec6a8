/**
 * Server-Sent Events to the pages: one long response per page. EventSource reconnects by
 * itself (after the `retry` we set) when the server restarts, and every connection starts with
 * a full snapshot, so a page that reconnects cannot miss anything.
 */
import type { ServerResponse } from 'node:http'

const HEARTBEAT_MS = 15_000

/** The open event streams. */
export class EventStreams {
  private readonly open = new Set<ServerResponse>()
  private readonly heartbeat: NodeJS.Timeout

  constructor() {
    // A comment line now and then keeps proxies and NATs from closing an idle stream.
    this.heartbeat = setInterval(() => {
      for (const res of this.open) res.write(': keep-alive\n\n')
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
    res.write(frame(first.event, first.data))
    this.open.add(res)
    res.on('close', () => this.open.delete(res))
  }

  /** Sends one event to every page. */
  send(event: string, data: unknown): void {
    if (this.open.size === 0) return
    const text = frame(event, data)
    for (const res of this.open) res.write(text)
  }

  /** Ends every stream (the pages will try to reconnect). */
  close(): void {
    clearInterval(this.heartbeat)
    for (const res of this.open) res.end()
    this.open.clear()
  }
}

function frame(event: string, data: unknown): string {
  // JSON has no raw newlines, so one data line per event.
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`
}
