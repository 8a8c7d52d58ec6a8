/**
 * One tracked device: its merged beacon and the range table's bookkeeping, in one object. A
 * gateway may track 10,000 beacons, and each object header, pointer and flag costs 10,000
 * times over: the merged fields live here rather than in an object of their own, the yes/no
 * states share one small integer, and the numbers that change on every packet sit in a shared
 * array (EntryNumbers) rather than in boxed fields.
 */
import type {
  BeaconFlags,
  BeaconReading,
  EddystoneInfo,
  FrameKind,
  MovingState,
  Proximity,
  SecureInfo,
} from '../reading.js'
import type { BeaconRecord, MergeState } from './record.js'
import { NUMBERS_PER_ENTRY } from './entry-numbers.js'
import type { EntryNumbers } from './entry-numbers.js'
import type { SampleWindow, SmoothingState } from './rssi-filter.js'
import type { AdapterTrack } from './adapter-tracks.js'

/** The version of an entry that was removed or merged into another: no payload mark matches it. */
export const DEAD = -2

const EMPTY_FRAMES: readonly FrameKind[] = Object.freeze([])

/** The latest version handed out, by any entry of any range table in this process. */
let latestVersion = 0

/**
 * A version no entry has had before: versions are unique across entries (and range tables), so
 * a consumer that remembers one by beacon id (the MQTT feed, versionOf()) cannot mistake a new
 * entry of the same id, or another scanner's, for the one it saw.
 */
export function nextVersion(): number {
  return ++latestVersion
}

const REPORTED = 1
const MATCHED = 2
const LEFT = 4
const SETTLING = 8
const SETTLED = 16
const VENDOR_MAJOR_MINOR = 32
const VENDOR_POWER = 64
const VENDOR_SENSORS = 128
const RELEASED = 256

/**
 * A tracked beacon. The optional beacon fields are only declared: each is added when a merge
 * first sets it, so a plain iBeacon does not carry twenty empty slots (V8's slack tracking
 * sizes the object for the fields its first instances grew).
 */
export class Entry implements BeaconRecord, MergeState, SmoothingState {
  id: string
  /** The latest reading's address (see {@link Entry.home} for the one it is indexed by). */
  address: string
  rssi: number
  frames: FrameKind[] = EMPTY_FRAMES as FrameKind[]
  firstSeen: number
  /** Trimmed-mean smoothing's samples. */
  window: SampleWindow | undefined = undefined
  /** Where lastSeen, timestamp, smoothed and weight live (see EntryNumbers). */
  private readonly numbers: EntryNumbers
  private readonly base: number
  /** The address the entry was created for; {@link Entry.more} holds further linked ones. */
  home: string
  /** Further addresses linked to this beacon (rare: address rotation, shared beaconIDs). */
  more: string[] | undefined = undefined
  confirmedSerial: string | undefined = undefined
  /**
   * Goes up whenever merging a reading changed the beacon (or its merge state): a payload
   * merged at this version would change nothing if merged again (ScanDecoder). {@link DEAD}
   * once the entry is no longer tracked. Unique across entries ({@link nextVersion}).
   */
  version = nextVersion()
  /** Packets taken for this beacon (its snapshots carry it: packetsHeard()). */
  packets = 0
  /** Place in the range table's ExpiryHeap; -1 while not queued. */
  heapIndex = -1
  private bits = 0

  declare serialNumber?: string
  declare proximityUUID?: string
  declare major?: number
  declare minor?: number
  declare beaconID?: string
  declare accuracy?: number
  declare proximity?: Proximity
  declare temperature?: number | null
  declare light?: number | null
  declare movingState?: MovingState
  declare moving?: boolean
  declare accelerometerCount?: number
  declare batteryLevel?: number
  declare hardwareModelName?: string
  declare firmwareVersion?: string
  declare measuredPower?: number
  declare transmitPower?: number
  declare transmitPowerDbm?: number
  declare advertisingInterval?: number
  declare secure?: SecureInfo
  declare flags?: BeaconFlags
  declare eddystone?: EddystoneInfo
  declare unknownModel?: true
  declare irk?: string
  /**
   * Per-adapter RSSI, added by the first packet that names its adapter: beacons heard through
   * a single unnamed source never grow the field.
   */
  declare tracks?: AdapterTrack[]

