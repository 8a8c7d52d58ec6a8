/**
 * beaconkit — public exports only. Importing this module never loads noble: the BLE stack
 * starts only inside `NobleSource.start()`.
 */

export type { Advertisement, ServiceData } from './advertisement.js'
export type {
  Beacon,
  BeaconFlags,
  BeaconReading,
  EddystoneEid,
  EddystoneEncryptedTlm,
  EddystoneInfo,
  EddystonePlainTlm,
  EddystoneUid,
  EddystoneUrl,
  FrameKind,
  MovingState,
  Proximity,
  RejectReason,
  SecureInfo,
} from './reading.js'
export {
  AccountError,
  BeaconkitError,
  BluetoothUnavailableError,
  BroadcastKeyError,
  InvalidOptionError,
} from './errors.js'
export type { AccountErrorCode, BluetoothUnavailableCode, BroadcastKeyErrorCode } from './errors.js'
export { RealClock, VirtualClock } from './clock.js'
export type { CancelTimer, Clock } from './clock.js'
export type { AdapterState, AdvertisementSource, AdvertisementSourceEvents } from './sources/source.js'
export {
  decodeEddystone,
  encodeEddystoneEid,
  encodeEddystoneTlm,
  encodeEddystoneUid,
  encodeEddystoneUrl,
} from './frames/eddystone.js'
export type { EddystoneSealedTlm } from './frames/eddystone.js'
export { BroadcastKey, parseBroadcastKey } from './secure/broadcast-key.js'
export type { ParseBroadcastKeyOptions } from './secure/broadcast-key.js'
export { Keyring } from './secure/keyring.js'
export type { SecureStats } from './secure/open.js'
