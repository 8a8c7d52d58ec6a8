/**
 * The loop shared by `scan`, `replay` and `simulate`: a source feeds a scanner, whose events
 * go to the live table (on a terminal) or to JSON lines, and optionally to an uploader; it
 * ends on Ctrl-C, after a duration, or when a finite source ran out and its beacons aged out.
 */

import type { BeaconScanner } from '../../scanner/scanner.js'
import { BluetoothUnavailableError } from '../../errors.js'
import type { AccountError } from '../../errors.js'
import type { Beacon } from '../../reading.js'
import type { BeaconChanges } from '../../range/merge.js'
import type { AdapterState, AdvertisementSource } from '../../sources/source.js'
import type { ViewFlags } from '../command-line.js'
import { EXIT, errorLine } from '../exit.js'
import { JsonLinesOutput } from '../ui/json-lines.js'
import { loadKeyring } from '../../gateway/settings/keys.js'
import { viewModel } from '../flags-model.js'
import { TableScreen } from '../ui/screen.js'
import type { TerminalLike } from '../ui/screen.js'
import { forceAfter, handleSignals, undeliveredLine } from '../../gateway/shutdown.js'
import type { TableStatus } from '../ui/table.js'
import { startGateway } from '../../gateway/start-gateway.js'
import { ConditionLog } from '../../log/condition-log.js'
import type { Logger } from '../../log/logger.js'
import { HeldLog } from '../ui/held-log.js'
import { answerStream, noticeStream, openLog } from '../log-setup.js'
import { adapterCondition } from '../adapter-condition.js'

/** What a view command runs. */
export interface ViewRun {
  source: AdvertisementSource
  /** Shown in the status line, e.g. `replay demo.jsonl`. */
  label: string
  view: ViewFlags
  /** Stop after this long on the run's clock. */
  durationMs?: number
  /** For a finite source: at its end, let the beacons age out, then stop (exit 0). */
  drainAtEnd?: boolean
  /** The source is a Bluetooth adapter: show its state. */
  adapter?: boolean
  /**
   * Say where the servers listen only once the source has started (`scan --fallback-replay`: a
   * run that ends at start for want of Bluetooth begins again on the recording, with new servers).
   */
  noticesAfterStart?: boolean
  /** The adapter's state once the gateway has started (with `sourceFirst`, `poweredOn`). */
  adapterState?: AdapterState
  /** Start the source before the MQTT connection (startGateway's `sourceFirst`). */
  sourceFirst?: boolean
}

/** Where the run writes; process.stdout/stderr unless a test says otherwise. */
export interface ViewStreams {
  stdout: TerminalLike & { isTTY?: boolean }
  stderr: { write(text: string): unknown; isTTY?: boolean }
}

/**
 * Frames refused so far: unusable envelopes plus encrypted frames that failed verification.
 * Frames of a key id not in the keyring (`no_key`) are not counted: they are not wrong, only
 * unreadable here, and would drown the real failures at a site full of another fleet's devices.
 */
function rejectedCount(scanner: BeaconScanner): number {
  const { malformed, secure } = scanner.stats
  const { no_key: _unreadable, ...failed } = secure.rejected
  return malformed + Object.values(failed).reduce((sum, n) => sum + n, 0)
}

