// The side list: each room with the beacons in it now, then the beacons placed in no room.
import { html } from './svg.js'
import { label, roomColour } from './colours.js'

/** Redraws the room list. */
export function drawRooms(el, state, select) {
  const byRoom = new Map((state.plan?.rooms ?? []).map((r) => [r.name, []]))
  const unplaced = []
  for (const b of state.beacons.values()) {
    if (b.room === undefined) unplaced.push(b)
    else (byRoom.get(b.room) ?? byRoom.set(b.room, []).get(b.room)).push(b)
  }
  const items = []
  const group = (name, list, colour) => {
    list.sort((a, b) => label(a).localeCompare(label(b)))
    const ul = html('ul', { class: 'who' })
    for (const b of list) {
      const li = html(
        'li',
        { 'data-beacon': b.id, class: state.selected === b.id ? 'selected' : undefined, tabindex: 0 },
        html('span', { class: 'swatch' }),
        label(b),
      )
      li.firstChild.dataset.colour = colour
      li.addEventListener('click', () => select(b.id))
      ul.append(li)
    }
    const head = html(
      'div',
      { class: 'room-head' },
      html('span', { class: 'room-name', text: name }),
      html('span', { class: 'room-count', text: String(list.length) }),
    )
    const li = html('li', { 'data-room': name }, head, ul)
    head.querySelector('.room-name').dataset.colour = colour
    items.push(li)
  }
  for (const [name, list] of byRoom) group(name, list, roomColour(state, name))
  if (unplaced.length > 0) group('(no room)', unplaced, roomColour(state, undefined))
  el.replaceChildren(...items)
  // Colours come as data attributes and are applied through the CSSOM: the policy allows no inline style attribute.
  el.querySelectorAll('[data-colour]').forEach((s) => {
    s.style.setProperty('--c', s.dataset.colour)
  })
}
