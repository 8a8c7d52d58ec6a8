/** How failures reach the user: one line on stderr and an exit code a script can branch on. */

import { AccountError, BeaconkitError, BluetoothUnavailableError, BroadcastKeyError, InvalidOptionError } from '../errors.js'

/** Exit codes of `beaconkit` (also listed in the help). */
export const EXIT = {
  ok: 0,
  failure: 1,
  usage: 2,
  bluetooth: 3,
  account: 4,
  /** A command that is not available in this build. */
  unavailable: 5,
} as const

/** Exit code for an error thrown by a command. */
export function exitCodeFor(error: unknown): number {
  if (error instanceof InvalidOptionError || error instanceof BroadcastKeyError) return EXIT.usage
  if (error instanceof BluetoothUnavailableError) return EXIT.bluetooth
  if (error instanceof AccountError) return EXIT.account
  if (error instanceof CommandUnavailableError) return EXIT.unavailable
  return EXIT.failure
}

/** A command whose machinery is missing from this build. */
export class CommandUnavailableError extends Error {
  constructor(command: string, missing: string) {
    super(`\`beaconkit ${command}\` is not available in this build: ${missing} is missing`)
    this.name = 'CommandUnavailableError'
  }
}

/**
 * The one line printed for an error. SDK errors already say what to do and carry no
 * secret; anything else is unexpected, so its stack goes along to help a bug report.
 */
export function errorLine(error: unknown): string {
  if (error instanceof BeaconkitError) return `beaconkit: ${error.message} [${error.code}]`
  if (error instanceof CommandUnavailableError) return `beaconkit: ${error.message}`
  if (error instanceof Error) return `beaconkit: unexpected error: ${error.stack ?? error.message}`
  return `beaconkit: unexpected error: ${String(error)}`
}
