/** The vendor's encrypted examples: each verifies under its key and decrypts to the expected fields. */
import { describe, expect, it } from 'vitest'
import { Keyring } from '../../src/secure/keyring.js'
import { createSecureStats, openE781Block } from '../../src/secure/open.js'
import type { BlockLayout } from '../../src/secure/open.js'
import { hex } from './helpers.js'
import { loadVectors } from '../support/vectors.js'

interface EncryptedVector {
  mode: string
  key: string
  advertisement: { serviceData: { uuid: string; data: string }[] }
  expect: Record<string, unknown> & { secure: { keyId: string } }
}
const vendor = loadVectors<{
  encrypted: EncryptedVector[]
}>('vendor-examples.json')

const INTERVALS = [100, 152.5, 211.25, 318.75, 417.5, 546.25, 760, 852.5, 1022.5, 1285]

/** Just enough of PROTOCOL.md 2.2/2.4 to check the decrypted bytes; the real decoder is frames/e781.ts. */
function fieldsOf(block: Uint8Array, layout: BlockLayout, firmware: number): Record<string, unknown> {
  const serialNumber = '0117C5' + hex(block.subarray(0, 3)).toUpperCase()
  const i8 = (v: number): number => (v << 24) >> 24
  const bitA = (a: number) => ({ transmitPower: a >> 4, advertisingInterval: INTERVALS[a & 15] })
  if (layout === 'identity') {
    return {
      serialNumber,
      major: (block[6] << 8) | block[7],
      minor: (block[8] << 8) | block[9],
      batteryLevel: block[10],
      ...bitA(block[11]),
      measuredPower: i8(block[13]),
    }
  }
  const hi = block[7]
  const lo = block[8]
  const light = hi === 0xff ? null : Math.round(2 ** (hi >> 4) * ((hi & 15) * 16 + (lo & 15)) * 0.045 * 1000) / 1000
  const moving = ['still', 'moving'][block[11]] ?? (block[11] === 0xff ? 'disabled' : 'unknown')
  return {
    serialNumber,
    batteryLevel: block[3],
    ...bitA(block[4]),
    temperature: block[6] === 0xff ? null : i8(block[6]) - (firmware < 0x41 ? 10 : 0),
    light,
    accelerometerCount: block[9] | (block[10] << 8),
    movingState: moving,
    measuredPower: i8(block[12]),
  }
}

describe('vendor encrypted examples', () => {
  it.each(vendor.encrypted.map((v) => [v.mode, v] as const))('mode %s verifies and decrypts to the expected fields', (_mode, v) => {
    const data = Uint8Array.from(Buffer.from(v.advertisement.serviceData[0].data, 'hex'))
    const layout: BlockLayout = data[2] === 0x10 || data[2] === 0x41 ? 'identity' : 'sensors'
    const stats = createSecureStats()
    const r = openE781Block(new Keyring([v.key]), data, layout, { stats, expectedSerial: v.expect.serialNumber as string })
    if (!r.verified) throw new Error(`not verified: ${r.reason}`)
    expect(r.keyId).toBe(v.expect.secure.keyId)
    const fields = fieldsOf(r.block, layout, data[1])
    for (const [name, value] of Object.entries(fields)) {
      if (name in v.expect) expect([name, value]).toEqual([name, v.expect[name]])
    }
    expect(Object.keys(fields).filter((n) => n in v.expect).length).toBeGreaterThanOrEqual(6)
    expect(stats.verified).toBe(1)
    // without the key the same frame is no_key, and nothing is decrypted
    expect(openE781Block(new Keyring(), data, layout, { stats })).toMatchObject({ verified: false, reason: 'no_key' })
    expect(stats.decrypted).toBe(1)
  })
})
