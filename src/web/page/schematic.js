// A site file without coordinates (the README's simple form: rooms listing their gateways, no
// x/y, area or polygons) has no plan to draw. Rather than an empty box, the rooms are drawn as
// boxes side by side, each with its gateways and the tags the tracker puts in it, and the legend
// says plainly that there is no plan.
import { html, svg } from './svg.js'
import { label, roomColour } from './colours.js'

const BOX = 26
const GAP = 1.5
const PAD = 1
const HEAD = 3
const GW_ROW = 1.9
const TAG_ROW = 1.7
const CHAR = 0.62
// A room with hundreds of tags stays one screen tall; the room list beside it has them all.
const MAX_TAGS = 40
const NO_ROOM = '(no room)'

/** Whether the site gives nothing to draw a plan from. */
export function hasNoPlan(state) {
  const p = state.plan
  if (p?.image !== undefined || p?.area !== undefined || (p?.walls ?? []).length > 0) return false
  if ((p?.rooms ?? []).some((r) => r.polygon !== undefined)) return false
  for (const g of state.gateways.values()) if (g.x !== undefined && g.y !== undefined) return false
  for (const b of state.beacons.values()) if (b.position !== undefined) return false
  return true
}

/** Room name → its gateways and beacons, in the site's order, then rooms only seen, then none. */
function group(state) {
  const rooms = new Map((state.plan?.rooms ?? []).map((r) => [r.name, { gateways: [], beacons: [] }]))
  const of = (name) =>
    rooms.get(name ?? NO_ROOM) ?? rooms.set(name ?? NO_ROOM, { gateways: [], beacons: [] }).get(name ?? NO_ROOM)
  for (const g of state.gateways.values()) of(g.room).gateways.push(g)
  for (const b of state.beacons.values()) of(b.room).beacons.push(b)
  for (const r of rooms.values()) r.beacons.sort((a, b) => label(a).localeCompare(label(b)))
  return rooms
}

function drawBox(state, select, name, room, x, y, height) {
  const colour = roomColour(state, name === NO_ROOM ? undefined : name)
  const parts = [
    svg('rect', { x, y, width: BOX, height, rx: 0.6, class: 'room', fill: colour, stroke: colour }),
    svg('text', { x: x + PAD, y: y + 2.1, 'font-size': 1.5, class: 'room-label corner', fill: colour }, name),
  ]
  let yy = y + HEAD
  for (const g of room.gateways) {
    const cy = yy + GW_ROW / 2
    parts.push(
      svg(
        'g',
        { class: 'gateway', 'data-id': g.id, 'data-state': g.state, transform: `translate(${x + PAD + 0.6} ${cy})` },
        svg('rect', { x: -0.6, y: -0.6, width: 1.2, height: 1.2, rx: 0.2 }),
        svg(
          'text',
          { x: 1.2, y: 0.4, 'font-size': 1.1, class: 'side' },
          `${g.id}${g.state === 'offline' ? ' (offline)' : ''}`,
        ),
        svg('title', {}, `gateway ${g.id}: ${g.state}`),
      ),
    )
    yy += GW_ROW
  }
  const shown = room.beacons.slice(0, MAX_TAGS)
  const cols = columns(shown)
  const colW = (BOX - 2 * PAD) / cols
  shown.forEach((b, i) => {
    const bx = x + PAD + (i % cols) * colW
    const by = yy + Math.floor(i / cols) * TAG_ROW + TAG_ROW / 2
    const dot = svg(
      'g',
      {
        class: `beacon${state.selected === b.id ? ' selected' : ''}`,
        'data-id': b.id,
        'data-room': b.room ?? '',
        'data-drawn-room': b.room ?? '',
        tabindex: 0,
      },
      svg('circle', { cx: bx + 0.6, cy: by, r: 0.5, class: 'dot', fill: colour }),
      svg('text', { x: bx + 1.5, y: by + 0.35, 'font-size': 1, class: 'beacon-label' }, label(b)),
      svg('title', {}, `${b.name ?? b.id}${b.room === undefined ? '' : ` in ${b.room}`}`),
    )
    dot.addEventListener('click', () => select(b.id))
    dot.addEventListener('keydown', (ev) => {
      if (ev.key === 'Enter') select(b.id)
    })
    parts.push(dot)
  })
  const more = room.beacons.length - shown.length
  const last = yy + Math.ceil(shown.length / cols) * TAG_ROW
  if (room.beacons.length === 0)
    parts.push(svg('text', { x: x + PAD, y: yy + 1.2, 'font-size': 1, class: 'muted' }, 'no tags'))
  else if (more > 0)
    parts.push(
      svg('text', { x: x + PAD, y: last + 1.2, 'font-size': 1, class: 'muted' }, `+${more} more: see the room list`),
    )
  return svg('g', { class: 'room-box', 'data-room': name }, ...parts)
}

// Two columns of tags when their labels fit in half a box.
function columns(beacons) {
  const longest = Math.max(0, ...beacons.map((b) => label(b).length))
  return longest * CHAR + 1.8 <= (BOX - 2 * PAD) / 2 ? 2 : 1
}

function heightOf(room) {
  const n = Math.min(room.beacons.length, MAX_TAGS)
  const rows =
    n === 0 ? 1 : Math.ceil(n / columns(room.beacons.slice(0, MAX_TAGS))) + (room.beacons.length > MAX_TAGS ? 1 : 0)
  return HEAD + room.gateways.length * GW_ROW + rows * TAG_ROW + PAD
}

/** Draws the rooms as boxes (as many side by side as the pane's width allows) and says why. */
export function drawSchematic(el, legend, state, select) {
  const rooms = [...group(state)]
  // One box per ~300 px of width, so text stays a readable size on a phone and on a desk.
  const cols = Math.max(1, Math.min(rooms.length, Math.floor((el.clientWidth || 600) / 300)))
  const boxes = []
  let y = 0
  for (let i = 0; i < rooms.length; i += cols) {
    const row = rooms.slice(i, i + cols)
    const height = Math.max(...row.map(([, r]) => heightOf(r)))
    row.forEach(([name, r], j) => boxes.push(drawBox(state, select, name, r, j * (BOX + GAP), y, height)))
    y += height + GAP
  }
  const width = Math.max(1, Math.min(cols, rooms.length)) * (BOX + GAP) - GAP
  el.classList.add('schematic')
  el.setAttribute('viewBox', `-0.2 -0.2 ${width + 0.4} ${Math.max(1, y - GAP) + 0.4}`)
  el.style.setProperty('--unit', '1')
  el.replaceChildren(...boxes)
  legend.replaceChildren(
    html('p', {
      class: 'no-plan',
      // With the editor there, the way to a plan is its Plan part, not a file to write.
      text: state.editable
        ? 'No floor plan yet. Each room is a box with its gateways and the tags the tracker puts in it. ' +
          'Press Edit: load a picture of the floor under Plan, then draw the rooms and place the gateways on it.'
        : 'No floor plan: no site file, or one without coordinates (gateway x/y, area, room polygons). ' +
          'Each room is a box with its gateways and the tags the tracker puts in it. ' +
          'Give the gateways x/y and the site an area to see a plan (docs/fleet.md).',
    }),
    html('span', { class: 'key gw-on', text: 'gateway online' }),
    html('span', { class: 'key gw-off', text: 'offline' }),
  )
}
