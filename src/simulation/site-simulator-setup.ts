/**
 * What a {@link SiteSimulator} is built from, checked: the site's gateways with their positions
 * and the beacons with their names, each check throwing InvalidOptionError that says what to fix.
 */
import { InvalidOptionError } from '../errors.js'
import type { Site } from '../positioning/site.js'
import { beaconName, Trajectory } from './site-beacons.js'
import type { SiteBeacon } from './site-beacons.js'
import type { RadioModel } from './site-radio.js'
import type { SiteHeard } from './site-simulator-types.js'

/** A beacon as the simulator runs it: its spec, where it walks, when it sends next. */
export interface BeaconState {
  spec: SiteBeacon
  index: number
  name: string
  trajectory: Trajectory
  next: number
  frame: number
  lastHeard?: SiteHeard
  /** Index of its floor in the site's `floors` (0 on a one-plane site), and that floor's height, m. */
  floor: number
  floorZ: number
}

/** A gateway where the radio model hears it (metres; `z` defaults to the radio's gateway height). */
export interface GatewayPlace {
  id: string
  x: number
  y: number
  /** Height above the ground (its floor's height plus its own), m. */
  z: number
  /** Index of its floor in the site's `floors` (0 on a one-plane site). */
  floor: number
}

/** Index of floor `id` in the site's floors (0 when absent or unknown), and that floor's height. */
export function floorOf(site: Site, radio: RadioModel, id: string | undefined): { index: number; z: number } {
  const index = Math.max(0, id === undefined ? 0 : site.floors.findIndex((f) => f.id === id))
  return { index, z: site.floors[index]?.z ?? index * radio.storeyHeight }
}

/** The site's gateways where the radio model places them; the site must be one of gateways. */
export function gatewayPlaces(site: Site, radio: RadioModel): GatewayPlace[] {
  if (site.kind !== 'receivers')
    throw new InvalidOptionError(
      'invalid_option',
      'SiteSimulator needs a site of gateways ("gateways" in the file), not of fixed beacons',
      { option: 'site' },
    )
  const places = site.anchorList().map((a) => {
    if (a.x === undefined || a.y === undefined)
      throw new InvalidOptionError(
        'invalid_option',
        `site: gateway ${a.id} has no position; give it "x" and "y" in metres to simulate it`,
        { option: 'site' },
      )
    const floor = floorOf(site, radio, a.floor)
    return { id: a.id, x: a.x, y: a.y, z: floor.z + (a.z ?? radio.gatewayHeight), floor: floor.index }
  })
  if (places.length === 0)
    throw new InvalidOptionError('invalid_option', 'site: no gateways to simulate', { option: 'site' })
  return places
}

/**
 * The beacons' states, each starting at a random phase of its interval (one `random()` per
 * beacon, in order), registered in `byName` under their names; then under their serial numbers
 * and addresses, which the fleet knows them by, where no name took them.
 */
export function beaconStates(
  beacons: readonly SiteBeacon[],
  random: () => number,
  byName: Map<string, BeaconState>,
): BeaconState[] {
  const states = beacons.map((spec, index) => {
    if (typeof spec.address !== 'string' || !/^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/.test(spec.address)) {
      throw new InvalidOptionError('invalid_option', `beacons[${index}].address must be lower-case aa:bb:cc:dd:ee:ff`, {
        option: 'beacons',
      })
    }
    if (spec.intervalMs !== undefined && !(spec.intervalMs >= 20))
      throw new InvalidOptionError('invalid_option', `beacons[${index}].intervalMs must be >= 20 ms (BLE minimum)`, {
        option: 'beacons',
      })
    if (spec.at === undefined && spec.path === undefined)
      throw new InvalidOptionError('invalid_option', `beacons[${index}] needs "at" or "path"`, { option: 'beacons' })
    if (spec.path !== undefined && (spec.path.waypoints.length < 2 || !(spec.path.speed > 0))) {
      throw new InvalidOptionError(
        'invalid_option',
        `beacons[${index}].path needs two or more waypoints and a speed > 0 m/s`,
        { option: 'beacons' },
      )
    }
    const name = beaconName(spec)
    const state: BeaconState = {
      spec,
      index,
      name,
      trajectory: new Trajectory(spec),
      next: (spec.appearAtMs ?? 0) + random() * (spec.intervalMs ?? 500),
      frame: 0,
      floor: 0,
      floorZ: 0,
    }
    if (byName.has(name))
      throw new InvalidOptionError(
        'invalid_option',
        `beacons[${index}]: the name ${name} is taken by another beacon; ` +
          'give each a name, serial or address of its own',
        { option: 'beacons' },
      )
    byName.set(name, state)
    return state
  })
  // The fleet knows a beacon by its serial number: the ground truth answers to that too, and to the address.
  for (const b of states)
    for (const alias of [b.spec.serialNumber, b.spec.address])
      if (alias !== undefined && !byName.has(alias)) byName.set(alias, b)
  return states
}
