/**
 * Gateways whose RSSI batches the fleet refuses for their clock (stamped further than
 * `maxClockOffsetMs` from their arrival): a Pi whose clock NTP has not set, or a recording
 * replayed on its own clock. Every one of their batches is dropped, so none of their beacons
 * shows; this says so once per gateway, and once when its batches are taken again. The ids
 * remembered are bounded (gateway ids come from the network); past the bound they are only counted.
 */

/** Gateways remembered as refused at most; further ones are counted in `unreported`. */
export const MAX_REFUSED_GATEWAYS = 100

/** Which gateways' batches are being refused for their clock. */
export class ClockRefusals {
  private readonly refused = new Set<string>()
  /** Refused batches of gateways past the bound. */
  unreported = 0

  constructor(private readonly max = MAX_REFUSED_GATEWAYS) {}

  /** Gateways whose latest batch was refused for its clock. */
  get size(): number {
    return this.refused.size
  }

  /** A batch of `gateway` was refused for its clock; true the first time (say so). */
  refuse(gateway: string): boolean {
    if (this.refused.has(gateway)) return false
    if (this.refused.size >= this.max) {
      this.unreported++
      return false
    }
    this.refused.add(gateway)
    return true
  }

  /** A batch of `gateway` was taken; true when its batches were being refused (say they are taken again). */
  accept(gateway: string): boolean {
    return this.refused.size > 0 && this.refused.delete(gateway)
  }
}
