// The found/gone log, newest first.
import { html } from './svg.js'

const WORDS = { found: 'found', gone: 'gone', room: 'moved', online: 'gateway online', offline: 'gateway offline' }

function when(t) {
  return t > 1e11 ? new Date(t).toLocaleTimeString() : `${(t / 1000).toFixed(0)} s`
}

/** Redraws the last 50 log lines. */
export function drawLog(el, log) {
  el.replaceChildren(
    ...log.slice(-50).reverse().map((e) => html('li', { 'data-event': e.event, 'data-id': e.id }, html('time', { text: when(e.time) }), ` ${WORDS[e.event] ?? e.event} `, html('b', { text: e.id }), e.detail === undefined ? '' : ` ${e.detail}`)),
  )
}
