/**
 * Which beacons Home Assistant hears about, and for how long (docs/mqtt.md "Home Assistant").
 * Anyone within radio range can send advertisements, and anyone on a shared broker can publish
 * RSSI batches: a discovery config per device heard would let 2,000 spoofed packets create
 * 2,000 Home Assistant devices. So a beacon is announced only when it has a stable identity,
 * was heard again at least `dwellMs` after it was first heard in this visit, and fewer than
 * `maxBeacons` are announced; its configs are removed once it has been gone for `expireMs`.
 * Shared by the gateway publisher and the fleet tracker; time is always the caller's `now`.
 */

import { InvalidOptionError } from '../errors.js'
import { isAddressId } from './stable-identity.js'

/** Options of the discovery gate (`homeAssistant: { … }` of the publisher and the fleet tracker). */
export interface HaGateOptions {
  /**
   * A beacon is announced once it has been heard over at least this span within one visit
   * (`lastSeen - firstSeen`). Default 30000: a beacon advertising every second or two is heard
   * many times in 30 s, while a spoofer needs to keep an id alive that long, per id.
   */
  dwellMs?: number
  /**
   * The configs of an announced beacon gone for this long are removed (empty retained). Default
   * 604800000 (7 days): a tag away for a weekend or a week's holiday keeps its entities and their
   * history; passing tags disappear within a week.
   */
  expireMs?: number
  /** At most this many beacons announced at once; more are refused and counted. Default 1000. */
  maxBeacons?: number
}

/** `homeAssistant: { … }` of the publisher and the fleet tracker: the discovery prefix and the gate. */
export interface HomeAssistantOptions extends HaGateOptions {
  /** Discovery prefix, default `homeassistant`. */
  prefix?: string
}

/** The gate's defaults, in one place. */
export const HA_GATE_DEFAULTS: Readonly<Required<HaGateOptions>> = Object.freeze({
  dwellMs: 30_000,
  expireMs: 7 * 24 * 3600_000,
  maxBeacons: 1000,
})

/** Counters of the discovery gate. */
export interface HaGateStats {
  /** Beacons announced now (including configs adopted from an earlier run). */
  announced: number
  /** Beacons that passed the dwell but were not announced: `maxBeacons` reached (once per visit). */
  refused: number
  /**
   * Beacons whose configs were removed because they were gone for `expireMs` (or left by an earlier
   * run and not kept).
   */
  removed: number
}

/** How soon a beacon at the end of its dwell but not heard since is looked at again. */
const RECHECK_MS = 5000

function checked(value: number | undefined, fallback: number, option: string, min: number): number {
  if (value === undefined) return fallback
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min) {
    throw new InvalidOptionError(
      'invalid_option',
      `homeAssistant.${option} must be a whole number of at least ${min}, not ${String(value)}`,
      { option: `homeAssistant.${option}` },
    )
  }
  return value
}

/** The options with defaults, checked (an InvalidOptionError names the option). */
export function resolveHaGateOptions(o: HaGateOptions): Required<HaGateOptions> {
  return {
    dwellMs: checked(o.dwellMs, HA_GATE_DEFAULTS.dwellMs, 'dwellMs', 0),
    expireMs: checked(o.expireMs, HA_GATE_DEFAULTS.expireMs, 'expireMs', 1),
    maxBeacons: checked(o.maxBeacons, HA_GATE_DEFAULTS.maxBeacons, 'maxBeacons', 1),
  }
}

/**
 * The dwell, the cap and the expiry, by beacon id. The caller tells it found/gone, asks
 * `admit()` before announcing, and drains `woken()` (beacons to look at again, their dwell over)
 * and `expired()` (configs to remove) on its tick. Memory is bounded by the beacons present
 * (the caller's table) plus `maxBeacons`.
 */
export class HaGate {
  private readonly o: Required<HaGateOptions>
  /** Beacons announced; the value is when they went (undefined while present). */
  private readonly announced = new Map<string, number | undefined>()
  /** Announced beacons gone, by when they went (insertion order: oldest first). */
  private readonly goneSince = new Map<string, number>()
  /** Beacons to look at again at the given time (insertion order: due order, the dwell being constant). */
  private readonly wake = new Map<string, number>()
  /** Refused in this visit (counted once). */
  private readonly refusedNow = new Set<string>()
  private refusedCount = 0
  private removedCount = 0

  constructor(options: HaGateOptions = {}) {
    this.o = resolveHaGateOptions(options)
  }

  /** The options in force. */
  get options(): Readonly<Required<HaGateOptions>> {
    return this.o
  }

