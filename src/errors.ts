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
  | 'redirected'
  | 'response_too_large'

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
  | 'adapter_lost'
  /** BluezSource: no bluetoothd (`org.bluez`) on the D-Bus system bus, or the bus itself is unreachable. */
  | 'bluez_not_running'

/** The BLE stack could not be started; the message says what to check. */
export class BluetoothUnavailableError extends BeaconkitError<BluetoothUnavailableCode> {}

/**
 * Reasons an option, argument or input file is refused: `not_a_file` for a FIFO or device
 * where a plain file must be (a keys or password file), `not_a_recording` for an input with
 * no valid advertisement line.
 */
export type InvalidOptionCode =
  | 'invalid_option'
  | 'file_not_found'
  | 'unreadable_file'
  | 'unwritable_file'
  | 'not_a_file'
  | 'not_a_recording'
  | 'invalid_config'
  | 'config_not_private'

/** An option, argument or input file is not usable. */
export class InvalidOptionError extends BeaconkitError<InvalidOptionCode> {
  /** The option or argument at fault. */
  readonly option?: string

  constructor(code: InvalidOptionCode, message: string, details: { option?: string; cause?: unknown } = {}) {
    super(code, message, { cause: details.cause })
    if (details.option !== undefined) this.option = details.option
  }
}

/** Reasons a command could not start now, though nothing it was given is wrong: `port_in_use`. */
export type TemporaryFailureCode = 'port_in_use'

/**
 * A transient failure: the same command may well succeed a little later (another process still
 * holds the port). The CLI exits 75 (EX_TEMPFAIL) for it, a status systemd restarts, where a bad
 * option or config (exit 2) is left failed.
 */
export class TemporaryFailureError extends BeaconkitError<TemporaryFailureCode> {}

/** Reasons a durable upload queue cannot be used. */
export type QueueErrorCode = 'queue_locked' | 'seq_exhausted'

/** The process holding a queue directory's lock, as its lock file says. */
export interface QueueLockHolder {
  pid: number
  hostname: string
}

/**
 * A durable upload queue refused to work: `queue_locked` (another process holds the
 * directory; `holder` says which) or `seq_exhausted` (sequence numbers ran out).
 */
export class QueueError extends BeaconkitError<QueueErrorCode> {
  /** For `queue_locked`: who holds the lock. */
  readonly holder?: QueueLockHolder
  /** The queue directory. */
  readonly dir: string

  constructor(
    code: QueueErrorCode,
    message: string,
    details: { dir: string; holder?: QueueLockHolder; cause?: unknown },
  ) {
    super(code, message, { cause: details.cause })
    this.dir = details.dir
    if (details.holder !== undefined) this.holder = details.holder
  }
}

/** Reasons one of several adapters (or every one of them) failed; see {@link AdapterError}. */
export type AdapterErrorCode = 'adapter_failed' | 'no_adapter_started'

/** What went wrong with one adapter of a combined source. */
export interface AdapterFailure {
  /** The adapter's name, e.g. `hci1`. */
  adapter: string
  error: Error
}

/**
 * One adapter of several failed (`adapter_failed`: the others scan on; `cause` is that
 * adapter's own error), or none of them could start (`no_adapter_started`: `failures` lists
 * each adapter's error).
 */
export class AdapterError extends BeaconkitError<AdapterErrorCode> {
  /** For `adapter_failed`: the adapter at fault. */
  readonly adapter?: string
  /** For `no_adapter_started`: every adapter's error, in the order the sources were given. */
  readonly failures?: readonly AdapterFailure[]

  constructor(
    code: AdapterErrorCode,
    message: string,
    details: { adapter?: string; failures?: readonly AdapterFailure[]; cause?: unknown } = {},
  ) {
    super(code, message, { cause: details.cause })
    if (details.adapter !== undefined) this.adapter = details.adapter
    if (details.failures !== undefined) this.failures = details.failures
  }
}

/** Reasons the MQTT publisher or the embedded broker cannot do its work. */
export type MqttErrorCode =
  'not_installed' | 'connection' | 'closed' | 'broker_failed' | 'queue' | 'publish_refused' | 'session_taken_over'

/**
 * MQTT trouble: mqtt.js or aedes missing, a broker refusing or unreachable, a publisher used after
 * close. Never carries the password.
 */
export class MqttError extends BeaconkitError<MqttErrorCode> {}

/** Why positioning left its worker thread. */
export type PositioningThreadErrorCode = 'positioning_thread_failed'

/** The positioning thread stopped (it could not start, or it crashed); positions go on without it. */
export class PositioningThreadError extends BeaconkitError<PositioningThreadErrorCode> {}

/**
 * Reasons a call to the developer interface failed. The spec's own error codes (part 7) map to
 * `system_busy` (-1), `server_error` (500), `parser_rejected` (704), `sns_required` (5010101),
 * `device_not_found` (5010107), `invalid_count` (5010108), `invalid_params` (5020601),
 * `invalid_sns` (5020610), `invalid_interval` (5020612), `invalid_hex` (5020613),
 * `invalid_threshold` (5020614–5020620) and `api_error` (any other non-zero `err_code`); the
 * rest are the transport's (no answer, a redirect, a non-JSON answer, …) and `sign_failed`
 * (the caller's `sign` hook threw).
 */
