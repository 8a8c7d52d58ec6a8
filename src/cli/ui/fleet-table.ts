/**
 * The live table of `beaconkit fleet`: one row per fused beacon (its name, room, position, the gateways
 * hearing it, the best RSSI, age), on the same grid and screen as the scanner's table.
 */
import type { FleetBeacon } from '../../fleet/fleet-beacon.js'
import type { FleetGatewayEvent } from '../../fleet/tracker-types.js'
import { renderGrid, statusLine } from './grid.js'
import type { Column } from './grid.js'

/** What the status line above the fleet table says. */
export interface FleetStatus {
  /** e.g. `mqtt://127.0.0.1:1883 (embedded)`. */
  broker: string
  /** `connected`, `connecting`, `disconnected`. */
  state: string
  /**
   * Online among the gateways counted: the site's with a site, else every gateway the tracker
   * knows (`tracker.gatewaySummary()`).
   */
  gatewaysOnline: number
  gatewaysKnown: number
  /** Gateways the tracker knows that the site does not list: shown apart, never in the count. */
  gatewaysOther?: number
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
  private readonly site: ReadonlySet<string> | undefined

  /** @param siteGateways The site's gateway ids, when it lists them: only those are `known`, the rest are `others`. */
  constructor(siteGateways?: readonly string[]) {
    this.site = siteGateways === undefined ? undefined : new Set(siteGateways)
  }

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

  /** Gateways the tracker knows by their status (with a site: the site's only). */
  get known(): number {
    return this.states.size - this.others
  }

  /** Gateways known by their status that the site does not list (0 without a site). */
  get others(): number {
    const site = this.site
    if (site === undefined) return 0
    let n = 0
    for (const id of this.states.keys()) if (!site.has(id)) n++
    return n
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
  {
    header: 'POSITION',
    priority: 60,
    align: 'right',
    cell: (b) =>
      b.position === undefined
        ? ''
        : `${b.position.x.toFixed(1)},${b.position.y.toFixed(1)} ±${b.position.accuracy.toFixed(1)}m`,
  },
  { header: 'GW', priority: 85, align: 'right', cell: (b) => String(b.gateways.length) },
  {
    header: 'BEST RSSI',
    priority: 90,
    align: 'right',
    cell: (b) => (b.gateways[0] === undefined ? '' : String(Math.round(b.gateways[0].rssi))),
  },
  { header: 'NEAREST', priority: 80, align: 'left', minWidth: 10, cell: (b) => b.gateways[0]?.gateway ?? '' },
  {
    header: 'ALSO HEARD BY',
    priority: 40,
    align: 'left',
    minWidth: 12,
    cell: (b) =>
      b.gateways
        .slice(1)
        .map((g) => `${g.gateway} ${Math.round(g.rssi)}`)
        .join(', '),
  },
  { header: 'AGE', priority: 70, align: 'right', cell: (b, o) => age(b, o.now) },
]

/** ` (n others not in the site)`, or nothing when there are none. */
export function otherGateways(n: number): string {
  return n === 0 ? '' : ` (${n} ${n === 1 ? 'other' : 'others'} not in the site)`
}

/** The status line of the fleet view. */
export function renderFleetStatus(status: FleetStatus): string {
  return statusLine([
    'beaconkit fleet',
    `broker ${status.broker} ${status.state}`,
    `${status.gatewaysOnline}/${status.gatewaysKnown} gateways online${otherGateways(status.gatewaysOther ?? 0)}`,
    `${Math.round(status.batchesPerSecond)} batches/s`,
    ...(status.notes ?? []),
  ])
}

/**
 * The fleet table: the status line, then beacons by room and id (rows stay in place while a
 * beacon stays in its room), cut to `width` × `height`. Pure.
 */
export function renderFleetTable(
  beacons: readonly FleetBeacon[],
  status: FleetStatus,
  options: { width: number; height?: number; now: number },
): string[] {
  const rows = [...beacons].sort(
    (a, b) => (a.room ?? '\uffff').localeCompare(b.room ?? '\uffff') || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  )
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
