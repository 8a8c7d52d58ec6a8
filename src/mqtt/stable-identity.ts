/**
 * Whether a beacon has a stable identity: the one rule behind every guard against made-up ids
 * (Home Assistant discovery, the fleet's admission when its table is full). A stable identity is
 * a serial number, an iBeacon beaconID or an Eddystone UID; never a device known only by its
 * Bluetooth address, which the scanner falls back to when nothing else is known and which a
 * random address changes. Who asks knows more or less of the beacon, so the rule is asked three
 * ways, each named for what it is judged from:
 *
 * - {@link hasStableIdentity}: a gateway's decoded beacon, whose fields say what its id is;
 * - {@link isStableIdentity}: an id alone (the fleet sees only the ids in RSSI batches), judged
 *   by its shape: strict, since anyone on the broker can make one up;
 * - {@link isAddressId}: a gateway's retained discovery config of an earlier run (again an id
 *   alone), kept unless it is a bare address: lenient, since the gateway announced it under
 *   {@link hasStableIdentity} once already (an Eddystone UID beacon keeps its address as id) and
 *   dropping it would lose the entities' history. The fleet adopts by {@link isStableIdentity}.
 *
 * Shared by mqtt/ and fleet/ (below both in the layering), so each judges by the same words.
 */

/** Serial numbers as the scanner names them: 12 upper-case hex digits (docs/protocol.md). */
const SERIAL = /^[0-9A-F]{12}$/
/** An iBeacon beaconID, `UUID|major|minor`. */
const BEACON_ID = /^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}\|\d{1,5}\|\d{1,5}$/
/** An Eddystone UID (10-byte namespace and 6-byte instance, 32 hex digits), should a gateway name beacons by it. */
const EDDYSTONE_UID = /^[0-9A-Fa-f]{32}$/
const ADDRESS = /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/i
/** A device resolved with an identity resolving key, `irk:<name>` (the IRK file's name rule). */
const IRK_ID = /^irk:([A-Za-z0-9_.-]{1,64})$/

/** The key's name of an `irk:<name>` id, or undefined for any other id. */
export function irkNameOf(id: string): string | undefined {
  return IRK_ID.exec(id)?.[1]
}

/**
 * True when the decoded beacon's id is a stable identity: its serial number or iBeacon beaconID,
 * an address that carries an Eddystone UID, or `irk:<name>` resolved with an identity resolving
 * key. Never a device known only by its (random) address.
 */
export function hasStableIdentity(b: {
  id: string
  serialNumber?: string
  beaconID?: string
  eddystone?: { uid?: unknown }
  irk?: string
}): boolean {
  return (
    b.id === b.serialNumber ||
    b.id === b.beaconID ||
    b.eddystone?.uid !== undefined ||
    // Resolved with a key of this gateway's own IRK file: the user named the device.
    (b.irk !== undefined && b.id === `irk:${b.irk}`)
  )
}

/**
 * Whether a beacon id, with nothing else known, is a stable identity: a serial number, an iBeacon
 * beaconID or an Eddystone UID. A Bluetooth address is not: the batch does not say whether it is
 * public, and random addresses change. Neither is any id of another form. An `irk:<name>` id is
 * only for a name `holds` says the fleet's own IRK file has: anyone on the broker can make one up.
 */
export function isStableIdentity(id: string, holds?: (name: string) => boolean): boolean {
  if (SERIAL.test(id) || BEACON_ID.test(id) || EDDYSTONE_UID.test(id)) return true
  const name = holds === undefined ? undefined : irkNameOf(id)
  return name !== undefined && holds !== undefined && holds(name)
}

/** True for an id that is a bare Bluetooth address: a device known by nothing else (often a random address). */
export function isAddressId(id: string): boolean {
  return ADDRESS.test(id)
}
