// The site editor on the live map (issue #40): shown when the server answers GET /api/site (it
// was started with --edit). An "Edit" toggle opens a panel of four parts (Plan, Rooms, Gateways,
// Beacons); every change builds the new site JSON and saves it with the version this page has.
// A refused save is shown where its problem is (the room, the gateway, the beacon), a stale one
// says so with a Reload button. Every name goes in as text (svg.js), never as markup.
import { html, svg } from './svg.js'
import { drawPanel, drawProblems } from './edit-panel.js'
import { readSite, saveSite } from './edit-api.js'
import { editedState, normalise } from './edit-site.js'
import { planTool } from './edit-plan.js'
import { roomsTool } from './edit-rooms.js'
import { gatewaysTool } from './edit-gateways.js'
import { beaconsTool } from './edit-beacons.js'

const TOOLS = { plan: planTool, rooms: roomsTool, gateways: gatewaysTool, beacons: beaconsTool }
const TABS = [
  ['plan', 'Plan'],
  ['rooms', 'Rooms'],
  ['gateways', 'Gateways'],
  ['beacons', 'Beacons'],
]

function $(id) {
  return document.getElementById(id)
}

/**
 * The editor, or undefined when the server is not editable (the page then stays as it was).
 * `page` gives `{ state, redraw, plan }`: the page's state, its redraw, the plan's <svg>.
 */
export async function startEditor(page) {
  const answer = await readSite()
  if (answer.status !== 200 || answer.body?.editable !== true) return undefined
  const editor = new Editor(page, answer.body)
  editor.mount()
  return editor
}

class Editor {
  constructor(page, body) {
    this.page = page
    this.active = false
    this.tab = 'plan'
    this.ui = { plan: {}, rooms: {}, gateways: {}, beacons: {} }
    this.rev = 0
    this.shownKey = undefined
    this.banner = undefined
    this.take(body)
  }

  /** Takes what GET /api/site answered: the stored site, its version and problems. */
  take(body) {
    this.version = body.version
    this.site = normalise(body.site)
    this.problems = body.problems ?? []
    this.file = body.file
    this.keepStored()
    this.dirty = false
    this.touch()
  }

  /**
   * Remembers the plan images the stored site names: the server serves only those, so a picture
   * is drawn once the save naming it went through (before that it would load as a 404).
   */
  keepStored() {
    this.stored = new Set([this.site.image, ...(this.site.floors ?? []).map((f) => f?.image)].filter(Boolean))
  }

  get state() {
    return this.page.state
  }

  /** The floor shown (and edited), undefined on a one-plane site. */
  get floor() {
    return (this.site.floors ?? []).length > 0 ? this.state.floor : undefined
  }

  mount() {
    const toggle = html('button', { id: 'edit-toggle', type: 'button', 'aria-pressed': 'false', text: 'Edit' })
    toggle.addEventListener('click', () => this.setActive(!this.active))
    $('connection').before(toggle)
    this.panel = html('section', { id: 'edit-panel', hidden: '' })
    $('side').prepend(this.panel)
    // Before the zoom's own listener (on the <svg>): a press the editor takes does not pan.
    const pane = $('plan-pane')
    pane.addEventListener('pointerdown', (e) => this.pointer('down', e), true)
    pane.addEventListener('pointermove', (e) => this.pointer('move', e), true)
    pane.addEventListener('pointerup', (e) => this.pointer('up', e), true)
    pane.addEventListener('pointercancel', (e) => this.pointer('cancel', e), true)
    document.addEventListener('keydown', (e) => this.key(e))
    // The page got `event: site` (a save here or in another editor): read the stored site again.
    document.addEventListener('beaconkit:site', () => this.siteChanged())
  }

  setActive(on) {
    this.active = on
    document.body.dataset.editing = on ? '1' : '0'
    $('edit-toggle').setAttribute('aria-pressed', String(on))
    this.panel.hidden = !on
    if (on) void this.reload()
    this.redraw()
  }

  /** Something the panel shows changed: it is built again at the next draw. */
  touch() {
    this.rev++
  }

  redraw() {
    this.touch()
    this.page.redraw()
  }

  /** Whether an edit is under way (a drawing, an open form, a drag): a save of another editor waits. */
  busy() {
    return Object.values(TOOLS).some((t) => t.busy?.(this) === true)
  }

  /** The page's state with the edited site drawn instead of the fleet's. */
  view(state) {
    return editedState(state, this.site, this.ui.gateways.drag, this.stored)
  }

