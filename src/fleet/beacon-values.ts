/**
 * The fused `values` of a fleet beacon (docs/fleet-reference.md, "The fleet topics"): its own
 * readings (temperature, light,
 * battery, motion) as the gateways' retained Beacon objects report them, each value taken from
 * the freshest state of a known gateway that has it. The states come through the bounded,
 * validated claims store (beacon-claims.ts); this picks and type-checks the fields.
 */
import type { Beacon } from '../reading.js'
import type { HeldClaim } from './beacon-claims.js'

/** A beacon's own readings, as the freshest known gateway states give them. */
export interface FleetValues {
  /** °C; `null` when the beacon says it has no reading. */
  temperature?: number | null
  /** Lux; `null` when the beacon says it has no reading. */
  light?: number | null
  /** %. */
  batteryLevel?: number
  moving?: boolean
  movingState?: string
  accelerometerCount?: number
}

/** What the tracker holds of one gateway's state of a beacon. */
export interface FleetClaim {
  values: FleetValues
  serialNumber?: string
}

const num = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v)
const text = (v: unknown): v is string => typeof v === 'string' && v.length <= 64

/** The fields of a gateway's Beacon object the tracker keeps, each checked for its type. */
export function fleetClaimOf(b: Beacon): FleetClaim {
  const values: FleetValues = {}
  if (num(b.temperature) || b.temperature === null) values.temperature = b.temperature
  if (num(b.light) || b.light === null) values.light = b.light
  if (num(b.batteryLevel)) values.batteryLevel = b.batteryLevel
  if (typeof b.moving === 'boolean') values.moving = b.moving
  if (text(b.movingState)) values.movingState = b.movingState
  if (num(b.accelerometerCount)) values.accelerometerCount = b.accelerometerCount
  const claim: FleetClaim = { values }
  if (text(b.serialNumber)) claim.serialNumber = b.serialNumber
  return claim
}

const KEYS = ['temperature', 'light', 'batteryLevel', 'moving', 'movingState', 'accelerometerCount'] as const

/** Each value from the freshest state that has it (`held` freshest first); undefined when none has any. */
export function fuseValues(held: readonly HeldClaim<FleetClaim>[]): FleetValues | undefined {
  const out: Record<string, unknown> = {}
  let any = false
  for (const key of KEYS) {
    const h = held.find((x) => x.data.values[key] !== undefined)
    if (h === undefined) continue
    out[key] = h.data.values[key]
    any = true
  }
  return any ? (out as FleetValues) : undefined
}

/** The serial number the freshest state that has one gives. */
export function serialOf(held: readonly HeldClaim<FleetClaim>[]): string | undefined {
  for (const h of held) if (h.data.serialNumber !== undefined) return h.data.serialNumber
  return undefined
}
