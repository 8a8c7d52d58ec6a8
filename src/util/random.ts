/**
 * mulberry32: a tiny seeded PRNG — same seed, same sequence — for the simulator's noise, the
 * emulator's data and faults, and statistical tests. Fast and good enough for that; never for
 * anything secret.
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * Standard normal numbers drawn from `random` (Box–Muller, the second value of each pair kept
 * for the next call). It shares `random` with its caller, so a simulator's other draws and its
 * noise come from one seeded sequence, in the same order as before this was shared.
 */
export function gaussianFrom(random: () => number): () => number {
  let spare: number | undefined
  return () => {
    if (spare !== undefined) {
      const s = spare
      spare = undefined
      return s
    }
    // 1 - random() keeps log() away from 0.
    const u = 1 - random()
    const v = random()
    const r = Math.sqrt(-2 * Math.log(u))
    spare = r * Math.sin(2 * Math.PI * v)
    return r * Math.cos(2 * Math.PI * v)
  }
}