  /** A fresh entry for identity `id`, first heard with reading `r` at `now`. */
  constructor(id: string, r: Readonly<BeaconReading>, now: number, numbers: EntryNumbers) {
    this.id = id
    this.address = r.address
    this.rssi = r.rssi
    this.firstSeen = now
    this.home = r.address
    this.numbers = numbers
    const base = numbers.take()
    this.base = base
    const v = numbers.values
    v[base] = now
    v[base + 1] = r.timestamp
    v[base + 2] = Number.NaN
    v[base + 3] = 0
  }

  /** Gives the numbers' slot back (once); the entry must not be read afterwards. */
  release(): void {
    if ((this.bits & RELEASED) !== 0) return
    this.bits |= RELEASED
    this.numbers.give(this.base)
  }

  /** The entry's slot among the table's (slotOf()): stable while tracked, reused once released. */
  get slot(): number {
    return this.base / NUMBERS_PER_ENTRY
  }

  /** ms, clock time of the latest packet. */
  get lastSeen(): number {
    return this.numbers.values[this.base]
  }
  set lastSeen(t: number) {
    this.numbers.values[this.base] = t
  }

  /** The latest packet's own timestamp. */
  get timestamp(): number {
    return this.numbers.values[this.base + 1]
  }
  set timestamp(t: number) {
    this.numbers.values[this.base + 1] = t
  }

  /** RSSI smoothing state (the scanner's RssiFilter works on it). */
  get smoothed(): number {
    return this.numbers.values[this.base + 2]
  }
  set smoothed(dbm: number) {
    this.numbers.values[this.base + 2] = dbm
  }

  get weight(): number {
    return this.numbers.values[this.base + 3]
  }
  set weight(w: number) {
    this.numbers.values[this.base + 3] = w
  }

  /** Announced as found (and not gone since). */
  get reported(): boolean {
    return (this.bits & REPORTED) !== 0
  }
  set reported(on: boolean) {
    this.set(REPORTED, on)
  }

  /** Passed the identity filter (checked until it does). */
  get matched(): boolean {
    return (this.bits & MATCHED) !== 0
  }
  set matched(on: boolean) {
    this.set(MATCHED, on)
  }

  /** Left by hysteresis: the next 'found' starts a new visit. */
  get left(): boolean {
    return (this.bits & LEFT) !== 0
  }
  set left(on: boolean) {
    this.set(LEFT, on)
  }

  /** Waiting out identitySettleMs: in the settle queue. */
  get settling(): boolean {
    return (this.bits & SETTLING) !== 0
  }
  set settling(on: boolean) {
    this.set(SETTLING, on)
  }

  /** The settle window has passed: no more waiting for a serial number. */
  get settled(): boolean {
    return (this.bits & SETTLED) !== 0
  }
  set settled(on: boolean) {
    this.set(SETTLED, on)
  }

  get vendorMajorMinor(): boolean {
    return (this.bits & VENDOR_MAJOR_MINOR) !== 0
  }
  set vendorMajorMinor(on: boolean) {
    this.set(VENDOR_MAJOR_MINOR, on)
  }

  get vendorPower(): boolean {
    return (this.bits & VENDOR_POWER) !== 0
  }
  set vendorPower(on: boolean) {
    this.set(VENDOR_POWER, on)
  }

  get vendorSensors(): boolean {
    return (this.bits & VENDOR_SENSORS) !== 0
  }
  set vendorSensors(on: boolean) {
    this.set(VENDOR_SENSORS, on)
  }

  private set(bit: number, on: boolean): void {
    this.bits = on ? this.bits | bit : this.bits & ~bit
  }
}
