/**
 * Per-adapter RSSI of a beacon heard by several adapters. Two antennas in different places see
 * the same beacon at different strengths; one smoothing filter fed by both would average a
 * near and a far reading into a distance that is neither, so each adapter smooths its own
 * samples and the beacon's distance comes from the adapter hearing it best. Only beacons whose
 * advertisements name an adapter have tracks: single-adapter traffic pays nothing for this.
 * Once a beacon has tracks, its RSSI comes from them alone: a source mixing named and unnamed
 * advertisements for one beacon should name them all (a CombinedSource does).
 */
import type { BeaconAdapter } from '../reading.js'
import type { RssiFilter, SampleWindow, SmoothingState } from './rssi-filter.js'

/** What one adapter knows of one beacon: its own smoothing state and when it last heard it. */
export class AdapterTrack implements SmoothingState {
  smoothed = Number.NaN
  weight = 0
  window: SampleWindow | undefined = undefined

  constructor(
    readonly adapter: string,
    /** ms, clock time this adapter last heard the beacon. */
    public lastSeen: number,
  ) {}
}

/**
 * Adds one adapter's sample at clock time `now`. Tracks of adapters that have not heard the
 * beacon for `timeoutMs` are dropped here, so the list stays as short as the set of adapters
 * hearing the beacon.
 */
export function addTrackSample(
  tracks: AdapterTrack[],
  adapter: string,
  rssi: number,
  now: number,
  filter: RssiFilter,
  timeoutMs: number,
): void {
  let track: AdapterTrack | undefined
  for (let i = tracks.length - 1; i >= 0; i--) {
    const t = tracks[i]
    if (t.adapter === adapter) track = t
    else if (t.lastSeen + timeoutMs <= now) tracks.splice(i, 1)
  }
  if (track === undefined) {
    track = new AdapterTrack(adapter, now)
    tracks.push(track)
  }
  // The filter reads the previous sample's time from lastSeen before it moves on.
  filter.add(track, rssi, now)
  track.lastSeen = now
}

/**
 * Whether `t` still counts at `ref`: it heard the beacon within `timeoutMs` before, or it is
 * the adapter that heard it last. The latter matters at the very millisecond a beacon goes: a
 * tick due then may run before the expiry and must still see the beacon's last adapter.
 */
function counts(t: AdapterTrack, ref: number, timeoutMs: number, newest: number): boolean {
  return t.lastSeen + timeoutMs > ref || t.lastSeen === newest
}

function newestOf(tracks: readonly AdapterTrack[]): number {
  let newest = Number.NEGATIVE_INFINITY
  for (const t of tracks) if (t.lastSeen > newest) newest = t.lastSeen
  return newest
}

/**
 * The best smoothed RSSI among the adapters that count at `ref` (see `counts`); NaN when
 * there is no track. Each adapter's value is taken at its own last sample, as a
 * single-adapter beacon's is.
 */
export function bestTrackRssi(
  tracks: readonly AdapterTrack[],
  ref: number,
  filter: RssiFilter,
  timeoutMs: number,
): number {
  const newest = newestOf(tracks)
  let best = Number.NaN
  for (const t of tracks) {
    if (!counts(t, ref, timeoutMs, newest)) continue
    const v = filter.value(t, t.lastSeen)
    if (!(v <= best)) best = v
  }
  return best
}

/** The public list: the adapters that count at `ref`, best first (ties by name). */
export function trackList(
  tracks: readonly AdapterTrack[],
  ref: number,
  filter: RssiFilter,
  timeoutMs: number,
): BeaconAdapter[] {
  const newest = newestOf(tracks)
  const list: BeaconAdapter[] = []
  for (const t of tracks) {
    if (!counts(t, ref, timeoutMs, newest)) continue
    list.push({ adapter: t.adapter, rssi: Math.round(filter.value(t, t.lastSeen) * 10) / 10, lastSeen: t.lastSeen })
  }
  return list.sort((a, b) => b.rssi - a.rssi || (a.adapter < b.adapter ? -1 : a.adapter > b.adapter ? 1 : 0))
}
