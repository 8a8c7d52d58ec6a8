// Building SVG and HTML without innerHTML: every text from the server goes in as text, never as markup.
const NS = 'http://www.w3.org/2000/svg'

/** An SVG element with attributes. */
export function svg(tag, attrs = {}, ...children) {
  const el = document.createElementNS(NS, tag)
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined) el.setAttribute(k, String(v))
  for (const c of children) el.append(c)
  return el
}

/** An HTML element with attributes (`text` sets its text). */
export function html(tag, attrs = {}, ...children) {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined) continue
    if (k === 'text') el.textContent = String(v)
    else if (k.startsWith('data-')) el.setAttribute(k, String(v))
    else if (k === 'class') el.className = String(v)
    else el.setAttribute(k, String(v))
  }
  for (const c of children) el.append(c)
  return el
}

/** A sparkline of RSSI values (dBm) into an SVG with a 200×40 (or given) view box. */
export function sparkline(el, values, width = 200, height = 40) {
  el.replaceChildren()
  if (values === undefined || values.length < 2) return
  // Scaled to what the values span (at least 10 dB), so a few dB of change can be seen.
  const mid = (Math.min(...values) + Math.max(...values)) / 2
  const half = Math.max(5, (Math.max(...values) - Math.min(...values)) / 2 + 1)
  const lo = mid - half
  const hi = mid + half
  const step = width / (values.length - 1)
  const points = values
    .map((v, i) => `${(i * step).toFixed(1)},${(height - ((v - lo) / (hi - lo || 1)) * height).toFixed(1)}`)
    .join(' ')
  el.append(svg('polyline', { points, fill: 'none', class: 'spark-line' }))
}
