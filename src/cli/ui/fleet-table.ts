/**
 * The live table of `beaconkit fleet`: one row per fused beacon (its name, room, position, the gateways
 * hearing it, the best RSSI, age), on the same grid and screen as the scanner's table.
 */
import type { FleetBeacon } from '../../fleet/fusion.js'
import type { FleetGatewayEvent } from '../../fleet/tracker-types.js'
import { renderGrid, statusLine } from './table.js'
import type { Column } from './table.js'

/** What the status line above the fleet table says. */
export interface FleetStatus {
  /** e.g. `mqtt://127.0.0.1:1883 (embedded)`. */
  broker: string
  /** `connected`, `connecting`, `disconnected`. */
  state: string
  gatewaysOnline: number
  gatewaysKnown: number
  /** RSSI batches per second over the last tick. */
  batchesPerSecond: number
  /** More status, appended in order (the latest warning). */
  notes?: string[]
}

/**
 * The gateways the status line counts, kept from the tracker's `gateway` events. A gateway the
 * tracker forgets is dropped, so this list is bounded by the tracker's registry (`maxGateways`).
 */
export class FleetGatewayCounts {
  private readonly states = new Map<string, 'online' | 'offline'>()

  /** One `gateway` event of the tracker. */
  apply(e: FleetGatewayEvent): void {
    if (e.state === 'forgotten') this.states.delete(e.gateway)
    else this.states.set(e.gateway, e.state)
  }

  /** Gateways whose last status is online. */
  get online(): number {
    let n = 0
    for (const s of this.states.values()) if (s === 'online') n++
    return n
  }

  /** Gateways the tracker knows by their status. */
  get known(): number {
    return this.states.size
  }
}

interface FleetContext {
  now: number
}

function age(b: FleetBeacon, now: number): string {
  const s = Math.max(0, now - b.lastSeen) / 1000
  return s < 10 ? `${s.toFixed(1)}s` : `${Math.round(s)}s`
}

// Narrow terminals drop columns from the lowest priority up: where a beacon is (its room) is
// what the table is for, so BEACON and ROOM go last, and ROOM is cut only once every other
// column is gone (it outlives POSITION, the gateways and the age).
const COLUMNS: Column<FleetBeacon, FleetContext>[] = [
  { header: 'BEACON', priority: 100, align: 'left', minWidth: 12, cell: (b) => b.id },
  { header: 'NAME', priority: 97, align: 'left', minWidth: 8, cell: (b) => b.name ?? '' },
  { header: 'ROOM', priority: 95, align: 'left', minWidth: 8, squeezeLast: true, cell: (b) => b.room ?? '' },
  { header: 'POSITION', priority: 60, align: 'right', cell: (b) => (b.position === undefined ? '' : `${b.position.x.toFixed(1)},${b.position.y.toFixed(1)} ±${b.position.accuracy.toFixed(1)}m`) },
  { header: 'GW', priority: 85, align: 'right', cell: (b) => String(b.gateways.length) },
  { header: 'BEST RSSI', priority: 90, align: 'right', cell: (b) => (b.gateways[0] === undefined ? '' : String(Math.round(b.gateways[0].rssi))) },
  { header: 'NEAREST', priority: 80, align: 'left', minWidth: 10, cell: (b) => b.gateways[0]?.gateway ?? '' },
  {
    header: 'ALSO HEARD BY',
    priority: 40,
    align: 'left',
    minWidth: 12,
    cell: (b) => b.gateways.slice(1).map((g) => `${g.gateway} ${Math.round(g.rssi)}`).join(', '),
  },
  { header: 'AGE', priority: 70, align: 'right', cell: (b, o) => age(b, o.now) },
]

/** The status line of the fleet view. */
export function renderFleetStatus(status: FleetStatus): string {
  return statusLine([
    'beaconkit fleet',
    `broker ${status.broker} ${status.state}`,
    `${status.gatewaysOnline}/${status.gatewaysKnown} gateways online`,
    `${Math.round(status.batchesPerSecond)} batches/s`,
    ...(status.notes ?? []),
  ])
}

/**
 * The fleet table: the status line, then beacons by room and id (rows stay in place while a
 * beacon stays in its room), cut to `width` × `height`. Pure.
 */
export function renderFleetTable(beacons: readonly FleetBeacon[], status: FleetStatus, options: { width: number; height?: number; now: number }): string[] {
  const rows = [...beacons].sort((a, b) => (a.room ?? '\uffff').localeCompare(b.room ?? '\uffff') || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
  // The name column only when some beacon has a name (the site file's `beacons` list): otherwise it is empty width.
  const columns = rows.some((b) => b.name !== undefined) ? COLUMNS : COLUMNS.filter((c) => c.header !== 'NAME')
  return renderGrid(rows, columns, renderFleetStatus(status), {
    width: options.width,
    ...(options.height === undefined ? {} : { height: options.height }),
    context: { now: options.now },
    empty: 'no beacons heard by any gateway yet',
    noun: ['beacon', 'beacons'],
  })
}
