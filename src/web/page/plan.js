// The floor plan: the site's image or a drawn outline of the area, rooms and walls; beacons as
// labelled dots with a faint accuracy circle and a short trail; gateways as markers on top, so
// no tag ever hides one. A site without coordinates is drawn as a schematic instead (schematic.js).
import { html, svg } from './svg.js'
import { hash, label, roomColour } from './colours.js'
import { centroid, keepInside, placeLabels, roomAt } from './geometry.js'
import { leader, measure, moveText, placeGatewayNames } from './labels.js'
import { drawSchematic, hasNoPlan } from './schematic.js'

const MARGIN = 1
// Width of a character of the monospace labels, in font sizes: only when the browser cannot measure them.
const CHAR = 0.62
// Beyond this many tags the plan is a crowd, not something to read label by label: the first ones
// (the selected tag first, then by id) are labelled, every tag keeps its dot and tooltip.
const MAX_LABELS = 200
// Labels grow with the plan; on a wide screen that made them large enough to crowd a busy plan.
const MAX_LABEL_PX = 13

/** The labels' font size in metres: 1.3 units, at most MAX_LABEL_PX on screen. */
function labelSize(el, w, h, unit) {
  const r = el.getBoundingClientRect()
  // Pixels per metre: the view box is fitted into the element whole.
  if (!(r.width > 0 && r.height > 0)) return unit * 1.3
  const scale = Math.min(r.width / w, r.height / h)
  const fs = Math.min(unit * 1.3, MAX_LABEL_PX / scale)
  return Number.isFinite(fs) && fs > 0 ? fs : unit * 1.3
}

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
  return {
    minX: Math.min(...xs) - MARGIN,
    minY: Math.min(...ys) - MARGIN,
    maxX: Math.max(...xs) + MARGIN,
    maxY: Math.max(...ys) + MARGIN,
  }
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
  const heard = (b.gateways ?? [])
    .map((g) => ({ g: state.gateways.get(g.gateway), distance: g.distance }))
    .filter(({ g }) => g?.x !== undefined && g.y !== undefined)
  const near = b.room === undefined ? heard[0] : heard.find(({ g }) => g.room === b.room)
  const centre =
    near !== undefined ? [near.g.x, near.g.y] : b.room === undefined ? undefined : roomCentre(state, b.room)
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

/** Draws rooms and walls into `layers`; returns the room names' <text> elements (kept clear of labels). */
function drawRooms(state, unit, layers) {
  const names = []
  const fs = unit * 2.2
  for (const r of state.plan?.rooms ?? []) {
    const colour = roomColour(state, r.name)
    if (r.polygon !== undefined)
      layers.push(
        svg('polygon', {
          points: r.polygon.map((p) => p.join(',')).join(' '),
          class: 'room',
          'data-room': r.name,
          fill: colour,
          stroke: colour,
        }),
      )
    else {
      // A room given only by its gateways: a soft zone around them.
      for (const g of state.gateways.values())
        if (g.room === r.name && g.x !== undefined)
          layers.push(
            svg('circle', {
              cx: g.x,
              cy: g.y,
              r: 3 * Math.max(1, unit * 2),
              class: 'room zone',
              fill: colour,
              stroke: colour,
            }),
          )
    }
  }
  for (const [[x1, y1], [x2, y2]] of state.plan?.walls ?? [])
    layers.push(svg('line', { x1, y1, x2, y2, class: 'wall' }))
  for (const r of state.plan?.rooms ?? []) {
    const colour = roomColour(state, r.name)
    // A polygon's name sits in its top-left corner, clear of the beacons gathered in the middle.
    if (r.polygon !== undefined) {
      const x = Math.min(...r.polygon.map((p) => p[0]))
      const y = Math.min(...r.polygon.map((p) => p[1]))
      const at = { x: x + unit, y: y + unit * 3 }
      names.push(svg('text', { ...at, class: 'room-label corner', 'font-size': fs, fill: colour }, r.name))
    } else {
      const c = roomCentre(state, r.name)
      if (c === undefined) continue
      const at = { x: c[0], y: c[1] - 4.4 * unit }
      names.push(svg('text', { ...at, class: 'room-label', 'font-size': fs, fill: colour }, r.name))
    }
  }
  layers.push(...names)
  return names
}

