// Room colours: a fixed palette in the order the site lists its rooms, readable on light and dark.
const PALETTE = ['#2563eb', '#16a34a', '#d97706', '#db2777', '#7c3aed', '#0891b2', '#dc2626', '#65a30d', '#c026d3', '#0d9488']

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

/** A beacon's short name: its serial number when known, else its id. */
export function label(b) {
  return b.details?.serialNumber ?? b.id
}
