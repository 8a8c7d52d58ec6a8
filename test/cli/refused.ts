// The InvalidOptionError a command line is refused with (shared by the argument tests).
import { parseCommandLine } from '../../src/cli/args.js'
import { InvalidOptionError } from '../../src/errors.js'

/** Parses `argv` and returns the InvalidOptionError it is refused with; fails when it is accepted. */
export function refused(argv: string[]): InvalidOptionError {
  try {
    parseCommandLine(argv)
  } catch (e) {
    if (e instanceof InvalidOptionError) return e
    throw e
  }
  throw new Error(`no error for ${argv.join(' ')}`)
}
