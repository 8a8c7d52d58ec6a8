/** How failures reach the user: one line on stderr and an exit code a script can branch on. */

import {
  AccountError,
  BeaconkitError,
  BluetoothUnavailableError,
  BroadcastKeyError,
  IdentityKeyError,
  InvalidOptionError,
  TemporaryFailureError,
} from '../errors.js'

/** Exit codes of `beaconkit` (also listed in the help). */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  bluetooth: 3,
  account: 4,
  /** EX_TEMPFAIL (sysexits.h): try again later (a port in use); systemd's units restart it. */
  temporary: 75,
} as const

/** Exit code for an error thrown by a command. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof InvalidOptionError || error instanceof BroadcastKeyError) return EXIT.usage
  if (error instanceof IdentityKeyError) return EXIT.usage
  if (error instanceof BluetoothUnavailableError) return EXIT.bluetooth
  if (error instanceof AccountError) return EXIT.account
  if (error instanceof TemporaryFailureError) return EXIT.temporary
  return EXIT.failure
}

/**
 * The one line printed for an error. SDK errors already say what to do and carry no
 * secret; anything else is unexpected, so its stack goes along to help a bug report.
 */
export function errorLine(error: unknown): string {
  if (error instanceof BeaconkitError) return `beaconkit: ${error.message} [${error.code}]`
  if (error instanceof Error) return `beaconkit: unexpected error: ${error.stack ?? error.message}`
  return `beaconkit: unexpected error: ${String(error)}`
}
