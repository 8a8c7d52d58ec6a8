// What the editor shows besides its tools: each problem of a refused or warned save on the plan,
// where it is (the room outlined, the message beside it), and the panel (tabs, the message of
// the last save with its button, problems of the whole site, the part open, the file's version).
import { html, svg } from './svg.js'
import { readable, targetOf } from './edit-site.js'

/** Each problem of a room or gateway on the plan: outlined, its message beside it. */
export function drawProblems(ed, layer) {
  const fs = ed.metres(13)
  for (const p of ed.problems) {
    const t = targetOf(p)
    let at
    if (t.kind === 'room') {
      const r = ed.site.rooms[t.index]
      if (r === undefined || !ed.onFloor(r.floor)) continue
      const pts = (Array.isArray(r.polygon) ? r.polygon : []).filter((q) => Number.isFinite(q?.[0]))
      if (pts.length === 0) continue
      if (pts.length >= 2)
        layer.append(
          svg('polyline', { points: [...pts, pts[0]].map((q) => q.join(',')).join(' '), class: 'problem-outline' }),
        )
      at = { x: Math.min(...pts.map((q) => q[0])), y: Math.max(...pts.map((q) => q[1])) }
    } else if (t.kind === 'gateway') {
      const g = ed.view(ed.state).gateways.get(t.id)
      if (g?.x === undefined || !ed.onFloor(g.floor)) continue
      layer.append(svg('circle', { cx: g.x, cy: g.y, r: fs * 1.5, class: 'problem-outline' }))
      at = { x: g.x, y: g.y + fs * 1.5 }
    } else continue
    const text = svg('text', { x: at.x, y: at.y + fs * 1.2, 'font-size': fs, class: `problem-text ${p.severity}` })
    // On the plan, what is wrong (up to the first ';'); the list beside it says how to fix it.
    text.textContent = readable(p.message).split(';')[0]
    layer.append(text)
  }
}

/** Builds the panel again when what it shows changed (never under a person typing in it). */
export function drawPanel(ed, tool, tabs) {
  const key = `${ed.rev}|${ed.tab}|${tool.listKey?.(ed) ?? ''}`
  const focused = document.activeElement
  const typing =
    ed.panel.contains(focused) && (focused instanceof HTMLInputElement || focused instanceof HTMLSelectElement)
  if (ed.holdPanel === true || key === ed.shownKey || (typing && ed.shownKey?.startsWith(`${ed.rev}|`))) return
  ed.shownKey = key
  const nav = html('nav', { class: 'edit-tabs', role: 'tablist' })
  for (const [id, name] of tabs) {
    const b = html('button', {
      type: 'button',
      role: 'tab',
      'data-tab': id,
      'aria-selected': String(id === ed.tab),
    })
    b.textContent = name
    b.addEventListener('click', () => {
      ed.tab = id
      ed.redraw()
    })
    nav.append(b)
  }
  const parts = [nav]
  if (ed.banner !== undefined) {
    const note = html('p', { id: 'edit-banner', class: ed.banner.kind, role: 'status', text: ed.banner.text })
    if (ed.banner.action !== undefined) {
      const [label, act] = ed.banner.action
      const b = html('button', { type: 'button', text: label })
      b.addEventListener('click', act)
      note.append(' ', b)
    }
    parts.push(note)
  }
  const general = ed.problems.filter((p) => targetOf(p).kind === 'site' || targetOf(p).kind === 'floor')
  if (general.length > 0)
    parts.push(
      html(
        'ul',
        { class: 'edit-problems' },
        ...general.map((p) => html('li', { class: p.severity, text: `${p.where}: ${p.message}` })),
      ),
    )
  parts.push(tool.panel(ed))
  const file = html('p', {
    class: 'edit-file',
    text: `${ed.file ?? 'site'} · version ${ed.version}${ed.dirty ? ' · not saved' : ''}`,
  })
  parts.push(file)
  ed.panel.replaceChildren(...parts)
  ed.afterPanel?.()
  ed.afterPanel = undefined
}
