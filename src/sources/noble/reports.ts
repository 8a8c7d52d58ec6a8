/**
 * Per-packet facts that noble 1.9.2-26's GAP layer (lib/hci-socket/gap.js) loses, and the
 * packets it never reports.
 *
 * What gap.js does with each LE Advertising Report:
 * - it reports a connectable or scannable advertisement only together with a scan response,
 *   and once an address has sent one scan response (`hasScanResponse`), only scan responses
 *   trigger reports: when scan responses are lost (they are sent once per cycle, on one channel,
 *   and collide more), a beacon whose advertisements still arrive goes silent;
 * - it calls every PDU type but ADV_NONCONN_IND connectable, so ADV_SCAN_IND (scannable, not
 *   connectable) is reported as connectable, and so is its scan response;
 * - it never clears `localName` or `txPowerLevel`, so they ride along on later packets that did
 *   not carry them.
 *
 * Two ways to get the held-back advertisements: noble's `NOBLE_REPORT_ALL_HCI_EVENTS`, which
 * reports every packet separately (it is read from the process environment, so it changes
 * every noble instance in the process), or this: when a packet gap.js held back is followed by
 * another advertisement instead of its scan response, the held one is reported then, through
 * the same bindings path gap.js uses. Advertisement and scan response stay paired in one report
 * when both arrive, and only lost scan responses add reports. The held packet is reported one
 * advertising interval late, with its own RSSI. (The measurement behind the choice is in
 * BENCHMARKS.md, "noble and scan responses".)
 *
 * Listeners on hci.js's `leAdvertisingReport` run before (prepended) and after gap.js's own;
 * gap.js reports synchronously in between, so `current` describes the packet being reported.
 */

import type { NobleGapEntry, NobleHciBindingsLike, NobleHciLike } from './types.js'

/** Legacy advertising PDU types in an LE Advertising Report (Core Vol 4 Part E 7.7.65.2). */
const ADV_IND = 0x00
const ADV_DIRECT_IND = 0x01
const SCAN_RSP = 0x04
/** AD types: shortened and complete local name, TX power level. */
const AD_SHORT_NAME = 0x08
const AD_COMPLETE_NAME = 0x09
const AD_TX_POWER = 0x0a

/** What the packet(s) behind one noble report really carried. */
export interface PacketFacts {
  address: string
  /**
   * From the PDU type; undefined for a scan response whose advertisement was reported before (gap.js's value is
   * then right).
   */
  connectable: boolean | undefined
  /** The packet(s) carried a local name. */
  localName: boolean
  /** The packet(s) carried a TX power level. */
  txPowerLevel: boolean
}

/** Tracks the packets of one noble instance; see the file comment. */
export class ReportTracker {
  /** The packet being reported right now, while gap.js handles it. */
  current: PacketFacts | undefined
  private reportedByGap = false
  /** gap.js's per-address entry (a fresh object per packet) → facts of that packet, while gap.js holds it back. */
  private readonly held = new WeakMap<object, PacketFacts>()

  constructor(
    hci: NobleHciLike,
    private readonly bindings: NobleHciBindingsLike,
  ) {
    hci.prependListener('leAdvertisingReport', this.before)
    hci.on('leAdvertisingReport', this.after)
    bindings._gap?.on('discover', () => {
      this.reportedByGap = true
    })
  }

  private entry(address: string): NobleGapEntry | undefined {
    return this.bindings._gap?._discoveries?.[address] as NobleGapEntry | undefined
  }

  private readonly before = (
    status: number,
    type: number,
    address: string,
    _addressType: string,
    eir: Buffer,
  ): void => {
    const entry = this.entry(address)
    const heldFacts = entry === undefined ? undefined : this.held.get(entry)
    if (entry !== undefined && heldFacts !== undefined) {
      this.held.delete(entry)
      // Another advertisement instead of the scan response: report the held one before gap.js overwrites it.
      if (type !== SCAN_RSP) this.reportHeld(status, entry, heldFacts)
    }
    const facts = factsOf(address, type, eir)
    if (type === SCAN_RSP && heldFacts !== undefined) {
      facts.connectable = heldFacts.connectable
      facts.localName ||= heldFacts.localName
      facts.txPowerLevel ||= heldFacts.txPowerLevel
    }
    this.current = facts
    this.reportedByGap = false
  }

  private readonly after = (_status: number, type: number, address: string): void => {
    const facts = this.current
    this.current = undefined
    const entry = this.entry(address)
    if (entry === undefined || facts === undefined) return
    // A later scan response inherits the entry's flag: make it the PDU type's.
    if (facts.connectable !== undefined) entry.connectable = facts.connectable
    if (!this.reportedByGap && type !== SCAN_RSP) this.held.set(entry, facts)
  }

  private reportHeld(status: number, entry: NobleGapEntry, facts: PacketFacts): void {
    const onDiscover = this.bindings.onDiscover
    if (typeof onDiscover !== 'function') return
    this.current = facts
    onDiscover.call(
      this.bindings,
      status,
      entry.address,
      entry.addressType,
      facts.connectable ?? entry.connectable,
      entry.advertisement,
      entry.rssi,
      false,
    )
  }
}

function factsOf(address: string, type: number, eir: Buffer): PacketFacts {
  const facts: PacketFacts = {
    address,
    connectable: type === SCAN_RSP ? undefined : type === ADV_IND || type === ADV_DIRECT_IND,
    localName: false,
    txPowerLevel: false,
  }
  // Same bounds as gap.js's parser: a structure running past the end ends the data.
  for (let i = 0; i + 1 < eir.length;) {
    const length = eir[i]
    if (length < 1 || i + length + 1 > eir.length) break
    const adType = eir[i + 1]
    if (adType === AD_SHORT_NAME || adType === AD_COMPLETE_NAME) facts.localName = true
    else if (adType === AD_TX_POWER && length >= 2) facts.txPowerLevel = true
    i += length + 1
  }
  return facts
}
