/**
 * FleetTracker events as objects, for `for await (const e of tracker)`: the same idea and the
 * same bounded buffer (scanner/event-stream.ts) as the scanner's, so a slow consumer loses the
 * oldest events (counted) and never grows the tracker's memory.
 */

import { EventStream } from '../scanner/event-stream.js'
import type { EventIterator } from '../scanner/event-stream.js'
import type { FleetBeacon } from './fleet-beacon.js'
import type { RoomChange } from './room-choice.js'
import type { FleetGatewayClock, FleetGatewayEvent, FleetTrackerEvents } from './tracker-types.js'
import type { MqttAckWarning } from '../mqtt/inflight.js'
import type { Site } from '../positioning/site.js'

/** One tracker event as an object; `time` is the tracker's clock (ms). */
export type FleetEvent =
  | { event: 'found' | 'gone' | 'moved'; time: number; beacon: FleetBeacon }
  | { event: 'room' | 'floor'; time: number; beacon: FleetBeacon; change: RoomChange }
  | { event: 'updated'; time: number; beacons: FleetBeacon[] }
  | { event: 'gateway'; time: number; gateway: string; state: 'online' | 'offline' | 'forgotten' }
  | { event: 'unknownGateway'; time: number; gateway: string }
  | { event: 'site'; time: number; site: Site }
  | { event: 'gatewayClock'; time: number; gateway: string; refused: boolean; offsetMs: number }
  | { event: 'connected'; time: number; protocolVersion: 4 | 5 }
  | { event: 'partitions'; time: number; partitions: number[]; trackers: string[] }
  | { event: 'disconnected'; time: number }
  | { event: 'error'; time: number; error: { name: string; message: string; code?: string } }
  | { event: 'warning'; time: number; warning: MqttAckWarning }

/** The object for an emitted event; `args` are the listener arguments of `event`. */
export function fleetEventObject(event: keyof FleetTrackerEvents, args: readonly unknown[], time: number): FleetEvent {
  switch (event) {
    case 'found':
    case 'gone':
    case 'moved':
      return { event, time, beacon: args[0] as FleetBeacon }
    case 'room':
    case 'floor':
      return { event, time, beacon: args[0] as FleetBeacon, change: args[1] as RoomChange }
    case 'updated':
      return { event, time, beacons: args[0] as FleetBeacon[] }
    case 'gateway': {
      const g = args[0] as FleetGatewayEvent
      return { event, time: g.time, gateway: g.gateway, state: g.state }
    }
    case 'unknownGateway': {
      const g = args[0] as { gateway: string; time: number }
      return { event, time: g.time, gateway: g.gateway }
    }
    case 'site': {
      const s = args[0] as { site: Site; time: number }
      return { event, time: s.time, site: s.site }
    }
    case 'gatewayClock': {
      const g = args[0] as FleetGatewayClock
      return { event, time: g.time, gateway: g.gateway, refused: g.refused, offsetMs: g.offsetMs }
    }
    case 'connected':
      return { event, time, protocolVersion: (args[0] as { protocolVersion: 4 | 5 }).protocolVersion }
    case 'partitions': {
      const p = args[0] as { partitions: number[]; trackers: string[] }
      return { event, time, partitions: p.partitions, trackers: p.trackers }
    }
    case 'disconnected':
      return { event, time }
    case 'warning':
      return { event, time, warning: args[0] as MqttAckWarning }
    case 'error': {
      // The message only (errors are typed and carry no secret); the stack stays out of the stream.
      const e = args[0] as Error & { code?: unknown }
      return {
        event,
        time,
        error: { name: e.name, message: e.message, ...(typeof e.code === 'string' ? { code: e.code } : {}) },
      }
    }
  }
}

/** The async iterators open on one tracker. */
export class FleetEventStreams {
  private readonly streams = new Set<EventStream<FleetEvent>>()
  private droppedByClosed = 0

  constructor(private readonly capacity: number) {}

  /** Events dropped by slow consumers, closed iterators included. */
  get dropped(): number {
    let n = this.droppedByClosed
    for (const s of this.streams) n += s.dropped
    return n
  }

  /** A new iterator; already ended when `ended` (the tracker stopped) or the signal aborted. */
  open(signal: AbortSignal | undefined, ended: boolean): EventIterator<FleetEvent> {
    const onAbort = (): void => stream.end(true)
    const stream: EventStream<FleetEvent> = new EventStream<FleetEvent>(this.capacity, () => {
      this.streams.delete(stream)
      this.droppedByClosed += stream.dropped
      signal?.removeEventListener('abort', onAbort)
    })
    this.streams.add(stream)
    if (ended || signal?.aborted === true) stream.end(true)
    else signal?.addEventListener('abort', onAbort, { once: true })
    return stream
  }

  /** True while any iterator is open: only then are event objects built. */
  get active(): boolean {
    return this.streams.size > 0
  }

  push(event: keyof FleetTrackerEvents, args: readonly unknown[], time: number): void {
    if (this.streams.size === 0) return
    const e = fleetEventObject(event, args, time)
    for (const s of this.streams) s.push(e)
  }

  /** Ends every iterator after what is buffered. */
  endAll(): void {
    for (const s of this.streams) s.end()
  }
}
