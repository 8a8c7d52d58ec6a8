// Plan: the picture of the floor shown (PNG, JPEG or SVG; PUT /api/plan, then its file name in
// the site) and its scale: draw a line along something whose length is known, type that length,
// and the area the picture covers (and everything placed on it) is scaled to match.
import { html, svg } from './svg.js'
import { uploadPlan } from './edit-api.js'
import { cm, imageOf, rescale } from './edit-site.js'

// Before a scale is set, a picture is taken at 50 pixels a metre (a plan of 1000 px: 20 m).
const PX_PER_M = 50

async function upload(ed, file) {
  const ui = ed.ui.plan
  ui.note = `uploading ${file.name}…`
  ed.redraw()
  const a = await uploadPlan(file, ed.floor)
  if (a.status !== 200) {
    ui.note = `Not uploaded: ${a.body.message ?? a.status}`
    return ed.redraw()
  }
  ui.note = undefined
  const { image, width, height } = a.body
  await ed.change((site) => {
    const f = (site.floors ?? []).find((x) => x.id === ed.floor)
    if (f !== undefined) f.image = image
    else site.image = image
    if (site.area === undefined) {
      // An SVG without a size: a square until the scale is set.
      const w = Number.isFinite(width) && width > 0 ? width : 1000
      const h = Number.isFinite(height) && height > 0 ? height : w
      site.area = { minX: 0, minY: 0, maxX: cm(w / PX_PER_M), maxY: cm(h / PX_PER_M) }
    }
  })
}

function setScale(ed, metres) {
  const ui = ed.ui.plan
  const [a, b] = ui.line
  const drawn = Math.hypot(b.x - a.x, b.y - a.y)
  ui.line = undefined
  ui.scaling = false
  if (!(drawn > 0) || !(metres > 0)) return ed.redraw()
  void ed.change((site) => {
    site.area ??= { minX: 0, minY: 0, maxX: 20, maxY: 20 }
    rescale(site, metres / drawn)
  })
}

function lengthForm(ed) {
  const input = html('input', { id: 'scale-length', type: 'number', min: '0.01', step: '0.01', inputmode: 'decimal' })
  input.setAttribute('aria-label', 'length of the line in metres')
  const ok = html('button', { type: 'button', id: 'scale-ok', text: 'Set the scale' })
  const go = () => setScale(ed, Number(input.value))
  ok.addEventListener('click', go)
  input.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') go()
  })
  return [html('label', { for: 'scale-length', text: 'The line is this many metres long: ' }), input, ok]
}

/** The Plan part of the editor. */
export const planTool = {
  busy: (ed) => ed.ui.plan.scaling === true,

  panel(ed) {
    const ui = ed.ui.plan
    const box = html('div', { class: 'edit-part', 'data-part': 'plan' })
    const image = imageOf(ed.site, ed.floor)
    const floorName = (ed.site.floors ?? []).find((f) => f.id === ed.floor)?.name
    box.append(
      html('p', { text: `Picture${floorName === undefined ? '' : ` of ${floorName}`}: ${image ?? 'none yet'}` }),
    )
    const file = html('input', { id: 'plan-file', type: 'file', accept: 'image/png,image/jpeg,image/svg+xml' })
    file.addEventListener('change', () => {
      if (file.files?.[0] !== undefined) void upload(ed, file.files[0])
    })
    box.append(html('label', { for: 'plan-file', text: 'Load a floor plan (PNG, JPEG or SVG): ' }), file)
    if (ui.note !== undefined) box.append(html('p', { class: 'hint', text: ui.note }))
    const a = ed.site.area
    if (a !== undefined)
      box.append(
        html('p', { class: 'muted', text: `The picture covers ${cm(a.maxX - a.minX)} × ${cm(a.maxY - a.minY)} m.` }),
      )
    if (ui.scaling !== true) {
      const start = html('button', { type: 'button', id: 'scale-start', text: 'Set the scale…' })
      start.addEventListener('click', () => {
        ui.scaling = true
        ed.redraw()
      })
      box.append(start)
    } else if (ui.line === undefined || ui.drawing === true) {
      box.append(
        html('p', { class: 'hint', text: 'Draw a line on the plan along a wall or door whose length you know.' }),
      )
    } else box.append(...lengthForm(ed))
    if (ui.scaling === true) {
      const cancel = html('button', { type: 'button', text: 'Cancel' })
      cancel.addEventListener('click', () => {
        ui.scaling = false
        ui.line = undefined
        ed.redraw()
      })
      box.append(cancel)
    }
    return box
  },

  down(ed, p) {
    const ui = ed.ui.plan
    if (ui.scaling !== true) return false
    ui.line = [p, p]
    ui.drawing = true
    return true
  },

  move(ed, p) {
    const ui = ed.ui.plan
    if (ui.drawing !== true) return
    ui.line = [ui.line[0], p]
    ed.page.redraw()
  },

  up(ed, p) {
    const ui = ed.ui.plan
    if (ui.drawing !== true) return
    ui.line = [ui.line[0], p]
    ui.drawing = false
    ed.focusLater('scale-length')
    ed.redraw()
  },

  key(ed, e) {
    if (e.key === 'Escape' && ed.ui.plan.scaling === true) {
      ed.ui.plan.scaling = false
      ed.ui.plan.line = undefined
      ed.redraw()
    }
  },

  overlay(ed, layer) {
    const line = ed.ui.plan.line
    if (line === undefined) return
    const [a, b] = line
    layer.append(svg('line', { x1: a.x, y1: a.y, x2: b.x, y2: b.y, class: 'edit-scale' }))
  },
}