  /** Another editor (or this one) saved; an edit under way is not pulled from under the person. */
  siteChanged() {
    if (this.active && !this.dirty && !this.busy()) void this.reload(false)
  }

  /**
   * Reads the stored site again: `asked` by the person (Reload, Undo), or after `event: site`,
   * when what it brings is taken only if no change was made here meanwhile and it is not older.
   */
  async reload(asked = true) {
    const saves = this.saves
    const answer = await readSite()
    if (answer.status !== 200) return this.say('error', answer.body.message)
    if (!asked && (this.dirty || this.busy() || this.saves !== saves || answer.body.version < this.version)) return
    this.take(answer.body)
    if (asked) this.banner = undefined
    this.redraw()
  }

  /** Shows a message at the top of the panel; `action` is an optional `[label, fn]` button. */
  say(kind, text, action) {
    this.banner = text === undefined ? undefined : { kind, text, action }
    this.redraw()
  }

  /**
   * Applies `fn` to a copy of the site and saves it. Refused as invalid: the change stays on the
   * page with its problems shown in place (fix it, and the next change saves it all).
   */
  async change(fn) {
    const next = structuredClone(this.site)
    this.saves = (this.saves ?? 0) + 1
    fn(next)
    this.site = next
    this.dirty = true
    this.redraw()
    return this.save()
  }

  async save() {
    this.saves = (this.saves ?? 0) + 1
    this.say('info', 'saving…')
    const answer = await saveSite(this.version, this.site)
    const b = answer.body
    if (answer.status === 200) {
      this.version = b.version
      this.problems = b.problems ?? []
      this.keepStored()
      this.dirty = false
      this.say('ok', `saved: version ${b.version}`)
      return true
    }
    if (answer.status === 409 && b.code === 'stale_site') {
      const text = 'Changed in another editor — reload to get those changes, then make yours again.'
      this.say('stale', text, ['Reload', () => void this.reload()])
    } else if (answer.status === 422) {
      this.problems = b.problems ?? []
      this.say('error', 'Not saved: fix the problem shown, and your next change saves it all.', [
        'Undo my changes',
        () => void this.reload(),
      ])
    } else this.say('error', `Not saved: ${b.message ?? answer.status}`)
    return false
  }

  key(e) {
    if (!this.active) return
    const inField = e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement
    TOOLS[this.tab].key?.(this, e, inField)
  }

  /** A point of the screen in plan coordinates (metres). */
  toPlan(e) {
    const m = this.page.plan.getScreenCTM()
    if (m === null) return undefined
    const p = new DOMPoint(e.clientX, e.clientY).matrixTransform(m.inverse())
    return { x: p.x, y: p.y }
  }

  /** Plan metres of `px` screen pixels (for hit radii that stay the same on screen). */
  metres(px) {
    const m = this.page.plan.getScreenCTM()
    return m === null || m.a === 0 ? px : px / m.a
  }

  pointer(kind, e) {
    if (!this.active) return
    const tool = TOOLS[this.tab]
    const p = this.toPlan(e)
    if (p === undefined) return
    if (kind === 'down') {
      if (e.button !== undefined && e.button > 0) return
      if (tool.down?.(this, p, e) === true) {
        e.preventDefault()
        this.captured = e.pointerId
        this.page.plan.setPointerCapture?.(e.pointerId)
      }
      return
    }
    if (this.captured !== e.pointerId) return
    if (kind === 'move') tool.move?.(this, p, e)
    else {
      this.captured = undefined
      if (kind === 'up') tool.up?.(this, p, e)
      else tool.cancel?.(this)
    }
  }

  /** After the page drew the plan: the editor's layer on top, and the panel when it changed. */
  draw() {
    if (!this.active) return
    const layer = svg('g', { class: 'edit-layer' })
    TOOLS[this.tab].overlay?.(this, layer)
    this.drawProblems(layer)
    this.page.plan.append(layer)
    this.drawPanel()
  }

  /** Each problem of a room or gateway on the plan: outlined, its message beside it. */
  drawProblems(layer) {
    drawProblems(this, layer)
  }

  onFloor(f) {
    return this.floor === undefined || f === undefined || f === this.floor
  }

  drawPanel() {
    drawPanel(this, TOOLS[this.tab], TABS)
  }

  /** Focuses the element with `id` once the panel is built (a name field just opened). */
  focusLater(id) {
    this.afterPanel = () => {
      const el = document.getElementById(id)
      el?.focus()
      el?.select?.()
    }
  }
}
