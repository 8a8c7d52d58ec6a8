// Gateway offsets learnt online (#39): slow, bounded, relative, and one hostile gateway lying by
// +20 dB cannot drag the others' offsets.
import { describe, expect, it } from 'vitest'
import { GatewayOffsets } from '../../src/positioning/gateway-offsets.js'
import { seededRandom } from '../../src/util/random.js'

/** A small deterministic generator (no Math.random in tests). */
function gen(seed: number) {
  const next = seededRandom(seed)
  return { next, gauss: () => Math.sqrt(-2 * Math.log(Math.max(1e-12, next()))) * Math.cos(2 * Math.PI * next()) }
}

const GATES = ['a', 'b', 'c', 'd', 'e', 'f']
/** The gains the gateways really have (unknown to the learner), relative to one another. */
const TRUE: Record<string, number> = { a: -5, b: 3, c: 0, d: 6, e: -2, f: -1 }

/** `n` observations of a tag heard by 3–6 random gateways, each its gain + a tag level + noise. */
function feed(o: GatewayOffsets, n: number, seed: number, lie: Record<string, number> = {}): void {
  const r = gen(seed)
  for (let i = 0; i < n; i++) {
    const level = r.gauss() * 3
    const heard = GATES.filter(() => r.next() < 0.7)
    o.observe(heard.map((g) => ({ gateway: g, expected: -70 + r.gauss() * 5, rssi: 0 })).map((s) => ({
      ...s,
      rssi: s.expected + TRUE[s.gateway] + (lie[s.gateway] ?? 0) + level + r.gauss() * 4,
    })))
  }
}

/** Offsets relative to their mean, as the truth is only known relatively. */
function relative(o: GatewayOffsets, ids: string[]): Record<string, number> {
  const mean = ids.reduce((s, g) => s + o.offset(g) - TRUE[g], 0) / ids.length
  return Object.fromEntries(ids.map((g) => [g, o.offset(g) - TRUE[g] - mean]))
}

describe('GatewayOffsets', () => {
  it('learns every gateway\'s gain to within a dB from beacons heard by several gateways', () => {
    const o = new GatewayOffsets()
    feed(o, 3000, 1)
    for (const err of Object.values(relative(o, GATES))) expect(Math.abs(err)).toBeLessThan(1)
    expect(o.list()).toHaveLength(6)
  })

  it('one gateway lying by +20 dB is learnt as loud and cannot drag the others', () => {
    const honest = new GatewayOffsets()
    feed(honest, 3000, 2)
    const attacked = new GatewayOffsets()
    feed(attacked, 3000, 2, { d: 20 })
    const others = GATES.filter((g) => g !== 'd')
    for (const g of others) expect(Math.abs(attacked.offset(g) - honest.offset(g))).toBeLessThan(1)
    // The liar's own offset takes the lie (so its readings are read 20 dB lower), bounded.
    expect(attacked.offset('d') - honest.offset('d')).toBeGreaterThan(17)
    expect(Math.abs(attacked.offset('d'))).toBeLessThanOrEqual(24)
  })

  it('is slow and bounded: one observation moves an offset by at most maxStepDb, and fewer than three gateways teach nothing', () => {
    const o = new GatewayOffsets({ maxStepDb: 0.25 })
    expect(o.observe([{ gateway: 'a', rssi: -40, expected: -80 }, { gateway: 'b', rssi: -80, expected: -80 }])).toBe(false)
    expect(o.offset('a')).toBe(0)
    expect(o.observe([
      { gateway: 'a', rssi: -40, expected: -80 },
      { gateway: 'b', rssi: -80, expected: -80 },
      { gateway: 'c', rssi: -80, expected: -80 },
    ])).toBe(true)
    expect(o.offset('a')).toBeLessThanOrEqual(0.25 + 1e-9)
    expect(o.offset('a')).toBeGreaterThan(0)
    // Readings that are not numbers are not taken.
    expect(o.observe([{ gateway: 'a', rssi: Number.NaN, expected: -80 }, { gateway: 'b', rssi: -80, expected: -80 }, { gateway: 'c', rssi: -80, expected: Infinity }])).toBe(false)
  })

  it('holds at most maxGateways, and restores saved offsets within its bound', () => {
    const o = new GatewayOffsets({ maxGateways: 3, maxOffsetDb: 10 })
    o.observe(['a', 'b', 'c', 'd'].map((g) => ({ gateway: g, rssi: -70, expected: -70 })))
    expect(o.list().map((e) => e.gateway)).toEqual(['a', 'b', 'c'])
    const r = new GatewayOffsets({ maxOffsetDb: 10 })
    r.restore([{ gateway: 'x', offsetDb: 40 }, { gateway: 'y', offsetDb: Number.NaN }])
    expect(r.offset('x')).toBe(10)
    expect(r.offset('y')).toBe(0)
  })
})
