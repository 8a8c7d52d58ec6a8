// Scanner mode: the range table, strongest first, with an RSSI sparkline per beacon.
import { html, sparkline, svg } from './svg.js'
import { label } from './colours.js'

function cell(text, cls) {
  return html('td', { class: cls, text: text ?? '–' })
}

function motion(d) {
  if (d.moving === true) return 'moving'
  if (d.moving === false) return 'still'
  return d.movingState
}

/** Redraws the table body. */
export function drawTable(tbody, state, select) {
  const rows = [...state.beacons.values()].sort((a, b) => b.rssi - a.rssi)
  tbody.replaceChildren(
    ...rows.map((b) => {
      const d = b.details
      const spark = svg('svg', { class: 'spark', viewBox: '0 0 100 20', preserveAspectRatio: 'none' })
      sparkline(spark, state.history.get(b.id), 100, 20)
      // A narrow column breaks a shortened id where it was shortened, before its major/minor.
      const name = html(
        'td',
        { class: 'name', title: b.id },
        ...label(b)
          .split('…')
          .flatMap((part, i) => (i === 0 ? [part] : ['…', html('wbr'), part])),
      )
      if (d.verified === true)
        name.append(html('span', { class: 'verified', title: 'private broadcast verified', text: ' ✓' }))
      const tr = html(
        'tr',
        { 'data-id': b.id, class: state.selected === b.id ? 'selected' : undefined, tabindex: 0 },
        name,
        cell(d.model),
        cell(`${Math.round(b.rssi)} dBm`, 'num'),
        html('td', { class: 'spark-cell' }, spark),
        cell(b.accuracy === undefined || b.accuracy < 0 ? undefined : `${b.accuracy.toFixed(1)} m`, 'num'),
        cell(d.battery === undefined ? undefined : `${d.battery} %`, 'num'),
        cell(d.temperature === undefined || d.temperature === null ? undefined : `${d.temperature} °C`, 'num'),
        cell(motion(d)),
      )
      tr.addEventListener('click', () => select(b.id))
      return tr
    }),
  )
}
