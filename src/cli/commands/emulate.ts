/** `beaconkit emulate`: the cloud account interface on loopback, until Ctrl-C. */

import { DEFAULT_EMULATOR_ACCOUNT, startEmulator } from '../../emulator/emulator.js'
import type { Emulator } from '../../emulator/emulator.js'
import { InvalidOptionError } from '../../errors.js'
import { EXIT } from '../exit.js'
import { handleSignals } from '../../gateway/shutdown.js'
import { readPasswordFile } from '../../password-file.js'

/** Options of {@link runEmulate}, as parsed from the command line. */
export interface EmulateOptions {
  port: number
  host: string
  json: boolean
  email?: string
  passwordFile?: string
  /** Where the developer interface pushes sensor data and task events. */
  webhookUrl?: string
}

/** Starts the emulator, prints where it listens, and runs until SIGINT/SIGTERM. */
export async function runEmulate(options: EmulateOptions, out: { write(text: string): unknown } = process.stdout): Promise<number> {
  const custom = options.passwordFile !== undefined
  const password = custom ? await readPasswordFile(options.passwordFile as string) : DEFAULT_EMULATOR_ACCOUNT.password
  const email = options.email ?? DEFAULT_EMULATOR_ACCOUNT.email
  let emulator: Emulator
  try {
    emulator = await startEmulator({ port: options.port, host: options.host, accounts: [{ email, password }], ...(options.webhookUrl === undefined ? {} : { webhookUrl: options.webhookUrl }) })
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE') {
      throw new InvalidOptionError('invalid_option', `port ${options.port} on ${options.host} is in use; choose another with --port (0 picks a free one)`, { option: 'port', cause: error })
    }
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES') {
      throw new InvalidOptionError('invalid_option', `cannot listen on ${options.host}:${options.port} (${code}); check --host and --port`, { option: 'host', cause: error })
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
        `upload to it: beaconkit replay --demo --upload --cloud-url ${emulator.url} --email ${email} --password-file <file>\n` +
        `developer interface under ${emulator.url}/developers${options.webhookUrl === undefined ? '' : `, pushing to ${options.webhookUrl}`}\n` +
        'Ctrl-C stops it.\n',
    )
  }
  await stopped
  await emulator.close()
  if (options.json) out.write(`${JSON.stringify({ event: 'stopped', requests: emulator.requests })}\n`)
  else out.write(`cloud emulator stopped after ${emulator.requests} requests\n`)
  return EXIT.ok
}
