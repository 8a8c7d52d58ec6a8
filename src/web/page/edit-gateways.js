// Gateways: the ones the fleet hears (online first) and the site's; drag one from the list onto
// the plan (or tap it, then tap the plan) to place it; drag a placed one to move it; remove one.
// A gateway's room is the room whose polygon holds it (the site model decides that from x, y).
import { html, svg } from './svg.js'
import { inside } from './geometry.js'
import { cm, gatewayGroup, problemsOf } from './edit-site.js'

const HIT = 16
const ORDER = { online: 0, unknown: 1, offline: 2 }

/** Heard and declared gateways, online first, then by id. */
function gatewaysListed(ed) {
  const view = ed.view(ed.state)
  return [...view.gateways.values()].sort(
    (a, b) => (ORDER[a.state] ?? 1) - (ORDER[b.state] ?? 1) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  )
}

function place(ed, id, p) {
  ed.ui.gateways.armed = undefined
  return ed.change((site) => {
    const group = gatewayGroup(site)
    const g = typeof group[id] === 'object' && group[id] !== null ? group[id] : {}
    g.x = cm(p.x)
    g.y = cm(p.y)
    if (ed.floor !== undefined) g.floor = ed.floor
    // A room drawn around the new place decides its room: an old explicit one would contradict it.
    const drawn = site.rooms.some((r) => Array.isArray(r.polygon) && ed.onFloor(r.floor) && inside(r.polygon, p.x, p.y))
    if (drawn) delete g.room
    group[id] = g
  })
}

function remove(ed, id) {
  return ed.change((site) => {
    delete gatewayGroup(site)[id]
    for (const r of site.rooms) if (Array.isArray(r.gateways)) r.gateways = r.gateways.filter((g) => g !== id)
  })
}

/** Carries a gateway from the list to the plan with the pointer; a tap without moving arms it. */
function carry(ed, id, e) {
  const item = e.currentTarget
  const start = { x: e.clientX, y: e.clientY }
  let ghost
  item.setPointerCapture?.(e.pointerId)
  // The list is not built again under the pointer while a gateway is carried.
  ed.holdPanel = true
  const move = (ev) => {
    if (ghost === undefined && Math.hypot(ev.clientX - start.x, ev.clientY - start.y) < 6) return
    ghost ??= document.body.appendChild(html('div', { class: 'edit-ghost', text: id }))
    ghost.style.left = `${ev.clientX}px`
    ghost.style.top = `${ev.clientY}px`
  }
  const end = (ev) => {
    item.removeEventListener('pointermove', move)
    item.removeEventListener('pointerup', end)
    item.removeEventListener('pointercancel', end)
    ed.holdPanel = false
    const carried = ghost !== undefined
    ghost?.remove()
    if (!carried) {
      if (ev.type !== 'pointerup') return
      ed.ui.gateways.armed = ed.ui.gateways.armed === id ? undefined : id
      return ed.redraw()
    }
    const r = ed.page.plan.getBoundingClientRect()
    const over = ev.clientX >= r.left && ev.clientX <= r.right && ev.clientY >= r.top && ev.clientY <= r.bottom
    const p = ed.toPlan(ev)
    if (ev.type === 'pointerup' && over && p !== undefined) void place(ed, id, p)
  }
  item.addEventListener('pointermove', move)
  item.addEventListener('pointerup', end)
  item.addEventListener('pointercancel', end)
}

function item(ed, g) {
  const placed = g.x !== undefined
  const armed = ed.ui.gateways.armed === g.id
  const li = html('li', { 'data-gateway': g.id, 'data-state': g.state, class: armed ? 'selected' : undefined })
  const handle = html('button', {
    type: 'button',
    class: 'edit-item edit-carry',
    'aria-label': `place gateway ${g.id}: drag it onto the plan, or tap it and then the plan`,
  })
  handle.append(html('span', { class: 'gw-state', text: g.state }), ' ', html('b', { text: g.id }))
  handle.append(' ', html('span', { class: 'muted', text: placed ? `${g.x}, ${g.y} m` : 'not placed' }))
  handle.addEventListener('pointerdown', (e) => carry(ed, g.id, e))
  li.append(handle)
  if (g.site === true) {
    const rm = html('button', {
      type: 'button',
      class: 'danger',
      text: 'Remove',
      'aria-label': `remove ${g.id} from the site`,
    })
    rm.addEventListener('click', () => void remove(ed, g.id))
    li.append(rm)
  }
  if (armed) li.append(html('p', { class: 'hint', text: `Now tap the plan where ${g.id} hangs.` }))
  for (const p of problemsOf(ed.problems, 'gateway', g.id))
    li.append(html('p', { class: `problem ${p.severity}`, text: p.message }))
  return li
}

/** The Gateways part of the editor. */
export const gatewaysTool = {
  busy: (ed) => ed.ui.gateways.drag !== undefined || ed.ui.gateways.armed !== undefined,

  panel(ed) {
    const box = html('div', { class: 'edit-part', 'data-part': 'gateways' })
    box.append(
      html('p', { class: 'hint', text: 'Drag a gateway onto the plan where it hangs (or tap it, then the plan).' }),
    )
    const list = gatewaysListed(ed).filter((g) => g.x === undefined || ed.onFloor(g.floor))
    box.append(html('ul', { class: 'edit-list', id: 'edit-gateways' }, ...list.map((g) => item(ed, g))))
    if (list.length === 0)
      box.append(html('p', { class: 'muted', text: 'No gateway is heard yet: start one (docs/fleet.md).' }))
    return box
  },

  listKey: (ed) =>
    gatewaysListed(ed)
      .map((g) => `${g.id}:${g.state}`)
      .join(','),

  down(ed, p) {
    const ui = ed.ui.gateways
    if (ui.armed !== undefined) return true
    const near = ed.metres(HIT)
    const hit = [...ed.view(ed.state).gateways.values()].find(
      (g) => g.x !== undefined && ed.onFloor(g.floor) && Math.hypot(g.x - p.x, g.y - p.y) <= near,
    )
    if (hit === undefined) return false
    ui.drag = { id: hit.id, x: hit.x, y: hit.y, moved: false }
    return true
  },

  move(ed, p) {
    const d = ed.ui.gateways.drag
    if (d === undefined) return
    Object.assign(d, { x: cm(p.x), y: cm(p.y), moved: true })
    ed.page.redraw()
  },

  up(ed, p) {
    const ui = ed.ui.gateways
    if (ui.armed !== undefined) return void place(ed, ui.armed, p)
    const d = ui.drag
    ui.drag = undefined
    if (d?.moved === true) void place(ed, d.id, d)
    else ed.redraw()
  },

  cancel(ed) {
    ed.ui.gateways.drag = undefined
    ed.redraw()
  },

  key(ed, e) {
    if (e.key === 'Escape' && ed.ui.gateways.armed !== undefined) {
      ed.ui.gateways.armed = undefined
      ed.redraw()
    }
  },

  overlay(ed, layer) {
    const d = ed.ui.gateways.drag
    if (d !== undefined) layer.append(svg('circle', { cx: d.x, cy: d.y, r: ed.metres(HIT), class: 'edit-selected' }))
  },
}
