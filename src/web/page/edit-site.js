// The site file as the editor holds it (plain JSON, the shape of docs/fleet.md "The site file"),
// and what the plan draws from it while editing: the page shows the site being edited, not the
// one the fleet last took, so a change is seen at once, saved or refused.

/** Characters of a room or beacon name at most (the site model's bound). */
export const MAX_NAME = 64

/** A copy of the site to change: rooms as a list, gateways and beacons present. */
export function normalise(json) {
  const site = structuredClone(json ?? {})
  if (typeof site.gateways !== 'object' || site.gateways === null || Array.isArray(site.gateways)) {
    if (site.receivers === undefined && site.anchorBeacons === undefined) site.gateways = {}
  }
  // The object form (room → gateway ids) becomes the list form: only that one holds polygons.
  if (site.rooms !== undefined && !Array.isArray(site.rooms))
    site.rooms = Object.entries(site.rooms).map(([name, gateways]) => ({ name, gateways }))
  site.rooms ??= []
  return site
}

/** The site's gateways (or receivers) object: the one a gateway is placed in. */
export function gatewayGroup(site) {
  if (site.receivers !== undefined && site.gateways === undefined) return site.receivers
  site.gateways ??= {}
  return site.gateways
}

/** The image of the floor shown (or of the one plane): a file name, an URL or undefined. */
export function imageOf(site, floor) {
  const f = (site.floors ?? []).find((x) => x.id === floor)
  return f?.image ?? site.image
}

