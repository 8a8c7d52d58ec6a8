/**
 * Several sources on one noble instance (one adapter) share one scan: noble keeps a single
 * service filter and duplicate setting, and the last `startScanning` call wins. So each source
 * registers what it wants, the scan is started with what all of them need together, and each
 * source filters for itself.
 */

import type { NobleLike, NoblePeripheralLike } from './types.js'

/** What one source asks of the shared scan. */
export interface ScanWants {
  /** Service uuids as noble spells them (see options.ts); empty means every device. */
  readonly serviceUuids: readonly string[]
  readonly allowDuplicates: boolean
}

const users = new WeakMap<NobleLike, Set<ScanWants>>()

/** Registers `wants` on `noble`. */
export function joinScan(noble: NobleLike, wants: ScanWants): void {
  let set = users.get(noble)
  if (set === undefined) users.set(noble, (set = new Set()))
  set.add(wants)
}

/** Unregisters `wants`; returns how many users remain. */
export function leaveScan(noble: NobleLike, wants: ScanWants): number {
  const set = users.get(noble)
  set?.delete(wants)
  return set?.size ?? 0
}

/** How many sources use `noble`. */
export function scanUsers(noble: NobleLike): number {
  return users.get(noble)?.size ?? 0
}

/**
 * The settings that serve every user: all devices if any user wants all, else the union of the
 * uuids; duplicates if any user wants them.
 */
export function combinedScan(
  noble: NobleLike,
  fallback: ScanWants,
): { serviceUuids: string[]; allowDuplicates: boolean } {
  const set = users.get(noble)
  const all = set === undefined || set.size === 0 ? [fallback] : [...set]
  const everything = all.some((w) => w.serviceUuids.length === 0)
  const uuids = new Set<string>()
  if (!everything) for (const w of all) for (const u of w.serviceUuids) uuids.add(u)
  return { serviceUuids: [...uuids], allowDuplicates: all.some((w) => w.allowDuplicates) }
}

/** Whether a report carries one of `wanted` (advertised service uuids or service data); an empty list matches all. */
export function matchesServices(wanted: readonly string[], peripheral: NoblePeripheralLike): boolean {
  if (wanted.length === 0) return true
  const adv = peripheral.advertisement
  if (adv === undefined || adv === null) return false
  for (const uuid of adv.serviceUuids ?? []) if (wanted.includes(String(uuid).toLowerCase())) return true
  for (const entry of adv.serviceData ?? []) if (wanted.includes(String(entry?.uuid).toLowerCase())) return true
  return false
}
