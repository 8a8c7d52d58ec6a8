/** `beaconkit record <file>`: advertisements to JSONL, with a live counter, until Ctrl-C or --duration. */

import { constants } from 'node:fs'
import { access, stat } from 'node:fs/promises'
import { dirname, resolve } from 'node:path'
import type { Advertisement } from '../../advertisement.js'
import { RealClock } from '../../clock.js'
import { InvalidOptionError } from '../../errors.js'
import { IdentityKeyring } from '../../secure/identity-keyring.js'
import { IdentityResolver } from '../../secure/identity-resolver.js'
import { AdvertisementRecorder } from '../../sources/recorder.js'
import { NobleSource } from '../../sources/noble/noble.js'
import { SimulatedSource } from '../../sources/simulated.js'
import type { AdvertisementSource } from '../../sources/source.js'
import { EXIT } from '../exit.js'
import { siteScenario } from '../../sources/scenario.js'
import { handleSignals } from '../../gateway/shutdown.js'
import { bool, durationMs, fail, hci, parseLog, positionals, seed, str } from '../arg-values.js'
import type { LogFlags } from '../command-line.js'
import { openLog } from '../log-setup.js'
import { ConditionLog } from '../../log/condition-log.js'
import { adapterCondition } from '../adapter-condition.js'
import { defineCommand, optional } from './command.js'
import { COMMON_TAIL, LOG_OPTION_SPECS } from './view-options.js'

/** Options of {@link runRecord}, as parsed from the command line. */
export interface RecordOptions {
  file: string
  hci?: number
  json: boolean
  durationMs?: number
  simulate: boolean
  seed: number
  /** Overwrite an existing file (without it, an existing recording is refused). */
  force: boolean
  /** `--log-level`, `--log-format`. */
  log?: LogFlags
  /** `--irk-file`: count the phones and watches heard by name (the recording keeps the raw addresses). */
  irkFile?: string
}

/** Where the counter goes. */
export interface RecordStreams {
  stdout: { write(text: string): unknown; isTTY?: boolean }
}

/** Distinct addresses are counted up to this many; random-address phones must not grow memory forever. */
const MAX_COUNTED_DEVICES = 100_000

/**
 * Fails before anything starts when the recording cannot be created, or would replace one:
 * a recording of a site is hard to make again, so overwriting takes --force.
 */
