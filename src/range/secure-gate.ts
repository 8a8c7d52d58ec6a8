/**
 * The scanner's side of the private broadcast protocol (docs/private-broadcast.md). A single verified
 * identity block is a false accept about 2.6 times in 10,000, so a device counts as
 * verified only after two verified frames from one address agree on the serial number.
 * Until then its readings are held, so no 'found' is emitted for a device that turns into
 * a different beacon a moment later.
 */
import type { BeaconReading } from '../reading.js'
import type { IBeaconHint } from './merge.js'

/** What the range table does with one reading. */
export type GateVerdict =
  /** Merge as usual. */
  | 'pass'
  /** Merge, identified by address: encrypted and not verified. */
  | 'address'
  /** Held until the address is confirmed (or fails). */
  | 'hold'
  /** The address just became confirmed: merge `takeHeld()` first, then this reading. */
  | 'confirmed'
  /** Ignore. */
  | 'drop'

/** A reading held back, with the hint it came with. */
export interface HeldReading {
  reading: Readonly<BeaconReading>
  hint: IBeaconHint | undefined
}

interface Pending {
  serial: string | undefined
  verifiedFrames: number
  held: HeldReading[]
  lastSeen: number
  /** A frame of this address failed verification: it is shown as encrypted and unverified. */
  failed: boolean
}

/** Held readings per address are capped: a confirmation needs the latest of each frame kind, not history. */
const MAX_HELD = 8

/** Per-address confirmation state of encrypted devices. */
export class SecureGate {
  private readonly pending = new Map<string, Pending>()
  private lastConfirmed: HeldReading[] = []

  constructor(private readonly hideUnverified: boolean) {}

  /** Addresses awaiting confirmation. */
  get size(): number {
    return this.pending.size
  }

  /**
   * Decides about reading `r`. `confirmedSerial` is the serial number already confirmed for
   * the entry this address is linked to, if any.
   */
  check(
    r: Readonly<BeaconReading>,
    hint: IBeaconHint | undefined,
    confirmedSerial: string | undefined,
    now: number,
  ): GateVerdict {
    const sec = r.secure
    const plain = sec === undefined || !sec.encrypted
    // The common case, plain beacons and nobody pending, costs no map lookup.
    if (plain && (confirmedSerial !== undefined || this.pending.size === 0)) return 'pass'
    const p = this.pending.get(r.address)
    if (plain) {
      if (p === undefined || p.failed) return 'pass'
      this.hold(p, r, hint, now)
      return 'hold'
    }
    if (sec === undefined) return 'pass'
    if (sec.verified) {
      if (confirmedSerial !== undefined) return r.serialNumber === confirmedSerial ? 'pass' : 'drop'
      if (p === undefined) {
        this.pending.set(r.address, {
          serial: r.serialNumber,
          verifiedFrames: 1,
          held: [{ reading: r, hint }],
          lastSeen: now,
          failed: false,
        })
        return 'hold'
      }
      if (p.serial === r.serialNumber && r.serialNumber !== undefined) {
        this.pending.delete(r.address)
        this.lastConfirmed = p.held
        return 'confirmed'
      }
      // A different serial: the earlier "verified" frame was a false accept (or this one is).
      p.serial = r.serialNumber
      p.verifiedFrames = 1
      p.held = p.held.filter((h) => h.reading.secure?.verified !== true)
      this.hold(p, r, hint, now)
      return 'hold'
    }
    if (confirmedSerial !== undefined) return 'drop'
    if (sec.rejected !== 'no_key') {
      if (p !== undefined) {
        p.failed = true
        p.lastSeen = now
      } else {
        this.pending.set(r.address, { serial: undefined, verifiedFrames: 0, held: [], lastSeen: now, failed: true })
      }
    }
    return this.hideUnverified ? 'drop' : 'address'
  }

  /** The readings held for the address that was just confirmed, oldest first. */
  takeHeld(): HeldReading[] {
    const held = this.lastConfirmed
    this.lastConfirmed = []
    return held
  }

  /** Whether `address` has verified frames awaiting confirmation (and none that failed). */
  awaiting(address: string): boolean {
    const p = this.pending.get(address)
    return p !== undefined && !p.failed && p.verifiedFrames > 0
  }

  /** Forgets addresses not heard since `before` (ms); the range table calls this on its tick. */
  sweep(before: number): void {
    for (const [address, p] of this.pending) if (p.lastSeen <= before) this.pending.delete(address)
  }

  /** Forgets one address (its beacon is gone). */
  forget(address: string): void {
    this.pending.delete(address)
  }

  /** Forgets everything. */
  clear(): void {
    this.pending.clear()
    this.lastConfirmed = []
  }

  private hold(p: Pending, r: Readonly<BeaconReading>, hint: IBeaconHint | undefined, now: number): void {
    p.lastSeen = now
    p.held.push({ reading: r, hint })
    if (p.held.length > MAX_HELD) p.held.shift()
  }
}
