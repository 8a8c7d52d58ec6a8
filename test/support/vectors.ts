// Loads the public test vectors (test/vectors, see its README) and turns their hex into bytes.
import { readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { Advertisement } from '../../src/advertisement.js'

const here = dirname(fileURLToPath(import.meta.url))

/** Where the vectors live: in the repository, so a fresh clone tests anywhere. */
export const VECTORS_DIR = join(here, '..', 'vectors')

export function loadVectors<T>(name: string): T {
  return JSON.parse(readFileSync(join(VECTORS_DIR, name), 'utf8')) as T
}

export function hex(s: string): Uint8Array {
  return Uint8Array.from(Buffer.from(s, 'hex'))
}

/** An advertisement as the vector files write it: hex strings for byte fields. */
export interface JsonAdvertisement {
  address?: string
  rssi?: number
  timestamp?: number
  manufacturerData?: string
  serviceData?: { uuid: string; data: string }[]
}

export function toAdvertisement(j: JsonAdvertisement): Advertisement {
  const adv: Advertisement = {
    address: j.address ?? 'aa:bb:cc:dd:ee:ff',
    rssi: j.rssi ?? -60,
    timestamp: j.timestamp ?? 1_767_225_600_000,
  }
  if (j.manufacturerData !== undefined) adv.manufacturerData = hex(j.manufacturerData)
  if (j.serviceData !== undefined) adv.serviceData = j.serviceData.map((e) => ({ uuid: e.uuid, data: hex(e.data) }))
  return adv
}
