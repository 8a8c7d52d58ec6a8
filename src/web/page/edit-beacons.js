// Beacons: the ones heard now and the ones the site names; click one in the list or on the plan
// to name it (the site's `beacons` list) and choose whether Home Assistant is told of it.
import { html, svg } from './svg.js'
import { label } from './colours.js'
import { beaconEntry, MAX_NAME, problemsOf } from './edit-site.js'

// Beacons listed at most (a site may name 10,000): the one being named is always listed, and any
// other is picked on the plan.
const LISTED = 300

/** Heard beacons, then named ones not heard now: `{ id, serial, entry, heard }`. */
function beaconsListed(ed) {
  const out = []
  const seen = new Set()
  for (const b of ed.state.beacons.values()) {
    const serial = b.details?.serialNumber
    const entry = beaconEntry(ed.site, b.id, serial)
    out.push({ id: b.id, serial, entry, heard: b })
    if (entry >= 0) seen.add(entry)
  }
  ;(ed.site.beacons ?? []).forEach((e, i) => {
    if (seen.has(i) || e === null || typeof e !== 'object' || e.name === undefined) return
    const id = typeof e.id === 'string' ? e.id : undefined
    const serial = e.serialNumber ?? e.serial
    out.push({ id: id ?? `serial:${serial}`, serial, entry: i, heard: undefined })
  })
  return out
}

function nameOf(ed, b) {
  const e = ed.site.beacons?.[b.entry]
  return typeof e?.name === 'string' ? e.name : undefined
}

/** Writes (or, with an empty name, removes) the name and the announce choice of a beacon. */
function saveName(ed, b, name, announce) {
  ed.ui.beacons.selected = undefined
  return ed.change((site) => {
    site.beacons ??= []
    let i = beaconEntry(site, b.id, b.serial)
    if (name === '') {
      if (i >= 0) {
        const e = site.beacons[i]
        delete e.name
        delete e.announce
        // An entry that only named the beacon goes; one the simulator reads (path, at…) stays.
        if (Object.keys(e).every((k) => k === 'id' || k === 'serialNumber')) site.beacons.splice(i, 1)
      }
      return
    }
    if (i < 0) {
      site.beacons.push(b.id.startsWith('serial:') ? { serialNumber: b.serial } : { id: b.id })
      i = site.beacons.length - 1
    }
    site.beacons[i].name = name
    site.beacons[i].announce = announce
  })
}

function form(ed, b) {
  const box = html('div', { class: 'edit-tools', id: 'beacon-form' })
  const input = html('input', {
    id: 'beacon-name',
    type: 'text',
    maxlength: MAX_NAME,
    autocomplete: 'off',
    'aria-label': 'beacon name',
  })
  input.value = nameOf(ed, b) ?? ''
  const e = ed.site.beacons?.[b.entry]
  const check = html('input', { id: 'beacon-announce', type: 'checkbox' })
  check.checked = e?.announce !== false
  const announce = html('label', { class: 'check' }, check, ' announce to Home Assistant')
  const ok = html('button', { type: 'button', id: 'beacon-save', text: 'Save' })
  const go = () => void saveName(ed, b, input.value.trim().slice(0, MAX_NAME), check.checked)
  const close = () => {
    ed.ui.beacons.selected = undefined
    ed.redraw()
  }
  ok.addEventListener('click', go)
  input.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter') go()
    if (ev.key === 'Escape') close()
  })
  const cancel = html('button', { type: 'button', text: 'Cancel' })
  cancel.addEventListener('click', close)
  box.append(html('label', { for: 'beacon-name', text: `Name of ${b.serial ?? b.id}` }), input, announce, ok, cancel)
  return box
}

function item(ed, b) {
  const selected = ed.ui.beacons.selected === b.id
  const li = html('li', { 'data-beacon': b.id, class: selected ? 'selected' : undefined })
  const name = nameOf(ed, b)
  const pick = html('button', { type: 'button', class: 'edit-item' })
  pick.append(html('b', { text: name ?? (b.heard === undefined ? b.id : label(b.heard)) }))
  pick.append(
    ' ',
    html('span', { class: 'muted', text: `${b.serial ?? b.id}${b.heard === undefined ? ' · not heard now' : ''}` }),
  )
  if (name !== undefined && ed.site.beacons[b.entry]?.announce === false)
    pick.append(' ', html('span', { class: 'muted', text: '· not in HA' }))
  pick.addEventListener('click', () => {
    ed.ui.beacons.selected = selected ? undefined : b.id
    if (!selected) ed.focusLater('beacon-name')
    ed.redraw()
  })
  li.append(pick)
  for (const p of b.entry >= 0 ? problemsOf(ed.problems, 'beacon', b.entry) : [])
    li.append(html('p', { class: `problem ${p.severity}`, text: p.message }))
  if (selected) li.append(form(ed, b))
  return li
}

/** The Beacons part of the editor. */
export const beaconsTool = {
  busy: (ed) => ed.ui.beacons.selected !== undefined,

  panel(ed) {
    const box = html('div', { class: 'edit-part', 'data-part': 'beacons' })
    box.append(html('p', { class: 'hint', text: 'Click or tap a beacon here or on the plan to name it.' }))
    const list = beaconsListed(ed)
    const shown = list.filter((b, i) => i < LISTED || b.id === ed.ui.beacons.selected)
    box.append(html('ul', { class: 'edit-list', id: 'edit-beacons' }, ...shown.map((b) => item(ed, b))))
    if (list.length > shown.length)
      box.append(
        html('p', { class: 'muted', text: `… and ${list.length - shown.length} more: click one on the plan.` }),
      )
    return box
  },

  listKey: (ed) => [...ed.state.beacons.values()].map((b) => `${b.id}:${b.name ?? ''}`).join(','),

  /** A beacon clicked on the plan: its name form opens. */
  pick(ed, id) {
    ed.ui.beacons.selected = id
    ed.focusLater('beacon-name')
    ed.redraw()
  },

  overlay(ed, layer) {
    const b = ed.state.beacons.get(ed.ui.beacons.selected)
    const dot = ed.page.plan.querySelector(`g.beacon[data-id="${CSS.escape(b?.id ?? '')}"] .dot`)
    if (b === undefined || dot === null) return
    const cx = dot.getAttribute('cx')
    const cy = dot.getAttribute('cy')
    layer.append(svg('circle', { cx, cy, r: ed.metres(14), class: 'edit-selected' }))
  },
}
