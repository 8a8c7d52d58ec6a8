// The live map page: connects to the server's event stream, keeps the state it describes and
// redraws the floor plan (fleet) or the range table (single scanner). Plain ES modules, no build.
import { drawPlan } from './plan.js'
import { drawRooms } from './rooms.js'
import { drawTable } from './range-table.js'
import { drawDetails } from './details.js'
import { drawLog } from './log.js'
import { setupReplay } from './replay.js'
import { defaultFloor, drawFloors, floorsOf, onFloor } from './floors.js'
import { PlanZoom, zoomButtons } from './zoom.js'
import { startEditor } from './edit.js'

// The token comes in the URL fragment, which browsers never send to a server or in a Referer.
const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? undefined

/** Everything the server told us. */
const state = {
  mode: undefined,
  time: 0,
  plan: undefined,
  gateways: new Map(),
  beacons: new Map(),
  history: new Map(),
  trails: new Map(),
  log: [],
  selected: undefined,
  /** The floor shown, on a site with floors (a person's choice is kept across snapshots). */
  floor: undefined,
}

const HISTORY = 60
const TRAIL = 12
const LOG = 200
/** Gateways outside the site named in the header's title, at most (the rest are counted). */
const OTHERS_NAMED = 20

function $(id) {
  return document.getElementById(id)
}

function setConnection(kind, text) {
  const el = $('connection')
  el.dataset.state = kind
  el.textContent = text
}

function notice(text) {
  const el = $('notice')
  el.hidden = text === undefined
  el.textContent = text ?? ''
}

function applySnapshot(s) {
  state.replay = s.replay
  state.mode = s.mode
  state.time = s.time
  state.plan = s.plan
  state.editable = s.editable === true
  state.gateways = new Map(s.gateways.map((g) => [g.id, g]))
  state.beacons = new Map(s.beacons.map((b) => [b.id, b]))
  state.history = new Map(Object.entries(s.history))
  state.trails = new Map(Object.entries(s.trails))
  state.log = s.log.slice()
  // The first floor shown is where most beacons are now; a person's choice is kept across snapshots.
  if (!floorsOf(state).some((f) => f.id === state.floor)) state.floor = defaultFloor(state)
  document.body.dataset.mode = s.mode
  $('mode-label').textContent = s.mode === 'fleet' ? 'live map' : 'range'
  $('plan-pane').hidden = s.mode !== 'fleet'
  $('rooms-pane').hidden = s.mode !== 'fleet'
  $('table-pane').hidden = s.mode !== 'scanner'
}

// The site was edited (the fleet took a new one): rooms, gateways' places, floors and images
// are redrawn from its plan; the gateways' markers follow in the next update. An editor on the
// page hears it too ('beaconkit:site') and reads the site again.
function applySite(plan) {
  state.plan = plan
  if (!floorsOf(state).some((f) => f.id === state.floor)) state.floor = defaultFloor(state)
  document.dispatchEvent(new window.CustomEvent('beaconkit:site', { detail: plan }))
}

function push(map, id, value, max) {
  const list = map.get(id) ?? []
  list.push(value)
  if (list.length > max) list.shift()
  map.set(id, list)
}

function applyUpdate(u) {
  state.time = u.time
  for (const b of u.beacons) {
    state.beacons.set(b.id, b)
    push(state.history, b.id, b.rssi, HISTORY)
    if (b.position !== undefined) push(state.trails, b.id, [b.position.x, b.position.y], TRAIL)
  }
  for (const id of u.gone) {
    state.beacons.delete(id)
    state.history.delete(id)
    state.trails.delete(id)
  }
  for (const g of u.gateways) state.gateways.set(g.id, g)
  for (const id of u.gatewaysGone ?? []) state.gateways.delete(id)
  state.log.push(...u.log)
  if (state.log.length > LOG) state.log.splice(0, state.log.length - LOG)
}

function chooseFloor(id) {
  state.floor = id
  render()
}

function select(id) {
  state.selected = id
  if (id !== undefined) editor?.beaconClicked(id)
  render()
}

// With a site, the site's gateways are the ones counted: retained statuses of an earlier run's
// gateways (or made-up ids) are listed apart, in the title, never in "n/m gateways online".
function gatewayCounts() {
  const all = [...state.gateways.values()]
  const site = all.filter((g) => g.site === true)
  const counted = site.length > 0 ? site : all
  const others = site.length > 0 ? all.filter((g) => g.site !== true) : []
  const online = counted.filter((g) => g.state === 'online').length
  let text = `${online}/${counted.length} gateways online`
  const noun = others.length === 1 ? 'gateway' : 'gateways'
  if (others.length > 0) text += ` · ${others.length} other ${noun} not in the site`
  const named = others
    .slice(0, OTHERS_NAMED)
    .map((g) => `${g.id} (${g.state})`)
    .join(', ')
  const title = others.length === 0 ? '' : `not in the site: ${named}${others.length > OTHERS_NAMED ? ', …' : ''}`
  return { text, title }
}

