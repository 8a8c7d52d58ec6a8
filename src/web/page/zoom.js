// Zoom and pan of the plan: the wheel, a pinch of two fingers and the +/− buttons zoom; a drag
// on an empty part of the plan pans. plan.js fits the whole plan into its view box on every
// redraw; `apply` then narrows that box to the part looked at, so a redraw keeps the zoom.

const MAX = 20
const STEP = 1.4

/** The zoom of one <svg>: `apply()` after each redraw; `canPan(event)` says whether a press may pan. */
export class PlanZoom {
  constructor(el, canPan) {
    this.el = el
    this.canPan = canPan
    this.base = undefined
    this.k = 1
    this.cx = undefined
    this.cy = undefined
    this.pointers = new Map()
    this.pinch = undefined
    this.pan = undefined
    el.addEventListener('wheel', (e) => this.wheel(e), { passive: false })
    el.addEventListener('pointerdown', (e) => this.down(e))
    el.addEventListener('pointermove', (e) => this.move(e))
    for (const t of ['pointerup', 'pointercancel']) el.addEventListener(t, (e) => this.up(e))
  }

  /** Narrows the view box plan.js has just set (the whole plan) to the zoomed part; call once per redraw. */
  apply() {
    const v = this.el.viewBox.baseVal
    this.base = { x: v.x, y: v.y, w: v.width, h: v.height }
    if (this.k > 1) this.show()
  }

  show() {
    const b = this.base
    // A plan not laid out yet (or a schematic without a view box) has nothing to zoom.
    if (b === undefined || !(b.w > 0 && b.h > 0)) return
    if (this.k <= 1) {
      this.k = 1
      this.cx = undefined
      this.el.setAttribute('viewBox', `${b.x} ${b.y} ${b.w} ${b.h}`)
      return
    }
    const w = b.w / this.k
    const h = b.h / this.k
    this.cx = Math.min(Math.max(this.cx ?? b.x + b.w / 2, b.x + w / 2), b.x + b.w - w / 2)
    this.cy = Math.min(Math.max(this.cy ?? b.y + b.h / 2, b.y + h / 2), b.y + b.h - h / 2)
    this.el.setAttribute('viewBox', `${this.cx - w / 2} ${this.cy - h / 2} ${w} ${h}`)
  }

  /** Zooms by `factor` keeping the plan point under (clientX, clientY) in place (the centre when omitted). */
  zoomBy(factor, clientX, clientY) {
    const b = this.base
    if (b === undefined || !(b.w > 0 && b.h > 0)) return
    const k = Math.min(Math.max(this.k * factor, 1), MAX)
    const at = clientX === undefined ? undefined : this.toPlan(clientX, clientY)
    const cx = this.cx ?? b.x + b.w / 2
    const cy = this.cy ?? b.y + b.h / 2
    const r = this.k / k
    // The point under the pointer stays there: the centre moves towards it by how much the box shrank.
    this.cx = at === undefined ? cx : at.x + (cx - at.x) * r
    this.cy = at === undefined ? cy : at.y + (cy - at.y) * r
    this.k = k
    this.show()
  }

  /** A point of the screen in plan coordinates (metres). */
  toPlan(clientX, clientY) {
    const m = this.el.getScreenCTM()
    if (m === null) return undefined
    const p = new DOMPoint(clientX, clientY).matrixTransform(m.inverse())
    return { x: p.x, y: p.y }
  }

  wheel(e) {
    e.preventDefault()
    this.zoomBy(e.deltaY < 0 ? 1.15 : 1 / 1.15, e.clientX, e.clientY)
  }

  down(e) {
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY })
    if (this.pointers.size === 2) {
      const [a, b] = [...this.pointers.values()]
      this.pinch = { d: Math.hypot(a.x - b.x, a.y - b.y) }
      this.pan = undefined
      return
    }
    if (this.pointers.size === 1 && this.k > 1 && this.canPan(e)) {
      const p = this.toPlan(e.clientX, e.clientY)
      if (p !== undefined) this.pan = { id: e.pointerId, from: p }
    }
  }

  move(e) {
    if (!this.pointers.has(e.pointerId)) return
    this.pointers.set(e.pointerId, { x: e.clientX, y: e.clientY })
    if (this.pinch !== undefined && this.pointers.size === 2) {
      const [a, b] = [...this.pointers.values()]
      const d = Math.hypot(a.x - b.x, a.y - b.y)
      if (this.pinch.d > 0 && d > 0) this.zoomBy(d / this.pinch.d, (a.x + b.x) / 2, (a.y + b.y) / 2)
      this.pinch.d = d
      return
    }
    if (this.pan?.id === e.pointerId) {
      const p = this.toPlan(e.clientX, e.clientY)
      if (p === undefined) return
      this.cx -= p.x - this.pan.from.x
      this.cy -= p.y - this.pan.from.y
      this.show()
    }
  }

  up(e) {
    this.pointers.delete(e.pointerId)
    if (this.pointers.size < 2) this.pinch = undefined
    if (this.pan?.id === e.pointerId) this.pan = undefined
  }
}

/** The +/− buttons (and "fit") beside the plan. */
export function zoomButtons(zoom) {
  const make = (text, label, act) => {
    const b = document.createElement('button')
    b.type = 'button'
    b.textContent = text
    b.setAttribute('aria-label', label)
    b.addEventListener('click', act)
    return b
  }
  const box = document.createElement('div')
  box.id = 'zoom'
  box.append(
    make('+', 'zoom in', () => zoom.zoomBy(STEP)),
    make('−', 'zoom out', () => zoom.zoomBy(1 / STEP)),
    make('⤢', 'fit the plan', () => zoom.zoomBy(1 / MAX)),
  )
  return box
}
