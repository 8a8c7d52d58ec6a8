// Rooms: draw a polygon by clicking or tapping its corners (Enter, "Close" or the first corner
// closes it; Escape cancels), name it; select a room to drag its corners, delete the selected
// corner (Delete), rename it, delete it, or teach it with a tag (POST /api/teach).
import { html, svg } from './svg.js'
import { inside } from './geometry.js'
import { teachRoom } from './edit-api.js'
import { cm, MAX_NAME, problemsOf, readable } from './edit-site.js'

const HIT = 14

function roomsHere(ed) {
  return ed.site.rooms.map((r, i) => ({ r, i })).filter(({ r }) => ed.onFloor(r.floor) && Array.isArray(r.polygon))
}

function nearCorner(ed, poly, p) {
  const d = ed.metres(HIT)
  return poly.findIndex((q) => Math.hypot(q[0] - p.x, q[1] - p.y) <= d)
}

function finishDrawing(ed) {
  const ui = ed.ui.rooms
  if ((ui.drawing?.length ?? 0) < 3) return
  ui.naming = ui.drawing
  ui.drawing = undefined
  ed.focusLater('room-name')
  ed.redraw()
}

function cancel(ed) {
  const ui = ed.ui.rooms
  ui.drawing = undefined
  ui.naming = undefined
  ui.drag = undefined
  ed.redraw()
}

async function addRoom(ed, name) {
  const ui = ed.ui.rooms
  const polygon = ui.naming
  ui.naming = undefined
  await ed.change((site) => {
    const room = { name, polygon }
    if (ed.floor !== undefined) room.floor = ed.floor
    site.rooms.push(room)
    ui.selected = site.rooms.length - 1
  })
}

function nameField(id, value, confirm, cancelled) {
  const input = html('input', { id, type: 'text', maxlength: MAX_NAME, autocomplete: 'off', 'aria-label': 'room name' })
  input.value = value
  const ok = html('button', { type: 'button', text: 'OK' })
  const go = () => {
    const v = input.value.trim()
    if (v !== '') confirm(v.slice(0, MAX_NAME))
  }
  ok.addEventListener('click', go)
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') go()
    if (e.key === 'Escape') cancelled()
  })
  return [input, ok]
}

function roomItem(ed, r, i) {
  const ui = ed.ui.rooms
  const selected = ui.selected === i
  const li = html('li', { 'data-room-index': i, class: selected ? 'selected' : undefined })
  const pick = html('button', { type: 'button', class: 'edit-item', text: String(r.name ?? '') })
  pick.addEventListener('click', () => {
    ui.selected = selected ? undefined : i
    ui.corner = undefined
    ed.redraw()
  })
  li.append(pick)
  for (const p of problemsOf(ed.problems, 'room', i))
    li.append(html('p', { class: `problem ${p.severity}`, text: readable(p.message) }))
  if (!selected) return li
  const tools = html('div', { class: 'edit-tools' })
  tools.append(
    ...nameField(
      'room-rename',
      String(r.name ?? ''),
      (name) => void ed.change((s) => (s.rooms[i].name = name)),
      () => {},
    ),
  )
  const del = html('button', { type: 'button', class: 'danger', text: 'Delete room' })
  del.addEventListener('click', () => {
    ui.selected = undefined
    void ed.change((s) => s.rooms.splice(i, 1))
  })
  tools.append(del)
  if (ui.corner !== undefined) {
    const dc = html('button', { type: 'button', text: 'Delete corner' })
    dc.addEventListener('click', () => deleteCorner(ed))
    tools.append(dc)
  }
  li.append(tools, teachForm(ed, String(r.name ?? '')))
  return li
}

function teachForm(ed, room) {
  const box = html('div', { class: 'edit-teach' })
  const pick = html('select', { 'aria-label': 'tag to teach with' })
  for (const b of ed.state.beacons.values()) {
    const o = html('option', { value: b.id })
    o.textContent = b.name ?? b.details?.serialNumber ?? b.id
    pick.append(o)
  }
  const go = html('button', { type: 'button', text: 'Teach this room with a tag' })
  const out = html('output', { class: 'teach-answer' })
  go.addEventListener('click', async () => {
    if (pick.value === '') return (out.textContent = 'no tag is heard now: bring one into the room')
    out.textContent = 'starting…'
    const a = await teachRoom(room, pick.value, 30)
    out.textContent =
      a.status === 202
        ? `teaching ${room} for 30 s: keep the tag in the room, moving about`
        : (a.body.message ?? a.status)
  })
  box.append(pick, go, out)
  return box
}

function deleteCorner(ed) {
  const ui = ed.ui.rooms
  const i = ui.selected
  const c = ui.corner
  if (i === undefined || c === undefined) return
  ui.corner = undefined
  // Fewer than three corners is no room: the save is refused and the problem shown on it.
  void ed.change((s) => s.rooms[i].polygon.splice(c, 1))
}

