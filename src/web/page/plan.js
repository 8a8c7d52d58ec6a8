// The floor plan: the site's image or a drawn outline of the area and rooms, gateways as
// markers, beacons as dots with an accuracy circle and a short trail, coloured by room.
import { html, svg } from './svg.js'
import { hash, label, roomColour } from './colours.js'

const MARGIN = 1

/** The plan's extent in metres: the site's area, else what its rooms and gateways cover. */
function extent(state) {
  const area = state.plan?.area
  if (area !== undefined) return area
  const xs = []
  const ys = []
  const add = (x, y) => {
    xs.push(x)
    ys.push(y)
  }
  for (const g of state.gateways.values()) if (g.x !== undefined && g.y !== undefined) add(g.x, g.y)
  for (const r of state.plan?.rooms ?? []) for (const [x, y] of r.polygon ?? []) add(x, y)
  if (xs.length === 0) return { minX: 0, minY: 0, maxX: 10, maxY: 10 }
  return { minX: Math.min(...xs) - MARGIN, minY: Math.min(...ys) - MARGIN, maxX: Math.max(...xs) + MARGIN, maxY: Math.max(...ys) + MARGIN }
}

function centroid(points) {
  const n = points.length
  return [points.reduce((s, p) => s + p[0], 0) / n, points.reduce((s, p) => s + p[1], 0) / n]
}

/** Where a room's name goes and where its beacons gather without a position. */
function roomCentre(state, room) {
  const r = (state.plan?.rooms ?? []).find((x) => x.name === room)
  if (r?.polygon !== undefined) return centroid(r.polygon)
  const gs = [...state.gateways.values()].filter((g) => g.room === room && g.x !== undefined)
  return gs.length === 0 ? undefined : centroid(gs.map((g) => [g.x, g.y]))
}

/**
 * A beacon without a position stands near the gateway that hears it best, on a small circle
 * whose angle comes from its id, so beacons at one gateway do not hide each other.
 */
function placeOf(state, b, span) {
  if (b.position !== undefined) return { x: b.position.x, y: b.position.y, r: b.position.accuracy, estimated: false }
  const best = b.gateways?.map((g) => state.gateways.get(g.gateway)).find((g) => g?.x !== undefined)
  const centre = best !== undefined ? [best.x, best.y] : roomCentre(state, b.room)
  if (centre === undefined) return undefined
  const angle = ((hash(b.id) % 360) * Math.PI) / 180
  const ring = 0.8 + (hash(`${b.id}r`) % 100) / 100
  // A distance from RSSI alone is rough, and far out meaningless: capped so one weakly heard tag
  // does not wash the whole plan in its colour.
  const distance = Math.min(b.gateways?.[0]?.distance ?? 1.5, span * 0.12)
  return { x: centre[0] + ring * Math.cos(angle), y: centre[1] + ring * Math.sin(angle), r: distance, estimated: true }
}

/** Redraws the plan and its legend. */
export function drawPlan(el, legend, state, select) {
  const e = extent(state)
  const w = e.maxX - e.minX
  const h = e.maxY - e.minY
  const unit = Math.max(w, h) / 60
  el.setAttribute('viewBox', `${e.minX} ${e.minY} ${w} ${h}`)
  el.style.setProperty('--unit', String(unit))
  const layers = []
  if (state.plan?.image !== undefined) {
    const href = state.plan.image.startsWith('/') ? `${state.plan.image.slice(1)}${tokenQuery()}` : state.plan.image
    layers.push(svg('image', { href, x: e.minX, y: e.minY, width: w, height: h, preserveAspectRatio: 'none', class: 'plan-image' }))
  } else {
    layers.push(svg('rect', { x: e.minX, y: e.minY, width: w, height: h, class: 'area' }))
  }
  for (const r of state.plan?.rooms ?? []) {
    const colour = roomColour(state, r.name)
    if (r.polygon !== undefined) layers.push(svg('polygon', { points: r.polygon.map((p) => p.join(',')).join(' '), class: 'room', fill: colour, stroke: colour }))
    else {
      // A room given only by its gateways: a soft zone around them.
      for (const g of state.gateways.values()) if (g.room === r.name && g.x !== undefined) layers.push(svg('circle', { cx: g.x, cy: g.y, r: 3 * Math.max(1, unit * 2), class: 'room zone', fill: colour, stroke: colour }))
    }
    // A polygon's name sits in its top-left corner, clear of the beacons gathered in the middle.
    if (r.polygon !== undefined) {
      const x = Math.min(...r.polygon.map((p) => p[0]))
      const y = Math.min(...r.polygon.map((p) => p[1]))
      layers.push(svg('text', { x: x + unit, y: y + unit * 3, class: 'room-label corner', 'font-size': unit * 2.2, fill: colour }, r.name))
    } else {
      const c = roomCentre(state, r.name)
      if (c !== undefined) layers.push(svg('text', { x: c[0], y: c[1] - 4.4 * unit, class: 'room-label', 'font-size': unit * 2.2, fill: colour }, r.name))
    }
  }
  for (const g of state.gateways.values()) {
    if (g.x === undefined || g.y === undefined) continue
    const s = unit * 1.6
    layers.push(
      svg('g', { class: 'gateway', 'data-id': g.id, 'data-state': g.state, transform: `translate(${g.x} ${g.y})` },
        svg('rect', { x: -s, y: -s, width: 2 * s, height: 2 * s, rx: s * 0.3 }),
        svg('text', { y: s * 2.4, 'font-size': unit * 1.5 }, `${g.id}${g.state === 'offline' ? ' (offline)' : ''}`),
        svg('title', {}, `gateway ${g.id}: ${g.state}`)),
    )
  }
  for (const b of state.beacons.values()) {
    const p = placeOf(state, b, Math.max(w, h))
    if (p === undefined) continue
    const colour = roomColour(state, b.room)
    const trail = state.trails.get(b.id)
    if (trail !== undefined && trail.length > 1) layers.push(svg('polyline', { points: trail.map((q) => q.join(',')).join(' '), class: 'trail', stroke: colour }))
    const dot = svg('g', { class: `beacon${state.selected === b.id ? ' selected' : ''}`, 'data-id': b.id, 'data-room': b.room ?? '', tabindex: 0 },
      svg('circle', { cx: p.x, cy: p.y, r: Math.max(p.r, unit), class: `accuracy${p.estimated ? ' estimated' : ''}`, fill: colour, stroke: colour }),
      svg('circle', { cx: p.x, cy: p.y, r: unit * 0.9, class: 'dot', fill: colour }),
      svg('title', {}, `${label(b)}${b.room === undefined ? '' : ` in ${b.room}`}`))
    dot.addEventListener('click', () => select(b.id))
    dot.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') select(b.id)
    })
    layers.push(dot)
  }
  el.replaceChildren(...layers)
  const positioned = [...state.beacons.values()].some((b) => b.position !== undefined)
  legend.replaceChildren(
    html('span', { class: 'key gw-on', text: 'gateway online' }),
    html('span', { class: 'key gw-off', text: 'offline' }),
    html('span', { class: 'key dot', text: positioned ? 'beacon, circle: accuracy' : 'beacon beside the gateway hearing it best, dashed circle: distance' }),
    ...(state.plan?.area === undefined && state.plan?.image === undefined ? [html('span', { text: '· outline drawn from the gateways (the site file has no area)' })] : []),
  )
}

function tokenQuery() {
  const token = new URLSearchParams(location.hash.slice(1)).get('token')
  return token === null ? '' : `?token=${encodeURIComponent(token)}`
}
