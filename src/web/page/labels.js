// Text on the plan, measured rather than guessed: a label's width in a font size times a
// character count was wrong by enough (fonts, hinting at small sizes, bold for the selected tag)
// for labels to run into each other and off the plan. Every text is drawn first, measured with
// getBBox, then moved to its place before the browser paints.
import { svg } from './svg.js'
import { within } from './geometry.js'

// Sizes of texts measured before, by font size, weight and text: a plan redraws every second.
const sizes = new Map()
const MAX_SIZES = 5000

/**
 * The box of `el` (a <text>) relative to its anchor (x, y): `{ dx, dy, w, h }`, cached under
 * `key` when one is given. `fallback` is used when the browser cannot measure (nothing laid out).
 */
export function measure(el, key, fallback) {
  const known = key === undefined ? undefined : sizes.get(key)
  if (known !== undefined) return known
  let box
  try {
    const b = el.getBBox()
    // Chromium lays SVG text out at its size on screen: while the plan is still tiny (the page
    // not laid out yet), that is a fraction of a pixel and the box comes back absurd. Not kept.
    const plausible = fallback === undefined || b.height < fallback.h * 3
    if (b.width > 0 && b.height > 0 && plausible) box = { dx: b.x, dy: b.y, w: b.width, h: b.height }
  } catch {
    // Not rendered (a hidden pane): the estimate below, not cached.
  }
  if (box === undefined || key === undefined) return box ?? fallback
  if (sizes.size >= MAX_SIZES) sizes.clear()
  sizes.set(key, box)
  return box
}

/** Moves a text measured as `m` so that its box, grown by `pad`, has its top-left at `box`. */
export function moveText(el, m, box, pad) {
  el.setAttribute('x', String(box.x + pad - m.dx))
  el.setAttribute('y', String(box.y + pad - m.dy))
}

/**
 * Places each gateway's name below its square, else above, right or left: the first that stays
 * inside `bounds` and clear of the other gateways' squares; else below, slid inside the plan.
 * `gateways` are `{ g, text, square }` (the site's coordinates, the <text>, the square's box).
 * Returns the names' boxes (kept clear of the beacon labels).
 */
export function placeGatewayNames(gateways, bounds, pad) {
  const squares = gateways.map((x) => x.square)
  const placed = []
  for (const { g, text, square, key, estimate } of gateways) {
    const m = measure(text, key, estimate)
    const w = m.w + 2 * pad
    const h = m.h + 2 * pad
    const cx = square.x + square.w / 2
    const cy = square.y + square.h / 2
    const sides = [
      { x: cx - w / 2, y: square.y + square.h },
      { x: cx - w / 2, y: square.y - h },
      { x: square.x + square.w, y: cy - h / 2 },
      { x: square.x - w, y: cy - h / 2 },
    ].map((p) => ({ ...p, w, h }))
    const clear = (b) =>
      within(b, bounds) && squares.every((s) => s === square || !hits(b, s)) && placed.every((p) => !hits(b, p))
    const box = sides.find(clear) ?? slideInside(sides[0], bounds)
    // The text is in the gateway's group, which is translated to the gateway.
    moveText(text, m, { x: box.x - g.x, y: box.y - g.y }, pad)
    placed.push(box)
  }
  return placed
}

function hits(a, b) {
  return Math.min(a.x + a.w, b.x + b.w) > Math.max(a.x, b.x) && Math.min(a.y + a.h, b.y + b.h) > Math.max(a.y, b.y)
}

function slideInside(b, bounds) {
  const x = Math.min(Math.max(b.x, bounds.x), bounds.x + bounds.w - b.w)
  const y = Math.min(Math.max(b.y, bounds.y), bounds.y + bounds.h - b.h)
  return { ...b, x, y }
}

/** A thin line from a dot to the nearest point of its label's box, for labels set further out. */
export function leader(p, box) {
  const x = Math.min(Math.max(p.x, box.x), box.x + box.w)
  const y = Math.min(Math.max(p.y, box.y), box.y + box.h)
  return svg('line', { x1: p.x, y1: p.y, x2: x, y2: y, class: 'leader' })
}