export type DeveloperApiErrorCode =
  | 'system_busy'
  | 'server_error'
  | 'parser_rejected'
  | 'sns_required'
  | 'device_not_found'
  | 'invalid_count'
  | 'invalid_params'
  | 'invalid_sns'
  | 'invalid_interval'
  | 'invalid_hex'
  | 'invalid_threshold'
  | 'api_error'
  | 'sign_failed'
  | Exclude<AccountErrorCode, 'insecure_url'>

/**
 * A call to the developer interface failed: the platform answered a non-zero `err_code`
 * (`errCode`, with the spec's meaning in `meaning`), or the call got no usable answer
 * (`errCode` absent). Never carries the AppSecret or a signature.
 */
export class DeveloperApiError extends BeaconkitError<DeveloperApiErrorCode> {
  /** HTTP status of the answer; 0 when there was none. */
  readonly status: number
  /** The envelope's `err_code`, when the platform sent one. */
  readonly errCode?: number
  /** What the spec (part 7) says `errCode` means, when it lists it. */
  readonly meaning?: string
  /** The platform's own message (`err_msg`, `errmsg`), scrubbed and cut to 200 characters. */
  readonly serverMessage?: string
  /** `err_info` (the parser's detail of a 704), scrubbed and cut to 500 characters. */
  readonly errInfo?: string
  /** Seconds the server asked us to wait (Retry-After), when it did. */
  readonly retryAfterSeconds?: number

  constructor(
    code: DeveloperApiErrorCode,
    message: string,
    details: {
      status?: number
      errCode?: number
      meaning?: string
      serverMessage?: string
      errInfo?: string
      retryAfterSeconds?: number
      cause?: unknown
    } = {},
  ) {
    super(code, message, { cause: details.cause })
    this.status = details.status ?? 0
    if (details.errCode !== undefined) this.errCode = details.errCode
    if (details.meaning !== undefined) this.meaning = details.meaning
    if (details.serverMessage !== undefined) this.serverMessage = details.serverMessage
    if (details.errInfo !== undefined) this.errInfo = details.errInfo
    if (details.retryAfterSeconds !== undefined) this.retryAfterSeconds = details.retryAfterSeconds
  }
}

/**
 * Reasons a webhook push was refused (see `createWebhookHandler`'s `onError`): `malformed`
 * (not JSON, or fields of the wrong type), `too_large`, `unverified` (the `verify` hook said no),
 * `encrypted` (an `encryptData` message and no `decrypt` hook), `decrypt_failed`,
 * `handler_failed` (`onData` / `onTaskEvent` rejected), `method_not_allowed` (not a POST),
 * `handler_timeout` (the handler did not finish within `handlerTimeoutMs`: 503) and
 * `unavailable` (the handler rejected with a `WebhookError` of this code, e.g. its downstream is
 * full: 503). A 503 tells the platform to push again later.
 */
export type WebhookErrorCode =
  | 'malformed'
  | 'too_large'
  | 'unverified'
  | 'encrypted'
  | 'decrypt_failed'
  | 'handler_failed'
  | 'method_not_allowed'
  | 'handler_timeout'
  | 'unavailable'

/** A webhook push was refused; the platform gets a non-2xx answer and pushes it again (platform docs 6.4). */
export class WebhookError extends BeaconkitError<WebhookErrorCode> {
  /** The status answered to the platform. */
  readonly status: number
  /** The push's `msgId`, when it could be read. */
  readonly msgId?: string

  constructor(code: WebhookErrorCode, message: string, details: { status: number; msgId?: string; cause?: unknown }) {
    super(code, message, { cause: details.cause })
    this.status = details.status
    if (details.msgId !== undefined) this.msgId = details.msgId
  }
}

/**
 * Reasons an identity resolving key or an IRK file is refused: `malformed` (a line that is not
 * `<name> <32 hex digits>`, an all-zero key), `invalid_name`, `duplicate_name`, `duplicate_key`
 * (one key under two names: an address would resolve to either), `too_many_keys` and
 * `not_private` (the file can be read by group or others).
 */
export type IdentityKeyErrorCode =
  'malformed' | 'invalid_name' | 'duplicate_name' | 'duplicate_key' | 'too_many_keys' | 'not_private'

/**
 * An identity resolving key (IRK) or an IRK file could not be used. The message names the file
 * and line, never a key: a key lets whoever holds it follow the device.
 */
export class IdentityKeyError extends BeaconkitError<IdentityKeyErrorCode> {
  /** The 1-based line of the IRK file at fault, when there is one. */
  readonly line?: number

  constructor(code: IdentityKeyErrorCode, message: string, details: { line?: number } = {}) {
    super(code, message)
    if (details.line !== undefined) this.line = details.line
  }
}
