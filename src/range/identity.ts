/**
 * Who is who: tracked entries by identity and by Bluetooth address. An address's packets can
 * reveal a serial number after the entry was created under its beaconID or address (the scan
 * response after the advertisement); the entry then changes identity in place, so there is
 * never a gone/found pair for one device.
 */
import type { BeaconReading } from '../reading.js'
import type { Entry } from './entry.js'

/** Further addresses an entry keeps linked (address rotation is a few a day; more are phones sharing a beaconID). */
const MAX_MORE_ADDRESSES = 16

/** Entries by identity and by address. */
export class IdentityIndex {
  private readonly byId = new Map<string, Entry>()
  private readonly byAddress = new Map<string, Entry>()

  /**
   * @param create makes an entry for a new identity
   * @param absorbed called for an entry merged into another one that already had its serial
   * @param released called for an address no longer linked to its entry (too many addresses)
   */
  constructor(
    private readonly create: (id: string, r: Readonly<BeaconReading>) => Entry,
    private readonly absorbed: (e: Entry) => void,
    private readonly released: (address: string) => void,
  ) {}

  /** Number of entries. */
  get size(): number {
    return this.byId.size
  }

  /** The entry an address is linked to. */
  linked(address: string): Entry | undefined {
    return this.byAddress.get(address)
  }

  /** Whether `e` is still indexed (not removed or absorbed). */
  has(e: Entry): boolean {
    return this.byId.get(e.id) === e
  }

  /**
   * The entry reading `r` belongs to (docs/protocol.md: a resolved identity `irk:<name>`,
   * else serial number, else beaconID, else address), creating it if needed. `linked` is the
   * entry the address is already linked to.
   * `byAddressOnly`: an encrypted, unverified device is identified by its address.
   */
  resolve(r: Readonly<BeaconReading>, linked: Entry | undefined, byAddressOnly: boolean): Entry {
    if (r.irk !== undefined) return this.resolveIdentity(r, linked)
    const serial = r.serialNumber
    const e = linked
    if (e !== undefined) {
      if (serial === undefined || e.id === serial) return e
      if (e.serialNumber !== undefined && e.serialNumber !== serial) {
        // Another device now uses this address.
        this.unlinkAddress(r.address, e)
      } else {
        return this.promote(e, serial)
      }
    }
    return this.link(serial ?? (byAddressOnly ? r.address : (r.beaconID ?? r.address)), r)
  }

  /**
   * An address resolved with an identity resolving key is the device `irk:<name>`, whatever its
   * frames say: the key proves whose it is, and a phone's frames (an app's iBeacon) are what it
   * says, carried by that device. Each rotation links one more address, as {@link resolve} does.
   */
  private resolveIdentity(r: Readonly<BeaconReading>, linked: Entry | undefined): Entry {
    const id = `irk:${r.irk as string}`
    if (linked !== undefined) {
      if (linked.id === id) return linked
      this.unlinkAddress(r.address, linked)
    }
    return this.link(id, r)
  }

  /** The entry of `id` (created if new), with `r.address` linked to it. */
  private link(id: string, r: Readonly<BeaconReading>): Entry {
    let e = this.byId.get(id)
    if (e === undefined) {
      e = this.create(id, r)
      this.byId.set(id, e)
    } else if (e.home !== r.address) {
      const more = (e.more ??= [])
      more.push(r.address)
      // Phones sending one beaconID from random addresses would otherwise link an address per
      // phone for as long as any of them is heard; a resolved phone links one per rotation. The
      // oldest goes (relinked if heard again).
      if (more.length > MAX_MORE_ADDRESSES) {
        const oldest = more.shift() as string
        this.unlinkAddress(oldest, e)
        this.released(oldest)
      }
    }
    this.byAddress.set(r.address, e)
    return e
  }

  /**
   * The address's frames revealed a serial number: the beacon takes the serial as identity
   * without a gone/found pair. If another entry already has that serial, the two merge.
   */
  private promote(e: Entry, serial: string): Entry {
    const other = this.byId.get(serial)
    if (other === undefined) {
      if (this.byId.get(e.id) === e) this.byId.delete(e.id)
      e.id = serial
      this.byId.set(serial, e)
      return e
    }
    for (const a of [e.home, ...(e.more ?? [])]) {
      if (this.byAddress.get(a) === e) {
        this.byAddress.set(a, other)
        if (a !== other.home && !(other.more?.includes(a) ?? false)) (other.more ??= []).push(a)
      }
    }
    if (this.byId.get(e.id) === e) this.byId.delete(e.id)
    this.absorbed(e)
    // The alias was already announced: carry that over instead of announcing again.
    if (e.reported && !other.reported) {
      other.reported = true
      other.matched = true
    }
    return other
  }

  /** Forgets `e`; returns the addresses it was linked to. */
  remove(e: Entry): string[] {
    if (this.byId.get(e.id) === e) this.byId.delete(e.id)
    const addresses = e.more === undefined ? [e.home] : [e.home, ...e.more]
    for (const a of addresses) this.unlinkAddress(a, e)
    return addresses
  }

  /** Forgets everything. */
  clear(): void {
    this.byId.clear()
    this.byAddress.clear()
  }

  private unlinkAddress(address: string, e: Entry): void {
    if (this.byAddress.get(address) === e) this.byAddress.delete(address)
  }
}