  /** Counters. */
  get stats(): HaGateStats {
    return { announced: this.announced.size, refused: this.refusedCount, removed: this.removedCount }
  }

  /** Whether the beacon is announced. */
  has(id: string): boolean {
    return this.announced.has(id)
  }

  /** The beacons announced now, present or gone (a copy: the caller may forget some meanwhile). */
  announcedIds(): string[] {
    return [...this.announced.keys()]
  }

  /**
   * The beacon came (back) in range at `now`: looked at again once its dwell is over, or at once
   * when `vouched` (the user named it: the dwell guards against made-up ids, not against those).
   */
  found(id: string, now: number, { vouched = false }: { vouched?: boolean } = {}): void {
    if (this.announced.has(id)) {
      this.announced.set(id, undefined)
      this.goneSince.delete(id)
      return
    }
    this.wake.delete(id)
    this.wake.set(id, vouched ? now : now + this.o.dwellMs)
  }

  /** The beacon went at `now`: not announced if it was waiting; its configs expire if it was. */
  gone(id: string, now: number): void {
    this.wake.delete(id)
    this.refusedNow.delete(id)
    if (!this.announced.has(id)) return
    this.announced.set(id, now)
    this.goneSince.delete(id)
    this.goneSince.set(id, now)
  }

  /**
   * Whether the beacon may be announced (or is already): a stable identity, heard over the dwell
   * in this visit (not asked of a beacon the user `vouched` for by naming it), under the cap. A
   * beacon not heard long enough yet is looked at again later.
   */
  admit(id: string, stable: boolean, firstSeen: number, lastSeen: number, now: number, vouched = false): boolean {
    if (this.announced.has(id)) {
      // Present again (adopted from an earlier run while it was already in range): no expiry while here.
      if (this.announced.get(id) !== undefined) {
        this.announced.set(id, undefined)
        this.goneSince.delete(id)
      }
      return true
    }
    if (!stable) return false
    if (!vouched && lastSeen - firstSeen < this.o.dwellMs) {
      // Not heard since its dwell ended (yet): soon again. A recheck shorter than the dwell keeps
      // the wake list nearly in due order (woken() stops at the first entry not due).
      if (!this.wake.has(id)) this.wake.set(id, now + Math.min(this.o.dwellMs, RECHECK_MS))
      return false
    }
    if (this.announced.size >= this.o.maxBeacons) {
      if (!this.refusedNow.has(id)) {
        this.refusedNow.add(id)
        this.refusedCount++
      }
      return false
    }
    this.wake.delete(id)
    this.announced.set(id, undefined)
    return true
  }

  /**
   * A config found retained from an earlier run: kept as announced and gone since `now` (so it
   * expires unless the beacon comes back), or refused (false: remove it) when the id is not
   * stable (by default: a bare address, isAddressId; the fleet passes isStableIdentity: see
   * stable-identity.ts for why they differ) or the cap is reached.
   */
  adopt(id: string, now: number, stable = !isAddressId(id)): boolean {
    if (this.announced.has(id)) return true
    if (!stable || this.announced.size >= this.o.maxBeacons) {
      this.removedCount++
      return false
    }
    this.announced.set(id, now)
    this.goneSince.set(id, now)
    return true
  }

  /**
   * A beacon past its dwell that may not be announced yet for a reason of the caller's (a site
   * list that names it only once its serial number is known): looked at again soon, while present.
   */
  recheck(id: string, now: number): void {
    if (!this.announced.has(id) && !this.wake.has(id)) this.wake.set(id, now + Math.min(this.o.dwellMs, RECHECK_MS))
  }

  /** Beacons whose dwell is over by `now` (drained): to be looked at with `admit()`. */
  woken(now: number): string[] {
    const out: string[] = []
    for (const [id, at] of this.wake) {
      if (at > now) break
      this.wake.delete(id)
      out.push(id)
    }
    return out
  }

  /** Announced beacons gone for `expireMs` by `now` (drained, no longer announced): remove their configs. */
  expired(now: number): string[] {
    const out: string[] = []
    for (const [id, at] of this.goneSince) {
      if (now - at < this.o.expireMs) break
      this.goneSince.delete(id)
      this.announced.delete(id)
      this.removedCount++
      out.push(id)
    }
    return out
  }

  /** Forgets a beacon (its configs removed by the caller). */
  forget(id: string): void {
    this.announced.delete(id)
    this.goneSince.delete(id)
    this.wake.delete(id)
    this.refusedNow.delete(id)
  }
}
