// The event log, newest first: beacons by the name the plan shows them by (the site's name, else
// serial number, else a short id; the full id is the tooltip), and room changes as a person reads
// them: "entered Kitchen", "Kitchen → Hall".
import { html } from './svg.js'
import { label, shortId } from './colours.js'

function when(t) {
  return t > 1e11 ? new Date(t).toLocaleTimeString() : `${(t / 1000).toFixed(0)} s`
}

/** What happened, after the beacon's or gateway's name. */
function words(e) {
  switch (e.event) {
    case 'found':
      return e.room === undefined ? 'found' : `found in ${e.room}`
    case 'room':
      return e.from === undefined ? `entered ${e.room}` : `${e.from} → ${e.room}`
    default:
      return e.event
  }
}

/** The beacon's name as on the plan; a gateway is named by its id. */
function who(e, beacons) {
  if (e.event === 'online' || e.event === 'offline') return `gateway ${e.id}`
  if (e.name !== undefined) return e.name
  const b = beacons.get(e.id)
  return b === undefined ? shortId(e.id) : label(b)
}

/** Redraws the last 50 log lines; `beacons` (id → view) names the ones still present. */
export function drawLog(el, log, beacons) {
  el.replaceChildren(
    ...log
      .slice(-50)
      .reverse()
      .map((e) =>
        html(
          'li',
          { 'data-event': e.event, 'data-id': e.id },
          html('time', { text: when(e.time) }),
          ' ',
          html('b', { text: who(e, beacons), title: e.id }),
          ` ${words(e)}`,
        ),
      ),
  )
}
