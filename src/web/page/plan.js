// The floor plan: the site's image or a drawn outline of the area, rooms and walls; beacons as
// labelled dots with a faint accuracy circle and a short trail; gateways as markers on top, so
// no tag ever hides one. A site without coordinates is drawn as a schematic instead (schematic.js).
import { html, svg } from './svg.js'
import { hash, label, roomColour } from './colours.js'
import { centroid, keepInside, placeLabels, roomAt } from './geometry.js'
import { drawSchematic, hasNoPlan } from './schematic.js'

const MARGIN = 1
// Width of a character of the monospace labels, in font sizes: labels are placed before they are drawn.
const CHAR = 0.62
// Beyond this many tags the plan is a crowd, not something to read label by label: the first ones
// (the selected tag first, then by id) are labelled, every tag keeps its dot and tooltip.
const MAX_LABELS = 200

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
  for (const w of state.plan?.walls ?? []) for (const [x, y] of w) add(x, y)
  if (xs.length === 0) return { minX: 0, minY: 0, maxX: 10, maxY: 10 }
  return { minX: Math.min(...xs) - MARGIN, minY: Math.min(...ys) - MARGIN, maxX: Math.max(...xs) + MARGIN, maxY: Math.max(...ys) + MARGIN }
}

/** Where a room's beacons gather without a position: its polygon's centre, else its gateways'. */
function roomCentre(state, room) {
  const r = (state.plan?.rooms ?? []).find((x) => x.name === room)
  if (r?.polygon !== undefined) return centroid(r.polygon)
  const gs = [...state.gateways.values()].filter((g) => g.room === room && g.x !== undefined && g.y !== undefined)
  return gs.length === 0 ? undefined : centroid(gs.map((g) => [g.x, g.y]))
}

/**
 * Where a beacon is drawn, and the room of that place (its colour). With a position: there, in
 * the room whose polygon holds it (which may not be the tracker's room, chosen from RSSI with
 * hysteresis). Without: on a small circle beside the gateway of its room that hears it best
 * (angle from its id, so tags at one gateway do not stack), kept inside the room's polygon.
 * Either way a dot's colour is the room it is drawn in: colour and place never disagree.
 */
function placeOf(state, b, span) {
  const rooms = state.plan?.rooms ?? []
  const polygons = rooms.some((r) => r.polygon !== undefined)
  const roomOf = (x, y) => (polygons ? roomAt(rooms, x, y) : b.room)
  if (b.position !== undefined) {
    const { x, y, accuracy } = b.position
    return { x, y, r: accuracy, estimated: false, room: roomOf(x, y) }
  }
  const heard = (b.gateways ?? []).map((g) => ({ g: state.gateways.get(g.gateway), distance: g.distance })).filter(({ g }) => g?.x !== undefined && g.y !== undefined)
  const near = b.room === undefined ? heard[0] : heard.find(({ g }) => g.room === b.room)
  const centre = near !== undefined ? [near.g.x, near.g.y] : b.room === undefined ? undefined : roomCentre(state, b.room)
  if (centre === undefined) return undefined
  const angle = ((hash(b.id) % 360) * Math.PI) / 180
  const ring = 0.8 + (hash(`${b.id}r`) % 100) / 100
  let x = centre[0] + ring * Math.cos(angle)
  let y = centre[1] + ring * Math.sin(angle)
  const polygon = rooms.find((r) => r.name === b.room)?.polygon
  if (polygon !== undefined) [x, y] = keepInside(polygon, x, y)
  // A distance from RSSI alone is rough, and far out meaningless: capped so one weakly heard tag
  // does not cover the plan.
  const distance = Math.min(near?.distance ?? 1.5, span * 0.12)
  return { x, y, r: distance, estimated: true, room: roomOf(x, y) }
}

/** Draws rooms and walls into `layers`; returns the boxes of the room names (kept clear of labels). */
function drawRooms(state, unit, layers) {
  const boxes = []
  const fs = unit * 2.2
  for (const r of state.plan?.rooms ?? []) {
    const colour = roomColour(state, r.name)
    if (r.polygon !== undefined) layers.push(svg('polygon', { points: r.polygon.map((p) => p.join(',')).join(' '), class: 'room', 'data-room': r.name, fill: colour, stroke: colour }))
    else {
      // A room given only by its gateways: a soft zone around them.
      for (const g of state.gateways.values()) if (g.room === r.name && g.x !== undefined) layers.push(svg('circle', { cx: g.x, cy: g.y, r: 3 * Math.max(1, unit * 2), class: 'room zone', fill: colour, stroke: colour }))
    }
  }
  for (const [[x1, y1], [x2, y2]] of state.plan?.walls ?? []) layers.push(svg('line', { x1, y1, x2, y2, class: 'wall' }))
  for (const r of state.plan?.rooms ?? []) {
    const colour = roomColour(state, r.name)
    // A polygon's name sits in its top-left corner, clear of the beacons gathered in the middle.
    if (r.polygon !== undefined) {
      const x = Math.min(...r.polygon.map((p) => p[0]))
      const y = Math.min(...r.polygon.map((p) => p[1]))
      layers.push(svg('text', { x: x + unit, y: y + unit * 3, class: 'room-label corner', 'font-size': fs, fill: colour }, r.name))
      boxes.push({ x: x + unit, y: y + unit * 3 - fs * 0.8, w: r.name.length * fs * 0.6, h: fs })
    } else {
      const c = roomCentre(state, r.name)
      if (c === undefined) continue
      layers.push(svg('text', { x: c[0], y: c[1] - 4.4 * unit, class: 'room-label', 'font-size': fs, fill: colour }, r.name))
      boxes.push({ x: c[0] - (r.name.length * fs * 0.3), y: c[1] - 4.4 * unit - fs * 0.8, w: r.name.length * fs * 0.6, h: fs })
    }
  }
  return boxes
}

