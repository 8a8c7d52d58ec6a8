// The details panel of the selected beacon: identity, sensors, gateways hearing it, RSSI sparkline.
import { html, sparkline } from './svg.js'
import { label } from './colours.js'

function $(id) {
  return document.getElementById(id)
}

function motion(d) {
  if (d.moving === true) return 'moving'
  if (d.moving === false) return 'still'
  return d.movingState
}

function gateways(list) {
  return `${list.length === 1 ? 'gateway' : 'gateways'} ${list.join(', ')}`
}

// A scanner checks a private broadcast itself, with its key: `verified`. A fleet sees only what
// its gateways published, so it says who claims what, and never presents that as its own check.
function verification(d) {
  if (d.verified !== undefined) return d.verified ? '✓ private broadcast verified' : '✗ not verified'
  const c = d.claims
  if (c === undefined) return undefined
  const yes = `private broadcast verified by ${gateways(c.verified)}`
  const no = `not verified by ${gateways(c.notVerified)}`
  if (c.verified.length > 0 && c.notVerified.length > 0)
    return `gateways disagree: ${yes}; ${no} (their claims, not checked here)`
  if (c.verified.length > 0)
    return `${yes} (${c.verified.length === 1 ? "gateway's claim" : "gateways' claim"}, not checked here)`
  if (c.notVerified.length > 0) return `${no} (${c.notVerified.length === 1 ? "gateway's claim" : "gateways' claim"})`
  return undefined
}

const FIELD_NAMES = {
  serialNumber: 'serial',
  model: 'model',
  battery: 'battery',
  temperature: 'temperature',
  light: 'light',
  moving: 'motion',
  movingState: 'motion',
  address: 'address',
}

// Which gateway's published state each value is: one gateway, or (each value taken from the
// freshest state that has it, as the fleet does) the fields each one supplied.
function reporters(d) {
  if (d.reportedBy === undefined) return undefined
  if (d.sources === undefined) return `gateway ${d.reportedBy} (serial, model and sensors are its claim)`
  const parts = d.sources.map((s) => {
    const fields = new Set(s.fields.map((f) => FIELD_NAMES[f] ?? f))
    return `gateway ${s.gateway}: ${[...fields].join(', ')}`
  })
  return `${parts.join('; ')} (their claims)`
}

/** Shows the selected beacon, or hides the panel. */
export function drawDetails(state) {
  const panel = $('details')
  const b = state.selected === undefined ? undefined : state.beacons.get(state.selected)
  panel.hidden = b === undefined
  if (b === undefined) return
  const d = b.details ?? {}
  $('details-title').textContent = label(b)
  const fields = [
    ['id', b.id],
    ['serial', d.serialNumber],
    ['model', d.model],
    ['room', b.room],
    ['battery', d.battery === undefined ? undefined : `${d.battery} %`],
    ['temperature', d.temperature === undefined ? undefined : d.temperature === null ? 'off' : `${d.temperature} °C`],
    ['light', d.light === undefined ? undefined : d.light === null ? 'off' : `${d.light} lx`],
    ['motion', motion(d)],
    ['verified', verification(d)],
    ['reported by', reporters(d)],
    ['RSSI', `${Math.round(b.rssi)} dBm`],
    ['distance', b.accuracy === undefined || b.accuracy < 0 ? undefined : `${b.accuracy.toFixed(1)} m`],
    [
      'position',
      b.position === undefined
        ? undefined
        : `${b.position.x.toFixed(1)}, ${b.position.y.toFixed(1)} m ± ${b.position.accuracy.toFixed(1)} m`,
    ],
  ]
  $('details-fields').replaceChildren(
    ...fields
      .filter(([, v]) => v !== undefined)
      .flatMap(([k, v]) => [html('dt', { text: k }), html('dd', { 'data-field': k, text: v })]),
  )
  sparkline($('details-spark'), state.history.get(b.id))
  $('details-gateways').replaceChildren(
    ...(b.gateways ?? []).map((g) => {
      const bar = html('span', { class: 'bar' })
      bar.style.setProperty('--w', `${Math.max(4, Math.min(100, (g.rssi + 100) * 2))}%`)
      return html(
        'li',
        { 'data-gateway': g.gateway },
        html('span', { class: 'gw', text: g.gateway }),
        bar,
        html('span', {
          class: 'num',
          text: `${Math.round(g.rssi)} dBm${g.distance === undefined ? '' : ` · ${g.distance.toFixed(1)} m`}`,
        }),
      )
    }),
  )
}