/** The Rooms part of the editor. */
export const roomsTool = {
  busy: (ed) => {
    const ui = ed.ui.rooms
    return ui.drawing !== undefined || ui.naming !== undefined || ui.drag !== undefined
  },

  panel(ed) {
    const ui = ed.ui.rooms
    const box = html('div', { class: 'edit-part', 'data-part': 'rooms' })
    if (ui.naming !== undefined) {
      box.append(
        html('p', { text: 'Name the room:' }),
        ...nameField(
          'room-name',
          '',
          (n) => void addRoom(ed, n),
          () => cancel(ed),
        ),
      )
    } else if (ui.drawing !== undefined) {
      box.append(
        html('p', { text: `Click or tap each corner on the plan (${ui.drawing.length} so far); Escape cancels.` }),
      )
      const close = html('button', { type: 'button', text: 'Close the room' })
      close.disabled = ui.drawing.length < 3
      close.addEventListener('click', () => finishDrawing(ed))
      const stop = html('button', { type: 'button', text: 'Cancel' })
      stop.addEventListener('click', () => cancel(ed))
      box.append(close, stop)
    } else {
      const draw = html('button', { type: 'button', id: 'room-draw', text: 'Draw a room' })
      draw.addEventListener('click', () => {
        ui.drawing = []
        ui.selected = undefined
        ed.redraw()
      })
      box.append(draw)
    }
    const rooms = ed.site.rooms.map((r, i) => ({ r, i })).filter(({ r }) => ed.onFloor(r.floor))
    box.append(html('ul', { class: 'edit-list', id: 'edit-rooms' }, ...rooms.map(({ r, i }) => roomItem(ed, r, i))))
    return box
  },

  listKey: (ed) => [...ed.state.beacons.keys()].join(','),

  down(ed, p) {
    const ui = ed.ui.rooms
    if (ui.drawing !== undefined) return true
    const sel = ed.site.rooms[ui.selected]
    if (sel !== undefined && Array.isArray(sel.polygon)) {
      const c = nearCorner(ed, sel.polygon, p)
      if (c >= 0) {
        ui.corner = c
        ui.drag = { room: ui.selected, corner: c, moved: false }
        ed.redraw()
        return true
      }
    }
    const hit = roomsHere(ed)
      .reverse()
      .find(({ r }) => inside(r.polygon, p.x, p.y))
    if (hit === undefined) return false
    ui.press = hit.i
    return true
  },

  move(ed, p) {
    const d = ed.ui.rooms.drag
    if (d === undefined) return
    d.moved = true
    ed.site.rooms[d.room].polygon[d.corner] = [cm(p.x), cm(p.y)]
    ed.dirty = true
    ed.page.redraw()
  },

  up(ed, p) {
    const ui = ed.ui.rooms
    if (ui.drawing !== undefined) {
      const first = ui.drawing[0]
      if (ui.drawing.length >= 3 && nearCorner(ed, [first], p) === 0) return finishDrawing(ed)
      ui.drawing.push([cm(p.x), cm(p.y)])
      return ed.redraw()
    }
    if (ui.drag !== undefined) {
      const moved = ui.drag.moved
      ui.drag = undefined
      // The corner was moved in place on the page: the save sends the site as it now is.
      if (moved) void ed.save()
      return ed.redraw()
    }
    if (ui.press !== undefined) {
      ui.selected = ui.press
      ui.corner = undefined
      ui.press = undefined
      ed.redraw()
    }
  },

  cancel(ed) {
    ed.ui.rooms.drag = undefined
    ed.ui.rooms.press = undefined
  },

  key(ed, e, inField) {
    const ui = ed.ui.rooms
    if (e.key === 'Escape' && (ui.drawing !== undefined || ui.naming !== undefined)) cancel(ed)
    else if (e.key === 'Enter' && ui.drawing !== undefined && !inField) finishDrawing(ed)
    else if ((e.key === 'Delete' || e.key === 'Backspace') && !inField && ui.corner !== undefined) deleteCorner(ed)
  },

  overlay(ed, layer) {
    const ui = ed.ui.rooms
    const r = ed.metres(7)
    const sel = ed.site.rooms[ui.selected]
    if (sel !== undefined && Array.isArray(sel.polygon) && ed.onFloor(sel.floor)) {
      const pts = sel.polygon.filter((q) => Number.isFinite(q?.[0]))
      layer.append(svg('polygon', { points: pts.map((q) => q.join(',')).join(' '), class: 'edit-selected' }))
      pts.forEach((q, i) =>
        layer.append(
          svg('circle', {
            cx: q[0],
            cy: q[1],
            r,
            class: `edit-corner${ui.corner === i ? ' chosen' : ''}`,
            'data-corner': i,
          }),
        ),
      )
    }
    const drawing = ui.drawing ?? ui.naming
    if (drawing !== undefined && drawing.length > 0) {
      layer.append(svg('polyline', { points: drawing.map((q) => q.join(',')).join(' '), class: 'edit-drawing' }))
      drawing.forEach((q, i) =>
        layer.append(svg('circle', { cx: q[0], cy: q[1], r, class: `edit-corner${i === 0 ? ' first' : ''}` })),
      )
    }
  },
}