/** Gateway markers, and the boxes their squares and names cover (kept clear of labels). */
function drawGateways(state, unit) {
  const marks = []
  const boxes = []
  const s = unit * 1.6
  const fs = unit * 1.5
  for (const g of state.gateways.values()) {
    if (g.x === undefined || g.y === undefined) continue
    const name = `${g.id}${g.state === 'offline' ? ' (offline)' : ''}`
    marks.push(
      svg('g', { class: 'gateway', 'data-id': g.id, 'data-state': g.state, transform: `translate(${g.x} ${g.y})` },
        svg('rect', { x: -s, y: -s, width: 2 * s, height: 2 * s, rx: s * 0.3 }),
        svg('text', { y: s * 2.4, 'font-size': fs }, name),
        svg('title', {}, `gateway ${g.id}: ${g.state}`)),
    )
    boxes.push({ x: g.x - s, y: g.y - s, w: 2 * s, h: 2 * s })
    const w = name.length * fs * 0.6
    boxes.push({ x: g.x - w / 2, y: g.y + s * 2.4 - fs, w, h: fs * 1.2 })
  }
  return { marks, boxes }
}

/** Redraws the plan and its legend. */
export function drawPlan(el, legend, state, select) {
  if (hasNoPlan(state)) return drawSchematic(el, legend, state, select)
  el.classList.remove('schematic')
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
  const roomNames = drawRooms(state, unit, layers)
  const gateways = drawGateways(state, unit)
  // A stable order, so labels keep their side from one update to the next.
  const placed = [...state.beacons.values()]
    .sort((a, b) => (a.id === state.selected ? -1 : b.id === state.selected ? 1 : a.id < b.id ? -1 : 1))
    .map((b) => ({ b, p: placeOf(state, b, Math.max(w, h)), text: label(b) }))
    .filter(({ p }) => p !== undefined)
  const fs = unit * 1.3
  const dotR = unit * 0.9
  const boxes = placeLabels(
    placed.slice(0, MAX_LABELS).map(({ p, text }) => ({ x: p.x, y: p.y, w: text.length * fs * CHAR, h: fs })),
    [...gateways.boxes, ...roomNames, ...placed.map(({ p }) => ({ x: p.x - dotR, y: p.y - dotR, w: 2 * dotR, h: 2 * dotR }))],
    dotR * 1.1,
    { x: e.minX, y: e.minY, w, h },
  )
  const circles = []
  const trails = []
  const dots = []
  placed.forEach(({ b, p, text }, i) => {
    const colour = roomColour(state, p.room)
    const trail = state.trails.get(b.id)
    if (trail !== undefined && trail.length > 1) trails.push(svg('polyline', { points: trail.map((q) => q.join(',')).join(' '), class: 'trail', stroke: colour }))
    circles.push(svg('circle', { cx: p.x, cy: p.y, r: Math.max(p.r, unit), class: `accuracy${p.estimated ? ' estimated' : ''}`, 'data-for': b.id, stroke: colour }))
    const box = boxes[i]
    const where = p.room === b.room ? (b.room === undefined ? '' : ` in ${b.room}`) : ` · tracker's room ${b.room ?? 'none'}, its position in ${p.room ?? 'no room'}`
    const dot = svg('g', { class: `beacon${state.selected === b.id ? ' selected' : ''}`, 'data-id': b.id, 'data-room': b.room ?? '', 'data-drawn-room': p.room ?? '', tabindex: 0 },
      svg('circle', { cx: p.x, cy: p.y, r: dotR, class: 'dot', fill: colour }),
      box === undefined ? '' : svg('text', { x: box.x, y: box.y + fs * 0.82, 'font-size': fs, class: 'beacon-label' }, text),
      svg('title', {}, `${b.name ?? b.id}${where}`))
    dot.addEventListener('click', () => select(b.id))
    dot.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') select(b.id)
    })
    dots.push(dot)
  })
  el.replaceChildren(...layers, ...circles, ...trails, ...dots, ...gateways.marks)
  const positioned = [...state.beacons.values()].some((b) => b.position !== undefined)
  legend.replaceChildren(
    html('span', { class: 'key gw-on', text: 'gateway online' }),
    html('span', { class: 'key gw-off', text: 'offline' }),
    html('span', { class: 'key dot', text: positioned ? 'beacon, coloured by the room it is drawn in; circle: accuracy' : 'beacon beside its room\'s gateway hearing it best; dashed circle: distance' }),
    ...(state.plan?.area === undefined && state.plan?.image === undefined ? [html('span', { text: '· outline drawn from the gateways (the site file has no area)' })] : []),
  )
}

function tokenQuery() {
  const token = new URLSearchParams(location.hash.slice(1)).get('token')
  return token === null ? '' : `?token=${encodeURIComponent(token)}`
}
