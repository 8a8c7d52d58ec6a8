// The fingerprint file (#39): versioned JSON saved atomically, read back whole; a damaged, foreign,
// newer or huge file — or damaged entries — reported, never thrown; a failed save leaves the old file.
import { mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import {
  FingerprintFileError,
  MAX_FINGERPRINT_FILE_BYTES,
  readFingerprintFile,
  writeFingerprintFile,
} from '../../src/fleet/fingerprint-file.js'
import type { FingerprintSample } from '../../src/positioning/fingerprints.js'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'beaconkit-fp-'))
})
afterEach(async () => {
  await rm(dir, { recursive: true, force: true })
})

const kitchen: FingerprintSample = {
  room: 'Kitchen',
  floor: 'ground',
  taught: 1_764_300_000_000,
  readings: 20,
  gateways: { 'kitchen-pi': { mean: -61.5, sd: 2.1, n: 20 }, 'hall-pi': { mean: -79, sd: 3.4, n: 15 } },
}

describe('fingerprint file', () => {
  it('saves and reads back the samples and offsets; a missing file is an untaught site', async () => {
    const path = join(dir, 'fingerprints.json')
    expect(await readFingerprintFile(path)).toEqual({ samples: [], offsets: [], skipped: 0 })
    await writeFingerprintFile(path, { samples: [kitchen], offsets: [{ gateway: 'hall-pi', offsetDb: 3.2 }] }, 5)
    const back = await readFingerprintFile(path)
    expect(back).toEqual({ samples: [kitchen], offsets: [{ gateway: 'hall-pi', offsetDb: 3.2 }], skipped: 0 })
    const json = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>
    expect(json).toMatchObject({ format: 'beaconkit-fingerprints', version: 1, saved: 5 })
    expect((await stat(path)).mode & 0o777).toBe(0o600)
    // Nothing left beside it.
    expect(await readdir(dir)).toEqual(['fingerprints.json'])
  })

  it.each([
    ['damaged', '{"format": "beaconkit-fingerprints", "version": 1, "samples": [{"room": "Kit'],
    ['not_fingerprints', '{"rooms": []}'],
    ['unsupported_version', '{"format": "beaconkit-fingerprints", "version": 2, "samples": []}'],
  ])('reports a %s file instead of throwing', async (code, text) => {
    const path = join(dir, 'fingerprints.json')
    await writeFile(path, text)
    const got = await readFingerprintFile(path)
    expect(got.samples).toEqual([])
    expect(got.error).toBeInstanceOf(FingerprintFileError)
    expect(got.error?.code).toBe(code)
    expect(got.error?.message).toContain(path)
  })

  it('refuses a file past the size bound without reading it', async () => {
    const path = join(dir, 'fingerprints.json')
    await writeFile(path, Buffer.alloc(MAX_FINGERPRINT_FILE_BYTES + 1, 0x20))
    expect((await readFingerprintFile(path)).error?.code).toBe('too_large')
  })

  it('skips the damaged entries and keeps the rest', async () => {
    const path = join(dir, 'fingerprints.json')
    const bad = [
      { ...kitchen, room: '' },
      { ...kitchen, floor: 'a b' },
      { ...kitchen, gateways: { 'no/slash': { mean: -60, sd: 1, n: 1 } } },
      { ...kitchen, gateways: { k: { mean: 'loud', sd: 1, n: 1 } } },
      { ...kitchen, gateways: {} },
      { ...kitchen, readings: -1 },
      'Kitchen',
    ]
    await writeFile(path, JSON.stringify({
      format: 'beaconkit-fingerprints', version: 1, samples: [...bad, kitchen],
      offsets: [{ gateway: 'hall-pi', offsetDb: 99 }, { gateway: 'hall-pi', offsetDb: -2 }],
    }))
    const got = await readFingerprintFile(path)
    expect(got.error).toBeUndefined()
    expect(got.samples).toEqual([kitchen])
    expect(got.offsets).toEqual([{ gateway: 'hall-pi', offsetDb: -2 }])
    expect(got.skipped).toBe(bad.length + 1)
    // "__proto__" as a gateway id reaches no prototype.
    await writeFile(path, JSON.stringify({ format: 'beaconkit-fingerprints', version: 1, samples: [{ ...kitchen, gateways: JSON.parse('{"__proto__": {"mean": -60, "sd": 1, "n": 3}}') }] }))
    const odd = await readFingerprintFile(path)
    expect(Object.keys(odd.samples[0]?.gateways ?? {})).toEqual(['__proto__'])
    expect(({} as Record<string, unknown>).mean).toBeUndefined()
  })

  it('a save that cannot be made throws write_failed and leaves the previous file whole', async () => {
    const path = join(dir, 'fingerprints.json')
    await writeFingerprintFile(path, { samples: [kitchen] }, 1)
    const before = await readFile(path, 'utf8')
    await expect(writeFingerprintFile(join(dir, 'missing', 'fingerprints.json'), { samples: [kitchen] }, 2)).rejects.toMatchObject({ code: 'write_failed' })
    expect(await readFile(path, 'utf8')).toBe(before)
    expect(await readdir(dir)).toEqual(['fingerprints.json'])
  })
})
