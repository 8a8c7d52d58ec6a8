// Entry point of the `beaconkit` command: parse, dispatch, and turn every failure into one
// clear line on stderr and an exit code. The commands live beside it.
import { createRequire } from 'node:module'
import { parseCommandLine } from './args.js'
import type { ParsedCommand } from './args.js'
import { EXIT, errorLine, exitCodeFor } from './exit.js'
import { helpText } from './help.js'
import { runKeysCheck } from './keys.js'
import { runCommand } from './commands.js'
import { runLocate } from './locate.js'
import { requestStop } from './shutdown.js'

function version(): string {
  // Two levels up from both src/cli/ and dist/cli/ is the package root.
  const pkg = createRequire(import.meta.url)('../../package.json') as { version?: string }
  return pkg.version ?? 'unknown'
}

async function dispatch(parsed: ParsedCommand): Promise<number> {
  switch (parsed.command) {
    case 'help':
      process.stdout.write(`${helpText(parsed.topic)}\n`)
      return EXIT.ok
    case 'version':
      process.stdout.write(`beaconkit ${version()}\n`)
      return EXIT.ok
    case 'keys-check':
      return runKeysCheck(parsed, process.stdout)
    default:
      return runCommand(parsed)
  }
}

async function main(argv: string[]): Promise<number> {
  // A reader that goes away (`beaconkit … | head`) is a normal way to stop, not a crash: the
  // command stops as on SIGTERM (uploads still flushed); later write errors are its echo.
  let stdoutGone = false
  process.stdout.on('error', (error: NodeJS.ErrnoException) => {
    if (stdoutGone) return
    if (error.code !== 'EPIPE') throw error
    stdoutGone = true
    if (!requestStop()) process.exit(EXIT.ok)
  })
  try {
    // `locate` parses its own options (src/cli/locate.ts), so it stays out of the shared parser.
    if (argv[0] === 'locate') return await runLocate(argv.slice(1))
    return await dispatch(parseCommandLine(argv))
  } catch (error) {
    process.stderr.write(`${errorLine(error)}\n`)
    return exitCodeFor(error)
  }
}

const code = await main(process.argv.slice(2))
process.exitCode = code
// Everything is stopped and flushed by now; a handle a library forgot to close must not keep
// the command hanging.
setTimeout(() => process.exit(code), 2000).unref()
