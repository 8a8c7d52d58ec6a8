/**
 * Every error the SDK raises on purpose: a class with a stable `code` to branch on and a
 * message that says what to do. Messages never contain keys, passwords or credentials.
 */

/** Base class of all beaconkit errors. */
export class BeaconkitError<Code extends string = string> extends Error {
  /** Stable, machine-readable reason; safe to switch on across versions. */
  readonly code: Code

  constructor(code: Code, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.code = code
    this.name = new.target.name
  }
}

/** Reasons a broadcast key string or a keyring entry is refused. */
export type BroadcastKeyErrorCode = 'malformed' | 'digest_mismatch' | 'expired' | 'duplicate_key_id'

/** A broadcast key could not be used. The message names the problem, never the key. */
export class BroadcastKeyError extends BeaconkitError<BroadcastKeyErrorCode> {
  /** For `expired`: when the key stopped being valid. */
  readonly expiresAt?: Date
  /** The key id, when it could be read (key ids are public: every broadcast carries one). */
  readonly keyId?: string

  constructor(
    code: BroadcastKeyErrorCode,
    message: string,
    details: { expiresAt?: Date; keyId?: string; cause?: unknown } = {},
  ) {
    super(code, message, { cause: details.cause })
    if (details.expiresAt !== undefined) this.expiresAt = details.expiresAt
    if (details.keyId !== undefined) this.keyId = details.keyId
  }
}

/** Reasons a call to the account interface failed. */
export type AccountErrorCode =
  | 'unauthorized'
  | 'not_found'
  | 'bad_request'
  | 'rate_limited'
  | 'server'
  | 'network'
  | 'timeout'
  | 'invalid_response'
  | 'aborted'
  | 'insecure_url'

/** A call to the account interface failed. Never carries the password. */
export class AccountError extends BeaconkitError<AccountErrorCode> {
  /** HTTP status when the server answered; 0 when it did not. */
  readonly status: number
  /** Seconds the server asked us to wait (Retry-After), when it did. */
  readonly retryAfterSeconds?: number

  constructor(
    code: AccountErrorCode,
    message: string,
    details: { status?: number; retryAfterSeconds?: number; cause?: unknown } = {},
  ) {
    super(code, message, { cause: details.cause })
    this.status = details.status ?? 0
    if (details.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds
  }
}

/** Reasons no Bluetooth adapter can be used. */
export type BluetoothUnavailableCode =
  | 'not_installed'
  | 'no_adapter'
  | 'permission_denied'
  | 'unsupported'
  | 'unauthorized'
  | 'powered_off'
  | 'start_failed'

/** The BLE stack could not be started; the message says what to check. */
export class BluetoothUnavailableError extends BeaconkitError<BluetoothUnavailableCode> {}

/** An option, argument or input file is not usable. */
export class InvalidOptionError extends BeaconkitError<'invalid_option' | 'file_not_found' | 'unreadable_file' | 'unwritable_file'> {
  /** The option or argument at fault. */
  readonly option?: string

  constructor(
    code: 'invalid_option' | 'file_not_found' | 'unreadable_file' | 'unwritable_file',
    message: string,
    details: { option?: string; cause?: unknown } = {},
  ) {
    super(code, message, { cause: details.cause })
    if (details.option !== undefined) this.option = details.option
  }
}

/** Reasons the MQTT publisher or the embedded broker cannot do its work. */
export type MqttErrorCode = 'not_installed' | 'connection' | 'closed' | 'broker_failed'

/** MQTT trouble: mqtt.js or aedes missing, a broker refusing or unreachable, a publisher used after close. Never carries the password. */
export class MqttError extends BeaconkitError<MqttErrorCode> {}