function imageHref(image) {
  if (typeof image !== 'string' || image === '') return undefined
  if (/^https?:\/\//i.test(image)) return image
  // A file beside the site file: the map server serves it under /plans/ (with the token).
  return /^[A-Za-z0-9._-]{1,128}$/.test(image) ? `/plans/${image}` : undefined
}

function point(p) {
  return Array.isArray(p) && Number.isFinite(p[0]) && Number.isFinite(p[1])
}

/** The plan (the snapshot's `plan` shape) of the site being edited; images only those in `stored`. */
export function planOfSite(site, stored) {
  const planImage = (image) => (stored === undefined || stored.has(image) ? imageHref(image) : undefined)
  const rooms = (site.rooms ?? []).map((r) => {
    const room = { name: String(r.name ?? '') }
    if (Array.isArray(r.polygon) && r.polygon.length >= 3 && r.polygon.every(point))
      room.polygon = r.polygon.map((p) => [p[0], p[1]])
    if (typeof r.floor === 'string') room.floor = r.floor
    return room
  })
  const plan = { rooms }
  const a = site.area
  if (a !== undefined && ['minX', 'minY', 'maxX', 'maxY'].every((k) => Number.isFinite(a[k])))
    plan.area = { minX: a.minX, minY: a.minY, maxX: a.maxX, maxY: a.maxY }
  if (Array.isArray(site.floors) && site.floors.length > 0)
    plan.floors = site.floors.map((f) => {
      const floor = { id: String(f.id), name: String(f.name ?? f.id) }
      const image = planImage(f.image)
      if (image !== undefined) floor.image = image
      return floor
    })
  const image = planImage(site.image)
  if (image !== undefined) plan.image = image
  const walls = (site.walls ?? [])
    .map((w) => (Array.isArray(w) ? { from: w[0], to: w[1] } : w))
    .filter((w) => point(w?.from) && point(w?.to))
  if (walls.length > 0) {
    plan.walls = walls.map((w) => [w.from, w.to])
    if (plan.floors !== undefined) plan.wallFloors = walls.map((w) => w.floor ?? null)
  }
  return plan
}

/**
 * The page's state with the edited site's plan, and every gateway where the site puts it (or
 * unplaced); `moving` is a gateway being dragged: `{ id, x, y }`; `stored`: the images saved.
 */
export function editedState(state, site, moving, stored) {
  const group = gatewayGroup(site)
  const gateways = new Map()
  const place = (id, base) => {
    const g = { ...base, id }
    delete g.x
    delete g.y
    delete g.floor
    const s = group[id]
    if (s !== undefined) g.site = true
    else delete g.site
    if (Number.isFinite(s?.x) && Number.isFinite(s?.y)) Object.assign(g, { x: s.x, y: s.y })
    if (typeof s?.floor === 'string') g.floor = s.floor
    if (moving?.id === id) Object.assign(g, { x: moving.x, y: moving.y })
    gateways.set(id, g)
  }
  for (const [id, g] of state.gateways) place(id, g)
  for (const id of Object.keys(group)) if (!gateways.has(id)) place(id, { state: 'unknown' })
  if (moving !== undefined && !gateways.has(moving.id)) place(moving.id, { state: 'unknown' })
  // The names as the site being edited gives them: a name typed shows at once on the plan.
  const beacons = new Map()
  for (const [id, b] of state.beacons) {
    const e = site.beacons?.[beaconEntry(site, id, b.details?.serialNumber)]
    beacons.set(id, typeof e?.name === 'string' ? { ...b, name: e.name } : b)
  }
  return { ...state, plan: planOfSite(site, stored), gateways, beacons }
}

/**
 * What a problem's `where` names: `{ kind: 'room', index }`, `{ kind: 'gateway', id }`,
 * `{ kind: 'beacon', index }`, `{ kind: 'floor', index }` or `{ kind: 'site' }`. A problem the
 * site model refuses outright says where in its message ("rooms[1].polygon is not …").
 */
export function targetOf(problem) {
  const where = problem.where === 'site' ? (/^(\S+)/.exec(problem.message)?.[1] ?? 'site') : problem.where
  let m = /^rooms\[(\d+)\]/.exec(where)
  if (m !== null) return { kind: 'room', index: Number(m[1]) }
  m = /^(?:gateways|receivers)(?:\.([A-Za-z0-9_-]+)|\[("(?:[^"\\]|\\.)*")\])/.exec(where)
  if (m !== null) return { kind: 'gateway', id: m[1] ?? JSON.parse(m[2]) }
  m = /^beacons\[(\d+)\]/.exec(where)
  if (m !== null) return { kind: 'beacon', index: Number(m[1]) }
  m = /^floors\[(\d+)\]/.exec(where)
  if (m !== null) return { kind: 'floor', index: Number(m[1]) }
  return { kind: 'site' }
}

/** The problems of one thing (`kind` and `index` or `id`), messages only. */
export function problemsOf(problems, kind, key) {
  return problems
    .filter((p) => {
      const t = targetOf(p)
      return t.kind === kind && (t.index ?? t.id) === key
    })
    .map((p) => p)
}

/** The index in `beacons` of the entry naming beacon `id` (or its serial number), or -1. */
export function beaconEntry(site, id, serial) {
  return (site.beacons ?? []).findIndex(
    (e) =>
      e !== null &&
      typeof e === 'object' &&
      (e.id === id || (serial !== undefined && (e.serialNumber ?? e.serial) === serial)),
  )
}

/** Metres rounded to the centimetre: what a tap can mean. */
export function cm(v) {
  return Math.round(v * 100) / 100
}

/** Scales everything placed on the plan by `k` about the area's corner (a new scale of the image). */
export function rescale(site, k) {
  const a = site.area
  const ox = a?.minX ?? 0
  const oy = a?.minY ?? 0
  const p = ([x, y, ...rest]) => [cm(ox + (x - ox) * k), cm(oy + (y - oy) * k), ...rest]
  if (a !== undefined) Object.assign(a, { maxX: cm(ox + (a.maxX - ox) * k), maxY: cm(oy + (a.maxY - oy) * k) })
  for (const r of site.rooms ?? []) if (Array.isArray(r.polygon)) r.polygon = r.polygon.map(p)
  for (const g of Object.values(gatewayGroup(site)))
    if (g !== null && typeof g === 'object' && Number.isFinite(g.x) && Number.isFinite(g.y)) [g.x, g.y] = p([g.x, g.y])
  site.walls = site.walls?.map((w) => (Array.isArray(w) ? w.map(p) : { ...w, from: p(w.from), to: p(w.to) }))
  if (site.walls === undefined) delete site.walls
}

/** A message as shown beside its room: its path ("rooms[2].") left out, the place says it. */
export function readable(message) {
  return message.replace(/^(?:rooms|gateways|beacons|floors)(?:\[[^\]]*\]|\.[A-Za-z0-9_-]+)\.?/, '')
}