async function checkWritable(file: string, force: boolean): Promise<void> {
  const target = resolve(file)
  const existing = await stat(target).catch(() => undefined)
  if (existing?.isDirectory() === true)
    throw new InvalidOptionError('unwritable_file', `${file} is a folder; give a file name such as site.jsonl`, {
      option: 'file',
    })
  if (existing !== undefined && !force) {
    throw new InvalidOptionError(
      'unwritable_file',
      `${file} already exists; give another file name, or add --force to overwrite it`,
      { option: 'file' },
    )
  }
  try {
    await access(dirname(target), constants.W_OK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    const why = code === 'ENOENT' ? 'does not exist' : 'is not writable'
    throw new InvalidOptionError('unwritable_file', `cannot write ${file}: the folder ${dirname(target)} ${why}`, {
      option: 'file',
      cause: error,
    })
  }
}

/** Records until stopped; returns the exit code. */
export async function runRecord(
  options: RecordOptions,
  streams: RecordStreams = { stdout: process.stdout },
): Promise<number> {
  await checkWritable(options.file, options.force)
  // Read before anything starts: a readable or bad IRK file ends the command with exit 2.
  const resolver =
    options.irkFile === undefined ? undefined : new IdentityResolver(await IdentityKeyring.fromFile(options.irkFile))
  const named = new Set<string>()
  const log = await openLog(options.log)
  const source: AdvertisementSource = options.simulate
    ? new SimulatedSource({ devices: siteScenario(12, options.seed), seed: options.seed })
    : new NobleSource(options.hci === undefined ? {} : { hciDeviceId: options.hci })
  const clock = new RealClock()
  const tty = !options.json && streams.stdout.isTTY === true
  const devices = new Set<string>()
  let adverts = 0
  // What arrives while start() is still running, before the recorder exists, is kept for it.
  let early: Advertisement[] | undefined = []
  source.on('advertisement', (adv) => {
    adverts++
    if (devices.size < MAX_COUNTED_DEVICES) devices.add(adv.address)
    // Only the live counter resolves: the file keeps every address as heard, to be replayed with any keys.
    const name = resolver?.resolve(adv.address, adv.addressType)
    if (name !== undefined) named.add(name)
    early?.push(adv)
  })

  let finish!: (error?: Error) => void
  const done = new Promise<Error | undefined>((resolveDone) => {
    finish = resolveDone
  })
  const removeSignals = handleSignals(() => finish())
  const sourceLabel = options.simulate ? 'simulator' : `hci${options.hci ?? 0}`
  source.on('state', adapterCondition(new ConditionLog(log), sourceLabel))

  // Start the adapter first: when Bluetooth is missing, no empty recording is left behind.
  const started = await Promise.race([source.start().then(() => true), done.then(() => false)]).catch(
    (error: unknown) => {
      removeSignals()
      throw error
    },
  )
  const recorder = new AdvertisementRecorder(options.file, { header: { source: sourceLabel } })
  for (const adv of early ?? []) recorder.write(adv)
  early = undefined
  recorder.attach(source)
  recorder.on('error', (error) => finish(error))
  const startedAt = clock.now()
  let last = { time: startedAt, adverts: 0 }
  const identitiesNote = (): string => (resolver === undefined ? '' : ` (${named.size} phones/watches by name)`)
  const report = (final: boolean): void => {
    const now = clock.now()
    const rate = now > last.time ? ((adverts - last.adverts) * 1000) / (now - last.time) : 0
    last = { time: now, adverts }
    const count = devices.size >= MAX_COUNTED_DEVICES ? `${MAX_COUNTED_DEVICES}+` : String(devices.size)
    if (options.json) {
      const line = {
        event: final ? 'recorded' : 'recording',
        time: now,
        file: options.file,
        advertisements: adverts,
        devices: devices.size,
        written: recorder.stats.written,
        dropped: recorder.stats.dropped,
        ...(resolver === undefined ? {} : { identities: named.size }),
      }
      streams.stdout.write(`${JSON.stringify(line)}\n`)
    } else if (tty) {
      const text =
        `recording ${options.file} from the ${sourceLabel}: ${adverts} advertisements ` +
        `from ${count} devices${identitiesNote()}, ${Math.round(rate)}/s`
      streams.stdout.write(final ? `\r\x1b[K${text}\n` : `\r\x1b[K${text}`)
    } else if (final) {
      streams.stdout.write(
        `recorded ${recorder.stats.written} advertisements from ${count} devices${identitiesNote()} ` +
          `to ${options.file}\n`,
      )
    }
  }
  const cancelTick = clock.setInterval(() => report(false), 1000)
  const cancelDuration =
    options.durationMs === undefined ? undefined : clock.setTimeout(() => finish(), options.durationMs)
  let failure: Error | undefined
  try {
    if (started) failure = await done
  } finally {
    cancelTick()
    cancelDuration?.()
    await source.stop()
    removeSignals()
    await recorder.close().catch((error: unknown) => {
      failure ??= error instanceof Error ? error : new Error(String(error))
    })
  }
  if (failure !== undefined) throw failure
  report(true)
  return EXIT.ok
}

/** What `beaconkit record` parses to. */
export type RecordCommand = { command: 'record' } & RecordOptions

/** `beaconkit record`: its options, help, parser and runner (registered in registry.ts). */
export const recordCommand = defineCommand({
  name: 'record',
  overview: [['record <file.jsonl>', 'record advertisements to a file']],
  options: {
    hci: { type: 'string' },
    json: { type: 'boolean' },
    duration: { type: 'string' },
    simulate: { type: 'boolean' },
    seed: { type: 'string' },
    force: { type: 'boolean' },
    'irk-file': { type: 'string' },
    ...LOG_OPTION_SPECS,
  },
  help: `Usage: beaconkit record <file.jsonl> [options]

Records every advertisement the adapter hears into a JSONL file (one advertisement per
line) that \`beaconkit replay\` and ReplaySource play back. Shows a live counter on a
terminal; stops on Ctrl-C or after --duration. An existing file is never replaced
unless --force is given.

  --hci <n>              use adapter hci<n> (default hci0)
  --duration <seconds>   stop after this long
  --simulate             record the simulator instead of the adapter (to try it out)
  --seed <n>             the simulator's seed (with --simulate), default 1
  --json                 print the counter as JSON lines instead
  --force                overwrite <file.jsonl> if it exists (default: refuse, exit 2)
  --irk-file <file>      identity resolving keys (chmod 600): the counter also says how
                         many phones and watches it heard by name; the file keeps the
                         addresses as heard (docs/phones.md)
${COMMON_TAIL}`,
  parse(values, pos): RecordCommand {
    const command = 'record'
    const [file] = positionals(pos, 1, 'beaconkit record <file.jsonl> [options]', command)
    const simulate = bool(values, 'simulate')
    const adapter = hci(values, command)
    if (simulate && adapter !== undefined) fail('hci', '--hci and --simulate exclude each other', command)
    return {
      command,
      file,
      json: bool(values, 'json'),
      simulate,
      seed: seed(values, command),
      force: bool(values, 'force'),
      ...optional('hci', adapter),
      ...optional('durationMs', durationMs(values, command)),
      ...optional('log', parseLog(values, command)),
      ...optional('irkFile', str(values, 'irk-file')),
    }
  },
  run: (parsed) => runRecord(parsed),
})
