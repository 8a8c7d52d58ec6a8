// Room colours: a fixed palette in the order the site lists its rooms, readable on light and dark.
const PALETTE = [
  '#2563eb',
  '#16a34a',
  '#d97706',
  '#db2777',
  '#7c3aed',
  '#0891b2',
  '#dc2626',
  '#65a30d',
  '#c026d3',
  '#0d9488',
]

/** The colour of a room (grey when the beacon has none). */
export function roomColour(state, room) {
  if (room === undefined) return '#6b7280'
  const i = (state.plan?.rooms ?? []).findIndex((r) => r.name === room)
  return PALETTE[(i < 0 ? hash(room) : i) % PALETTE.length]
}

/** A small stable number from a string. */
export function hash(text) {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619)
  return h >>> 0
}

const MAX_LABEL = 20

/**
 * A beacon's label: its name when the view carries one, else its serial number, else a short
 * form of its id. An iBeacon id (`uuid|major|minor`) keeps its major and minor whole and shortens
 * the UUID, since tags of one fleet often share the UUID and differ only there.
 */
export function label(b) {
  const given = b.name ?? b.details?.serialNumber
  return given === undefined || given === '' ? shortId(b.id) : shorten(given)
}

/** A short form of a beacon id (see {@link label}). */
export function shortId(id) {
  const parts = id.split('|')
  if (parts.length === 3 && parts[0].length > 8)
    return `${parts[0].slice(0, 8)}…|${shorten(parts[1])}|${shorten(parts[2])}`
  return shorten(id)
}

// Anything else too long for a map label keeps both ends, where ids usually differ.
function shorten(text) {
  return text.length <= MAX_LABEL ? text : `${text.slice(0, 9)}…${text.slice(-9)}`
}
