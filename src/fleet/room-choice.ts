/**
 * Which room a beacon is in, with hysteresis. Two gateways in neighbouring rooms often hear a
 * tag at nearly the same strength, and nearest-gateway-wins then flips the room with every
 * batch. Here a beacon changes room only when the new room's evidence beats the current room's
 * by `marginDb` continuously for `dwellMs`. The first room is taken at once when it leads every
 * other by the margin, else once it has led for `dwellMs`.
 */

/** Options of the room decision. */
export interface RoomOptions {
  /** How long the new room must lead before the beacon moves there, ms (default 4000). */
  dwellMs?: number
  /** By how much (dB of smoothed RSSI) the new room must lead (default 3). */
  marginDb?: number
}

/** Room-decision state of one beacon. */
export interface RoomState {
  room?: string
  candidate?: string
  candidateSince: number
}

/** A room change: from undefined when the beacon is first placed. */
export interface RoomChange {
  from?: string
  to: string
}

/**
 * Advances `st` to `now` given each room's evidence (the best smoothed RSSI of a gateway in
 * that room hearing the beacon); returns the change, if the room changed.
 */
export function decideRoom(
  st: RoomState,
  evidence: ReadonlyMap<string, number>,
  now: number,
  dwellMs: number,
  marginDb: number,
): RoomChange | undefined {
  let leader: string | undefined
  let best = -Infinity
  for (const [room, rssi] of evidence) {
    if (rssi > best) {
      best = rssi
      leader = room
    }
  }
  // Nobody in a known room hears it: keep the last room (the beacon goes by the gone timeout).
  if (leader === undefined) {
    st.candidate = undefined
    return undefined
  }
  if (st.room === undefined) {
    // The first batches are often one gateway's single packet: a clear leader is taken at
    // once, a close call only once the same room has led for the dwell time.
    let second = -Infinity
    for (const [room, rssi] of evidence) if (room !== leader && rssi > second) second = rssi
    if (best < second + marginDb) {
      if (st.candidate !== leader) {
        st.candidate = leader
        st.candidateSince = now
      }
      if (now - st.candidateSince < dwellMs) return undefined
    }
    st.room = leader
    st.candidate = undefined
    return { to: leader }
  }
  const current = evidence.get(st.room) ?? -Infinity
  if (leader === st.room || best < current + marginDb) {
    st.candidate = undefined
    return undefined
  }
  if (st.candidate !== leader) {
    st.candidate = leader
    st.candidateSince = now
  }
  if (now - st.candidateSince < dwellMs) return undefined
  const from = st.room
  st.room = leader
  st.candidate = undefined
  return { from, to: leader }
}
