/**
 * RSSI batch partitions for scale-out (docs/fleet.md "Scaling out"): a gateway splits its
 * batch by a stable hash of the beacon id, so every reading of one beacon lands on the same
 * `<p>/gateways/<gw>/rssi/<n>` topic whichever gateway heard it, and the trackers can split
 * the beacons by splitting the partitions. Gateways and trackers must agree on the hash: it
 * is this one, and changing it is a contract change.
 */

/** The most partitions a gateway may publish. */
export const MAX_RSSI_PARTITIONS = 1024

/** FNV-1a (32 bit) over the id's UTF-16 code units, with a final avalanche: stable across processes and versions. */
export function stableHash(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  // FNV's low bits mix poorly for short keys that differ at the end; the murmur3 finalizer fixes that.
  h ^= h >>> 16
  h = Math.imul(h, 0x85ebca6b)
  h ^= h >>> 13
  h = Math.imul(h, 0xc2b2ae35)
  h ^= h >>> 16
  return h >>> 0
}

/** The partition (0 … count−1) of a beacon id. */
export function rssiPartition(beaconId: string, count: number): number {
  return stableHash(beaconId) % count
}
