// Entry point of the `beaconkit` command: parse, dispatch, and turn every failure into one
// clear line on stderr and an exit code. The commands live beside it.
import { createRequire } from 'node:module'
import { parseInvocation } from './args.js'
import type { ParsedInvocation } from './args.js'
import { EXIT, errorLine, exitCodeFor } from './exit.js'
import { helpText } from './help.js'
import { findCommand } from './commands/registry.js'
import { configuredOptions, flagArg } from './configured.js'
import type { Command } from './commands/command.js'
import type { LogFlags } from './command-line.js'
import { answerStream, noticeStream } from './log-setup.js'
import type { ModelOptions } from '../config/values.js'
import { LOG_FORMATS } from '../log/logger.js'
import { requestStop } from '../gateway/shutdown.js'

function version(): string {
  // Two levels up from both src/cli/ and dist/cli/ is the package root.
  const pkg = createRequire(import.meta.url)('../../package.json') as { version?: string }
  return pkg.version ?? 'unknown'
}

async function dispatch(invocation: ParsedInvocation): Promise<number> {
  if (invocation.run !== undefined) return invocation.run()
  const { parsed } = invocation
  if (parsed.command === 'version') {
    process.stdout.write(`beaconkit ${version()}\n`)
  } else {
    process.stdout.write(`${helpText(parsed.topic)}\n`)
  }
  return EXIT.ok
}

/** Why standard output failed, once it has (other than a reader that went away). */
let outputFailure: NodeJS.ErrnoException | undefined

async function main(argv: string[]): Promise<number> {
  // A reader that goes away (`beaconkit … | head`) is a normal way to stop, not a crash: the
  // command stops quietly as on SIGTERM (uploads still flushed) and exits 0, as `yes | head`
  // ends for the shell. Any other write error (a full disk, /dev/full) stops it the same way,
  // with one line on stderr and exit 1. Later write errors are the first one's echo.
  let stdoutGone = false
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (stdoutGone) return
    stdoutGone = true
    if (error.code !== 'EPIPE') {
      outputFailure = error
      process.stderr.write(
        `beaconkit: cannot write to standard output (${error.code ?? 'error'}: ` +
          `${describeWriteError(error)}); stopped\n`,
      )
    }
    if (!requestStop()) process.exit(outputFailure === undefined ? EXIT.ok : EXIT.failure)
  })
  const command = findCommand(argv[0] ?? '')
  let configured: ModelOptions | undefined
  try {
    // Warnings about the configuration are said once the log's format is known (the file may set it).
    const warnings: string[] = []
    try {
      const warn = (text: string): void => void warnings.push(text)
      configured =
        command === undefined ? undefined : await configuredOptions(command, argv.slice(1), process.env, warn)
    } finally {
      const notices = noticeStream(logFlags(command, argv.slice(1), configured), process.stderr, 'warn')
      for (const text of warnings) notices.write(`beaconkit: warning: ${text}\n`)
    }
    const code = await dispatch(parseInvocation(argv, configured))
    return outputFailure === undefined ? code : EXIT.failure
  } catch (error) {
    answerStream(logFlags(command, argv.slice(1), configured), process.stderr).write(`${errorLine(error)}\n`)
    return exitCodeFor(error)
  }
}

/**
 * The log format a command line asks for, read before (or without) its parse, for the lines the
 * entry point writes itself: the flag, else the config file or the environment. None for a
 * command without logs (`config check` answers in plain lines).
 */
function logFlags(
  command: Command | undefined,
  args: readonly string[],
  configured: ModelOptions | undefined,
): LogFlags | undefined {
  if (command?.options['log-format'] === undefined) return undefined
  const given = flagArg(args, 'log-format') ?? configured?.values['log-format'] ?? process.env.BEACONKIT_LOGGING_FORMAT
  const format = LOG_FORMATS.find((f) => f === given)
  return format === undefined ? undefined : { format }
}

/** The system's words for a write error, without the stack or the syscall. */
function describeWriteError(error: NodeJS.ErrnoException): string {
  if (error.code === 'ENOSPC') return 'no space left on device'
  return error.message.replace(/^[A-Z]+: /, '').replace(/, write$/, '')
}

const code = await main(process.argv.slice(2))
process.exitCode = code
// Everything is stopped and flushed by now; a handle a library forgot to close must not keep
// the command hanging.
setTimeout(() => process.exit(code), 2000).unref()