function render() {
  const present = state.beacons.size
  const counts = state.mode === 'fleet' ? gatewayCounts() : undefined
  $('counts').textContent = counts === undefined ? `${present} beacons in range` : `${present} beacons · ${counts.text}`
  if (counts?.title) $('counts').title = counts.title
  else $('counts').removeAttribute('title')
  $('clock').textContent = state.time > 1e11 ? new Date(state.time).toLocaleTimeString() : ''
  if (state.mode === 'fleet') {
    // While editing, the plan shows the site being edited (saved or not), not the fleet's.
    const shown = editor?.active === true ? editor.view(state) : state
    if (!floorsOf(shown).some((f) => f.id === state.floor)) state.floor = defaultFloor(shown)
    drawFloors($('floors'), $('elsewhere'), shown, state.floor, chooseFloor)
    drawPlan($('plan'), $('legend'), onFloor(shown, state.floor), select)
    zoom.apply()
    editor?.draw()
    drawRooms($('rooms'), state, select)
  } else if (state.mode === 'scanner') {
    drawTable($('range').tBodies[0], state, select)
  }
  drawDetails(state, () => select(undefined))
  drawLog($('log'), state.log, state.beacons)
}

// Several updates in one frame draw once.
let pending = false
function scheduleRender() {
  if (pending) return
  pending = true
  requestAnimationFrame(() => {
    pending = false
    render()
  })
}

let source
function connect() {
  const url = token === undefined ? 'api/events' : `api/events?token=${encodeURIComponent(token)}`
  source = new EventSource(url)
  source.addEventListener('snapshot', (e) => {
    const s = JSON.parse(e.data)
    applySnapshot(s)
    offerEditor(s)
    setConnection('live', s.replay === undefined ? 'live' : 'recording')
    notice(undefined)
    if (s.replay !== undefined) {
      // A recording does not change by itself: the slider asks for moments instead.
      source.close()
      setupReplay(s.replay, fetchAt)
    }
    scheduleRender()
  })
  source.addEventListener('update', (e) => {
    applyUpdate(JSON.parse(e.data))
    scheduleRender()
  })
  source.addEventListener('site', (e) => {
    applySite(JSON.parse(e.data))
    scheduleRender()
  })
  source.addEventListener('error', () => {
    // EventSource retries a dropped connection by itself; after a refused answer (401, a
    // proxy's 502) it gives up, so find out why and try again ourselves.
    setConnection('down', 'reconnecting…')
    if (source.readyState === EventSource.CLOSED) setTimeout(check, 2000)
  })
}

/** The view at one moment of a recording. */
async function fetchAt(at) {
  const res = await fetch(
    `api/snapshot?at=${Math.round(at)}`,
    token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } },
  )
  if (!res.ok) return
  applySnapshot(await res.json())
  scheduleRender()
}

async function check() {
  try {
    const res = await fetch(
      'api/snapshot',
      token === undefined ? {} : { headers: { Authorization: `Bearer ${token}` } },
    )
    if (res.status === 401) {
      notice('This map needs its access token: open the full address printed when the server started (with #token=…).')
      setConnection('down', 'no access')
      return
    }
  } catch {
    // The server is still down: keep trying.
  }
  source.close()
  connect()
}

// The plan zooms (wheel, pinch, buttons) and pans (a drag on an empty part of it) in every mode.
const zoom = new PlanZoom($('plan'), (e) => !e.defaultPrevented && e.target.closest?.('g.beacon') === null)
$('plan-pane').append(zoomButtons(zoom))
// The editor shows only when the server was started with --edit: its snapshot says `editable`,
// and GET /api/site answers (asked only then, so a map without it logs no 404).
let editor
let editorAsked = false
function offerEditor(s) {
  if (s.editable !== true || editorAsked) return
  editorAsked = true
  void startEditor({ state, redraw: scheduleRender, plan: $('plan') }).then((e) => {
    editor = e
    if (e !== undefined) scheduleRender()
  })
}

// The schematic of a site without coordinates lays its rooms out for the pane's width.
window.addEventListener('resize', scheduleRender)
$('details-close').addEventListener('click', () => select(undefined))
document.addEventListener('keydown', (e) => {
  if (e.key === 'Escape') select(undefined)
})
connect()
