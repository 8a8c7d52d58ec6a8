/**
 * The emulator's seeded data: the catalogue of devices, other users' logs and the demo map,
 * all drawn from one seeded random stream, so every run with the same seed sees the same data
 * (the store draws in a fixed order: catalogue, logs, map).
 */
import type { AccountBeacon, DeploymentMap } from '../cloud/records.js'
import type { BeaconLogRecord } from '../reading.js'

/** A device that can be added to an account with its token. */
export interface CatalogueDevice {
  mac: string
  token: string
  UMM: string
}

const UUID = 'FDA50693-A4E2-4FB1-AFCF-C6EB07647825'
/** The time seeded data is dated from. */
export const SEED_EPOCH = Date.UTC(2026, 0, 1)

function hex(rng: () => number, digits: number): string {
  let s = ''
  for (let i = 0; i < digits; i++) s += Math.floor(rng() * 16).toString(16)
  return s.toUpperCase()
}

/** The 24 devices that exist and can be added with their token. */
export function seedCatalogue(rng: () => number): CatalogueDevice[] {
  const catalogue: CatalogueDevice[] = []
  for (let i = 0; i < 24; i++) {
    catalogue.push({ mac: `0117C5${hex(rng, 6)}`, token: hex(rng, 8).toLowerCase(), UMM: `${UUID}|10001|${i + 1}` })
  }
  return catalogue
}

/** A beacon as an account holds it, added by `email` at `at`. */
export function newAccountBeacon(d: CatalogueDevice, email: string, at: number): AccountBeacon {
  return {
    mac: d.mac,
    UMM: d.UMM,
    updatedTime: at,
    createTime: new Date(at).toISOString(),
    users: [{ user: email, createdTime: new Date(at).toISOString() }],
    lonlat: [121.47, 31.23],
    sensor: {},
    tags: [],
  }
}

/** The demo floor with the first six catalogue devices placed on it. */
export function demoMap(
  catalogue: readonly CatalogueDevice[],
  rng: () => number,
  seed: number,
  user: string,
): DeploymentMap {
  const placed = catalogue.slice(0, 6).map((d, i) => ({
    mac: d.mac,
    PosX: Math.round(rng() * 1000) / 1000,
    PosY: Math.round(rng() * 1000) / 1000,
    label: `B${i + 1}`,
    title: `Beacon ${i + 1}`,
    updatedTime: new Date(SEED_EPOCH).toISOString(),
    id: `pb-${seed}-${i}`,
  }))
  return {
    id: `map-${seed}`,
    key: 'demo',
    name: 'Demo floor',
    address: '1 Example Street',
    description: 'Seeded map of the beaconkit emulator',
    floor: '1F',
    imageURL: 'https://example.com/maps/demo.png',
    user,
    createdTime: SEED_EPOCH,
    tags: ['demo'],
    xScale: 20,
    yScale: 15,
    __v: 0,
    beacons: placed,
  }
}

/** A log record of a catalogue device with plausible sensor values. */
export function seedRecord(msgId: string, d: CatalogueDevice, at: number, rng: () => number): BeaconLogRecord {
  return {
    msgId,
    beaconMac: d.mac,
    beaconUMM: d.UMM,
    updatedTime: at,
    location: { lat: 31.23, lon: 121.47 },
    sensor: {
      temperature: Math.round((18 + rng() * 10) * 10) / 10,
      light: Math.round(rng() * 500),
      power: 50 + Math.floor(rng() * 50),
      accelerometer: Math.floor(rng() * 100),
    },
    __v: 0,
  }
}
