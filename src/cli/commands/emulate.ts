/** `beaconkit emulate`: the cloud account interface on loopback, until Ctrl-C. */

import { DEFAULT_EMULATOR_ACCOUNT, startEmulator } from '../../emulator/emulator.js'
import type { Emulator } from '../../emulator/emulator.js'
import { InvalidOptionError, TemporaryFailureError } from '../../errors.js'
import { EXIT } from '../exit.js'
import { handleSignals } from '../../gateway/shutdown.js'
import { readPasswordFile } from '../../password-file.js'
import { bool, parseLog, positionals, str, tcpPort } from '../arg-values.js'
import type { LogFlags } from '../command-line.js'
import { openLog } from '../log-setup.js'
import { defineCommand, optional } from './command.js'
import { COMMON_TAIL, LOG_OPTION_SPECS } from './view-options.js'

/** Options of {@link runEmulate}, as parsed from the command line. */
export interface EmulateOptions {
  port: number
  host: string
  json: boolean
  email?: string
  passwordFile?: string
  /** Where the developer interface pushes sensor data and task events. */
  webhookUrl?: string
  /** `--log-level`, `--log-format`. */
  log?: LogFlags
}

/** Starts the emulator, prints where it listens, and runs until SIGINT/SIGTERM. */
export async function runEmulate(
  options: EmulateOptions,
  out: { write(text: string): unknown } = process.stdout,
): Promise<number> {
  const log = await openLog(options.log)
  const custom = options.passwordFile !== undefined
  const password = custom ? await readPasswordFile(options.passwordFile as string) : DEFAULT_EMULATOR_ACCOUNT.password
  const email = options.email ?? DEFAULT_EMULATOR_ACCOUNT.email
  let emulator: Emulator
  try {
    emulator = await startEmulator({
      port: options.port,
      host: options.host,
      accounts: [{ email, password }],
      ...(options.webhookUrl === undefined ? {} : { webhookUrl: options.webhookUrl }),
    })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE') {
      const where = `port ${options.port} on ${options.host}`
      throw new TemporaryFailureError(
        'port_in_use',
        `${where} is in use; choose another with --port (0 picks a free one)`,
        { cause: error },
      )
    }
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES') {
      throw new InvalidOptionError(
        'invalid_option',
        `cannot listen on ${options.host}:${options.port} (${code}); check --host and --port`,
        { option: 'host', cause: error },
      )
    }
    throw error
  }
  // Listen for Ctrl-C before saying we listen: whoever reads that line may signal at once.
  const stopped = new Promise<void>((resolve) => {
    const remove = handleSignals(() => {
      remove()
      resolve()
    })
  })
  if (options.json) {
    out.write(`${JSON.stringify({ event: 'listening', url: emulator.url, port: emulator.port, email })}\n`)
  } else {
    // The default password is public (it is in the help); a password from a file is not printed.
    const pw = custom ? 'password from the file' : `password ${password}`
    out.write(
      `cloud emulator listening on ${emulator.url}\n` +
        `account ${email} (${pw})\n` +
        `upload to it: beaconkit replay --demo --upload --cloud-url ${emulator.url} --email ${email} ` +
        `--password-file <file>\n` +
        `developer interface under ` +
        `${emulator.url}/developers${options.webhookUrl === undefined ? '' : `, pushing to ${options.webhookUrl}`}\n` +
        'Ctrl-C stops it.\n',
    )
  }
  log.info('cloud emulator listening', { url: emulator.url })
  await stopped
  await emulator.close()
  log.info('cloud emulator stopped', { requests: emulator.requests })
  if (options.json) out.write(`${JSON.stringify({ event: 'stopped', requests: emulator.requests })}\n`)
  else out.write(`cloud emulator stopped after ${emulator.requests} requests\n`)
  return EXIT.ok
}

/** What `beaconkit emulate` parses to. */
export type EmulateCommand = { command: 'emulate' } & EmulateOptions

/** `beaconkit emulate`: its options, help, parser and runner (registered in registry.ts). */
export const emulateCommand = defineCommand({
  name: 'emulate',
  overview: [['emulate', 'start a local emulator of the cloud account interface']],
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    json: { type: 'boolean' },
    email: { type: 'string' },
    'password-file': { type: 'string' },
    'webhook-url': { type: 'string' },
    ...LOG_OPTION_SPECS,
  },
  help: `Usage: beaconkit emulate [options]

Starts a local emulator of the cloud account interface, for trying \`--upload\` and
AccountClient without a real account, and of the developer interface (paths under
/developers, for DeveloperClient; docs/developer-interface.md). Runs until Ctrl-C.

  --port <port>          TCP port (default 8080; 0 picks a free one)
  --host <host>          address to listen on (default 127.0.0.1)
  --email <address>      the emulated account (default demo@example.com)
  --password-file <file> its password (default: demo-password)
  --json                 print the listening address as a JSON line
  --webhook-url <url>    push task events of the developer interface to this
                         receiver (e.g. \`beaconkit webhook\`'s URL)
${COMMON_TAIL}`,
  parse(values, pos): EmulateCommand {
    const command = 'emulate'
    positionals(pos, 0, 'beaconkit emulate [options]', command)
    const port = tcpPort(values, 'port', command) ?? 8080
    return {
      command,
      port,
      host: str(values, 'host') ?? '127.0.0.1',
      json: bool(values, 'json'),
      ...optional('email', str(values, 'email')),
      ...optional('passwordFile', str(values, 'password-file')),
      ...optional('webhookUrl', str(values, 'webhook-url')),
      ...optional('log', parseLog(values, command)),
    }
  },
  run: (parsed) => runEmulate(parsed),
})