/** Gateway markers, and for each its square's box and its name's <text> (placed once drawn). */
function drawGateways(state, unit) {
  const marks = []
  const items = []
  const s = unit * 1.6
  const fs = unit * 1.5
  for (const g of state.gateways.values()) {
    if (g.x === undefined || g.y === undefined) continue
    const name = `${g.id}${g.state === 'offline' ? ' (offline)' : ''}`
    const text = svg('text', { x: 0, y: 0, 'font-size': fs }, name)
    marks.push(
      svg(
        'g',
        { class: 'gateway', 'data-id': g.id, 'data-state': g.state, transform: `translate(${g.x} ${g.y})` },
        svg('rect', { x: -s, y: -s, width: 2 * s, height: 2 * s, rx: s * 0.3 }),
        text,
        svg('title', {}, `gateway ${g.id}: ${g.state}`),
      ),
    )
    const estimate = { dx: (-name.length * fs * 0.6) / 2, dy: -fs * 0.8, w: name.length * fs * 0.6, h: fs }
    const square = { x: g.x - s, y: g.y - s, w: 2 * s, h: 2 * s }
    items.push({ g, text, square, key: `gw|${fs}|${g.state === 'offline'}|${name}`, estimate })
  }
  return { marks, items }
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
    layers.push(
      svg('image', {
        href,
        x: e.minX,
        y: e.minY,
        width: w,
        height: h,
        preserveAspectRatio: 'none',
        class: 'plan-image',
      }),
    )
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
  const fs = labelSize(el, w, h, unit)
  const dotR = unit * 0.9
  const labels = []
  const circles = []
  const trails = []
  const dots = []
  placed.forEach(({ b, p, text }, i) => {
    const colour = roomColour(state, p.room)
    const trail = state.trails.get(b.id)
    if (trail !== undefined && trail.length > 1)
      trails.push(svg('polyline', { points: trail.map((q) => q.join(',')).join(' '), class: 'trail', stroke: colour }))
    circles.push(
      svg('circle', {
        cx: p.x,
        cy: p.y,
        r: Math.max(p.r, unit),
        class: `accuracy${p.estimated ? ' estimated' : ''}`,
        'data-for': b.id,
        stroke: colour,
      }),
    )
    const where =
      p.room === b.room
        ? b.room === undefined
          ? ''
          : ` in ${b.room}`
        : ` · tracker's room ${b.room ?? 'none'}, its position in ${p.room ?? 'no room'}`
    const dot = svg(
      'g',
      {
        class: `beacon${state.selected === b.id ? ' selected' : ''}`,
        'data-id': b.id,
        'data-room': b.room ?? '',
        'data-drawn-room': p.room ?? '',
        tabindex: 0,
      },
      svg('circle', { cx: p.x, cy: p.y, r: dotR, class: 'dot', fill: colour }),
      i < MAX_LABELS ? labelText(labels, { p, text, selected: state.selected === b.id, fs }) : '',
      svg('title', {}, `${b.name ?? b.id}${where}`),
    )
    dot.addEventListener('click', () => select(b.id))
    dot.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') select(b.id)
    })
    dots.push(dot)
  })
  const leaders = svg('g', { class: 'leaders' })
  el.replaceChildren(...layers, ...circles, ...trails, leaders, ...dots, ...gateways.marks)
  const dotBoxes = placed.map(({ p }) => ({ x: p.x - dotR, y: p.y - dotR, w: 2 * dotR, h: 2 * dotR }))
  placeTexts(e, unit, { rooms: roomNames, gateways: gateways.items, labels, leaders, dots: dotBoxes, gap: dotR * 1.1 })
  const positioned = [...state.beacons.values()].some((b) => b.position !== undefined)
  legend.replaceChildren(
    html('span', { class: 'key gw-on', text: 'gateway online' }),
    html('span', { class: 'key gw-off', text: 'offline' }),
    html('span', {
      class: 'key dot',
      text: positioned
        ? 'beacon, coloured by the room it is drawn in; circle: accuracy'
        : "beacon beside its room's gateway hearing it best; dashed circle: distance",
    }),
    ...(state.plan?.area === undefined && state.plan?.image === undefined
      ? [html('span', { text: '· outline drawn from the gateways (the site file has no area)' })]
      : []),
  )
}

/** A beacon's label, drawn at the origin until it is measured and placed (placeTexts). */
function labelText(labels, { p, text, selected, fs }) {
  const el = svg('text', { x: 0, y: 0, 'font-size': fs, class: 'beacon-label' }, text)
  const estimate = { dx: 0, dy: -fs * 0.82, w: text.length * fs * CHAR, h: fs }
  labels.push({ p, el, key: `${fs}|${selected}|${text}`, estimate })
  return el
}

/**
 * Once everything is drawn (so texts can be measured): gateway names inside the plan, then each
 * beacon label where it overlaps no other label and no gateway and stays inside the plan,
 * avoiding dots and room names; a label set further out gets a leader line, one with no room is
 * left out (its dot keeps its tooltip).
 */
function placeTexts(e, unit, { rooms, gateways, labels, leaders, dots, gap }) {
  const bounds = { x: e.minX, y: e.minY, w: e.maxX - e.minX, h: e.maxY - e.minY }
  // The texts' outline (paint-order stroke) reaches half its width beyond the glyphs.
  const pad = unit * 0.25
  const names = placeGatewayNames(gateways, bounds, pad)
  const roomBoxes = rooms.map((t) => {
    const fs = Number(t.getAttribute('font-size'))
    const wide = (t.textContent ?? '').length * fs * 0.6
    const dx = t.classList.contains('corner') ? 0 : -wide / 2
    const b = measure(t, undefined, { dx, dy: -fs * 0.8, w: wide, h: fs })
    const x = Number(t.getAttribute('x'))
    const y = Number(t.getAttribute('y'))
    return { x: x + b.dx - pad, y: y + b.dy - pad, w: b.w + 2 * pad, h: b.h + 2 * pad }
  })
  const measured = labels.map((l) => ({ ...l, m: measure(l.el, l.key, l.estimate) }))
  const boxes = placeLabels(
    measured.map(({ p, m }) => ({ x: p.x, y: p.y, w: m.w + 2 * pad, h: m.h + 2 * pad })),
    { hard: [...gateways.map((g) => g.square), ...names], soft: [...dots, ...roomBoxes] },
    gap,
    bounds,
  )
  measured.forEach(({ p, el, m }, i) => {
    const box = boxes[i]
    if (box === undefined) return el.remove()
    moveText(el, m, box, pad)
    if (box.ring > 0) leaders.append(leader(p, box))
  })
}

function tokenQuery() {
  const token = new URLSearchParams(location.hash.slice(1)).get('token')
  return token === null ? '' : `?token=${encodeURIComponent(token)}`
}