/** Runs one view command to its end and returns the exit code. */
export async function runView(
  run: ViewRun,
  streams: ViewStreams = { stdout: process.stdout, stderr: process.stderr },
): Promise<number> {
  const { source, view } = run
  const tty = !view.json && streams.stdout.isTTY === true
  const screen = tty ? new TableScreen(streams.stdout, source.clock === undefined ? 0 : 50) : undefined
  const json = tty ? undefined : new JsonLinesOutput(streams.stdout)
  const base = await openLog(view.log, streams.stderr)
  // On the live table a stderr line would tear the screen: the latest line (a warning, or a
  // condition cleared) shows in the status line, and the last few are logged after the table is gone.
  const held = screen === undefined ? undefined : new HeldLog(base, view.log?.level ?? 'info')
  const log: Logger = held?.logger ?? base
  // Where the servers listen, and the final answer: in the log's format (JSON lines for a service).
  const notices = noticeStream(view.log, streams.stderr)
  const answer = answerStream(view.log, streams.stderr)
  const pending: string[] | undefined = run.noticesAfterStart === true ? [] : undefined
  const warn = (text: string): void => log.warn(text)
  const conditions = new ConditionLog(log)
  let finish!: (code: number) => void
  const done = new Promise<number>((resolve) => {
    finish = resolve
  })
  // Read everything that can be wrong before anything starts, so a bad key or file fails fast.
  const keys = await loadKeyring(view.keys, view.keysFile, { warn })
  // A refused account ends the run (exit 4): scanning on would only queue what cannot be sent.
  const gateway = await startGateway(
    {
      ...viewModel(view),
      source,
      ...(run.sourceFirst === true ? { sourceFirst: true } : {}),
      ...(keys === undefined ? {} : { keyring: keys }),
    },
    {
      log,
      stderr: pending === undefined ? notices : { write: (text: string) => pending.push(text) },
      onUploadRefused: () => finish(EXIT.account),
    },
  )
  const { scanner, upload, mqtt } = gateway
  const clock = scanner.clock

  // Only a source with an adapter reports states; a replay shows none rather than a made-up one.
  let adapterState: AdapterState | undefined = run.adapter === true ? (run.adapterState ?? 'unknown') : undefined
  let adverts = 0
  let lastTick: { time: number; adverts: number } | undefined
  source.on('advertisement', () => {
    adverts++
  })

  const adapterStateChanged = adapterCondition(conditions, run.label)
  scanner.on('state', (state: AdapterState) => {
    adapterState = state
    if (run.adapter === true) adapterStateChanged(state)
  })
  scanner.on('warning', (w) => log.warn(w.message, { code: w.code }))
  // An adapter that is gone for good (unplugged, not re-plugged within adapterLostMs) ends the
  // run with exit 3, so a supervisor (systemd) restarts the command; other errors are warnings.
  let fatal: BluetoothUnavailableError | undefined
  scanner.on('error', (e) => {
    if (e instanceof BluetoothUnavailableError && e.code === 'adapter_lost') {
      fatal = e
      finish(EXIT.bluetooth)
    } else warn(e.message)
  })
  const seen = new Set<string>()
  scanner.on('found', (beacon: Beacon) => {
    if (seen.size < 100_000) seen.add(beacon.id)
    json?.write({ event: 'found', time: clock.now(), beacon })
  })
  scanner.on('gone', (beacon: Beacon) => {
    json?.write({ event: 'gone', time: clock.now(), beacon })
    screen?.forget(beacon.id)
  })
  scanner.on('changed', (beacon: Beacon, changes: BeaconChanges) =>
    json?.write({ event: 'changed', time: clock.now(), beacon, changes }),
  )
  scanner.on('updated', (beacons: Beacon[]) => {
    const now = clock.now()
    json?.write({ event: 'updated', time: now, beacons })
    if (screen !== undefined) {
      const rate =
        lastTick === undefined || now <= lastTick.time
          ? 0
          : ((adverts - lastTick.adverts) * 1000) / (now - lastTick.time)
      lastTick = { time: now, adverts }
      const notes: string[] = []
      if (upload !== undefined)
        notes.push(`uploaded ${upload.uploader.stats.uploaded} of ${upload.uploader.stats.queued}`)
      if (mqtt !== undefined) notes.push(mqtt.note())
      const note = held?.note()
      if (note !== undefined) notes.push(note)
      const status: TableStatus = {
        adapterState,
        advertsPerSecond: rate,
        inRange: beacons.length,
        rejected: rejectedCount(scanner),
        label: run.label,
        notes,
      }
      screen.update(beacons, status, now)
    }
  })

  const restore = (): void => screen?.close()
  process.on('exit', restore)
  const removeSignals = handleSignals(() => finish(EXIT.ok), restore)
  const cancelDuration =
    run.durationMs === undefined ? undefined : clock.setTimeout(() => finish(EXIT.ok), run.durationMs)

  let code: number
  let undelivered: string | undefined
  let disarm: (() => void) | undefined
  let uploadFailure: AccountError | undefined
  try {
    if (screen !== undefined) {
      screen.open()
      screen.update([], { adapterState, advertsPerSecond: 0, inRange: 0, rejected: 0, label: run.label }, clock.now())
    }
    // Ctrl-C while the adapter is still starting (waiting for poweredOn) must not wait for it.
    const started = await Promise.race([gateway.start().then(() => true), done.then(() => false)])
    if (started) for (const text of pending?.splice(0) ?? []) notices.write(text)
    // A finite source has ended and its beacons aged out (in virtual time, as fast as possible).
    if (started && run.drainAtEnd === true) void scanner.drain().then(() => finish(EXIT.ok))
    code = await done
  } finally {
    disarm = forceAfter(restore)
    cancelDuration?.()
    const report = await gateway.stop()
    json?.close()
    if (report.mqtt !== undefined) undelivered = undeliveredLine(report.mqtt, view.mqtt?.url ?? '')
    uploadFailure = report.uploadFailure
    restore()
    process.off('exit', restore)
    removeSignals()
    // The alternate screen took the table with it: leave a line that says what happened.
    if (screen !== undefined) {
      streams.stdout.write(
        `beaconkit ${run.label}: ${seen.size} beacons seen, ${adverts} advertisements, ` +
          `${rejectedCount(scanner)} rejected\n`,
      )
    }
    held?.flush()
    disarm()
  }
  if (fatal !== undefined) {
    answer.write(`${errorLine(fatal)}\n`)
    return EXIT.bluetooth
  }
  // Also when the account was refused while closing (the last flush): the documented code.
  if (uploadFailure !== undefined) {
    answer.write(`${errorLine(uploadFailure)}\n`)
    return EXIT.account
  }
  // Ended as asked, but the broker did not take everything: a script must be able to tell.
  if (undelivered !== undefined) {
    answer.write(undelivered)
    return code === EXIT.ok ? EXIT.failure : code
  }
  return code
}
