// Walkers of the benchmark house (rooms-house.mjs): from room to room through the doors at 1 m/s,
// upstairs and down by the stairs, standing 15–40 s in each room they reach.
import { STAIRS, spotIn } from './rooms-house.mjs'

function roomPath(house, fi, from, to) {
  // Breadth-first over the doors of one floor: rooms are the nodes.
  const prev = new Map([[from, null]])
  const queue = [from]
  while (queue.length > 0) {
    const a = queue.shift()
    if (a === to) break
    for (const d of house.doors) {
      if (d.floor !== fi) continue
      const b = d.a === a ? d.b : d.b === a ? d.a : -1
      if (b >= 0 && !prev.has(b)) {
        prev.set(b, { room: a, door: d })
        queue.push(b)
      }
    }
  }
  const points = []
  for (let at = to; prev.get(at) !== null; at = prev.get(at).room) points.unshift(prev.get(at).door.at)
  return points
}

/** A walker's plan for `durationMs`: `at(t)` gives `{ floor, x, y }`. */
export function makeWalker(house, durationMs) {
  const r = house.rng
  const legs = [] // { t0, t1, floor, from: [x, y], to: [x, y] }
  let room = r.int(0, 7)
  let floor = room < 4 ? 0 : 1
  let p = spotIn(house, room)
  let t = 0
  const go = (q) => {
    const dt = (Math.hypot(q[0] - p[0], q[1] - p[1]) / 1.0) * 1000
    legs.push({ t0: t, t1: t + dt, floor, from: p, to: q })
    t += dt
    p = q
  }
  const stay = (ms) => {
    legs.push({ t0: t, t1: t + ms, floor, from: p, to: p })
    t += ms
  }
  stay(r.uniform(15_000, 40_000))
  while (t < durationMs) {
    const target = r.int(0, 7)
    if (target === room) continue
    const tf = target < 4 ? 0 : 1
    if (tf !== floor) {
      const stairsRoom = house.roomAt(floor, STAIRS[0], STAIRS[1])
      for (const q of roomPath(house, floor, room, stairsRoom)) go(q)
      go(STAIRS)
      floor = tf
      room = house.roomAt(floor, STAIRS[0], STAIRS[1])
      stay(3000)
    }
    for (const q of roomPath(house, floor, room, target)) go(q)
    go(spotIn(house, target))
    room = target
    stay(r.uniform(15_000, 40_000))
  }
  let i = 0
  return {
    at(ms) {
      while (i < legs.length - 1 && legs[i].t1 <= ms) i++
      while (i > 0 && legs[i].t0 > ms) i--
      const l = legs[i]
      const u = l.t1 > l.t0 ? Math.min(1, Math.max(0, (ms - l.t0) / (l.t1 - l.t0))) : 1
      return { floor: l.floor, x: l.from[0] + (l.to[0] - l.from[0]) * u, y: l.from[1] + (l.to[1] - l.from[1]) * u }
    },
  }
}
