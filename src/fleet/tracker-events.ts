/**
 * FleetTracker events as objects, for `for await (const e of tracker)`: the same idea and the
 * same bounded buffer (range/event-stream.ts) as the scanner's, so a slow consumer loses the
 * oldest events (counted) and never grows the tracker's memory.
 */

import type { FleetBeacon } from './fusion.js'
import type { RoomChange } from './room-choice.js'
import type { FleetTrackerEvents } from './tracker-types.js'

/** One tracker event as an object; `time` is the tracker's clock (ms). */
export type FleetEvent =
  | { event: 'found' | 'gone' | 'moved'; time: number; beacon: FleetBeacon }
  | { event: 'room'; time: number; beacon: FleetBeacon; change: RoomChange }
  | { event: 'updated'; time: number; beacons: FleetBeacon[] }
  | { event: 'gateway'; time: number; gateway: string; state: 'online' | 'offline' }
  | { event: 'connected'; time: number; protocolVersion: 4 | 5 }
  | { event: 'partitions'; time: number; partitions: number[]; trackers: string[] }
  | { event: 'disconnected'; time: number }
  | { event: 'error'; time: number; error: { name: string; message: string; code?: string } }

/** The object for an emitted event; `args` are the listener arguments of `event`. */
export function fleetEventObject(event: keyof FleetTrackerEvents, args: readonly unknown[], time: number): FleetEvent {
  switch (event) {
    case 'found':
    case 'gone':
    case 'moved':
      return { event, time, beacon: args[0] as FleetBeacon }
    case 'room':
      return { event, time, beacon: args[0] as FleetBeacon, change: args[1] as RoomChange }
    case 'updated':
      return { event, time, beacons: args[0] as FleetBeacon[] }
    case 'gateway': {
      const g = args[0] as { gateway: string; state: 'online' | 'offline'; time: number }
      return { event, time: g.time, gateway: g.gateway, state: g.state }
    }
    case 'connected':
      return { event, time, protocolVersion: (args[0] as { protocolVersion: 4 | 5 }).protocolVersion }
    case 'partitions': {
      const p = args[0] as { partitions: number[]; trackers: string[] }
      return { event, time, partitions: p.partitions, trackers: p.trackers }
    }
    case 'disconnected':
      return { event, time }
    case 'error': {
      // The message only (errors are typed and carry no secret); the stack stays out of the stream.
      const e = args[0] as Error & { code?: unknown }
      return { event, time, error: { name: e.name, message: e.message, ...(typeof e.code === 'string' ? { code: e.code } : {}) } }
    }
  }
}
