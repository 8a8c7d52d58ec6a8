// Floors: a site with `floors` is drawn one floor at a time. The switch above the plan picks the
// floor; the plan gets only that floor's rooms, walls, gateways, image and beacons, and the
// beacons on other floors are listed under the switch ("on First floor: Anna, Bob"), each floor
// a button that switches to it. A one-plane site (no `floors`) is drawn whole and shows no switch.
import { html } from './svg.js'
import { label } from './colours.js'

// Names listed per other floor at most; the rest are counted, so a crowded floor stays one line.
const NAMED = 12

/** The site's floors, or [] on a one-plane site. */
export function floorsOf(state) {
  return state.plan?.floors ?? []
}

/**
 * The floor a beacon is on: its own (the tracker's), else its room's; undefined when neither is
 * known (drawn on whichever floor is shown, as on a one-plane site).
 */
function floorOfBeacon(state, b) {
  if (b.floor !== undefined) return b.floor
  return (state.plan?.rooms ?? []).find((r) => r.name === b.room)?.floor
}

/** The floor to show first: where most present beacons are, else the first floor. */
export function defaultFloor(state) {
  const floors = floorsOf(state)
  if (floors.length === 0) return undefined
  const count = new Map(floors.map((f) => [f.id, 0]))
  for (const b of state.beacons.values()) {
    const f = floorOfBeacon(state, b)
    if (count.has(f)) count.set(f, count.get(f) + 1)
  }
  let best = floors[0].id
  for (const f of floors) if (count.get(f.id) > count.get(best)) best = f.id
  return best
}

/** What the plan draws for one floor: the state with everything on other floors left out. */
export function onFloor(state, floor) {
  if (floor === undefined || floorsOf(state).length === 0) return state
  // Something without a floor (a room of no floor, a wall of every floor) is on each floor.
  const here = (f) => f === undefined || f === null || f === floor
  const plan = state.plan
  const walls = plan.walls?.filter((_, i) => here(plan.wallFloors?.[i]))
  const image = floorsOf(state).find((f) => f.id === floor)?.image ?? plan.image
  const only = { ...plan, rooms: plan.rooms.filter((r) => here(r.floor)), walls }
  if (image === undefined) delete only.image
  else only.image = image
  return {
    ...state,
    plan: only,
    gateways: new Map([...state.gateways].filter(([, g]) => here(g.floor))),
    beacons: new Map([...state.beacons].filter(([, b]) => here(floorOfBeacon(state, b)))),
  }
}

/** Redraws the switch and the list of beacons on other floors; `choose(id)` switches. */
export function drawFloors(nav, elsewhere, state, floor, choose) {
  const floors = floorsOf(state)
  nav.hidden = floors.length === 0
  elsewhere.hidden = true
  if (floors.length === 0) return
  nav.replaceChildren(
    ...floors.map((f) => {
      const b = html('button', { type: 'button', 'data-floor': f.id, 'aria-pressed': String(f.id === floor) })
      b.textContent = f.name
      b.addEventListener('click', () => choose(f.id))
      return b
    }),
  )
  const away = new Map()
  for (const b of state.beacons.values()) {
    const f = floorOfBeacon(state, b)
    if (f === undefined || f === floor) continue
    away.set(f, [...(away.get(f) ?? []), b])
  }
  const items = []
  for (const f of floors) {
    const list = away.get(f.id)
    if (list === undefined) continue
    const names = list.map(label).sort((a, b) => a.localeCompare(b))
    const more = names.length > NAMED ? `, … (${names.length} in all)` : ''
    const go = html('button', { type: 'button', class: 'floor-link', 'data-floor': f.id })
    go.textContent = `on ${f.name}: ${names.slice(0, NAMED).join(', ')}${more}`
    go.addEventListener('click', () => choose(f.id))
    items.push(html('li', { 'data-floor': f.id }, go))
  }
  elsewhere.replaceChildren(...items)
  elsewhere.hidden = items.length === 0
}
