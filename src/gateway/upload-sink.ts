/**
 * `--upload`: an AccountClient and an Uploader attached to the scanner. The password comes
 * from a file so it stays out of the process list, and it is never printed: every line this
 * file prints goes through the client's scrubber, whatever a server echoed.
 */

import { AccountClient } from '../cloud/account-client.js'
import { Uploader } from '../cloud/uploader.js'
import type { UploadEventSource } from '../cloud/uploader-options.js'
import { AccountError, InvalidOptionError } from '../errors.js'
import type { AccountErrorCode } from '../errors.js'
import type { UploadSettings } from './settings/upload.js'
import { readPasswordFile } from '../password-file.js'
import { RepeatedWarnings, formatCount } from '../util/repeated-warnings.js'
import { watchQueueFill } from './queue-fill.js'
import { ConditionLog } from '../log/condition-log.js'
import type { Logger } from '../log/logger.js'

/**
 * Codes on which the Uploader stops for good (see its `deliver`): nothing will be delivered
 * in this run, so the run ends with exit code 4 instead of scanning on as if all were well.
 */
const FATAL: ReadonlySet<AccountErrorCode> = new Set(['unauthorized', 'not_found', 'insecure_url'])

/** Codes that say nothing about the account: the cloud may answer later, and the queue waits. */
const TRANSIENT: ReadonlySet<AccountErrorCode> = new Set(['network', 'timeout', 'server', 'rate_limited'])

/** A running upload: `close()` flushes what is queued, then stops. */
export interface RunningUpload {
  readonly uploader: Uploader
  /** Why uploading stopped for good during the run (credentials refused mid-run), if it did. */
  readonly failure: AccountError | undefined
  close(): Promise<void>
}

/**
 * Checks the account (fails fast with an AccountError, exit code 4, when the cloud refuses the
 * e-mail and password, redirects, or is not the account interface), then starts uploading the
 * scanner's beacons. Passing problems are logged (warn) and do not stop scanning: the
 * queue keeps the records and the uploader retries. A refusal later in the run calls `onFailure`.
 */
export async function startUpload(
  flags: UploadSettings,
  scanner: UploadEventSource,
  log: Logger,
  onFailure: (error: AccountError) => void = () => undefined,
): Promise<RunningUpload> {
  // The file wins: a flag typed now over a password the environment or a config file holds.
  const password = flags.passwordFile === undefined ? flags.password : await readPasswordFile(flags.passwordFile)
  if (password === undefined)
    throw new InvalidOptionError(
      'invalid_option',
      '--upload needs the account password: --password-file <file>, or upload.password / BEACONKIT_UPLOAD_PASSWORD',
      { option: 'password-file' },
    )
  const client = new AccountClient({ baseUrl: flags.cloudUrl, email: flags.email, password })
  const say = (text: string): void => log.warn(client.scrub(text))
  const conditions = new ConditionLog(log)
  try {
    await client.verify()
  } catch (error) {
    if (!(error instanceof AccountError)) throw error
    if (!TRANSIENT.has(error.code)) throw refused(error, client)
    say(
      `could not check the account at ${client.baseUrl} now (${error.message}); records are queued ` +
        `and sent once it answers`,
    )
  }
  const uploader = new Uploader({ client, ...(flags.queueDir === undefined ? {} : { queueDir: flags.queueDir }) })
  let failure: AccountError | undefined
  uploader.on('error', (error) => {
    if (error instanceof AccountError && FATAL.has(error.code)) {
      failure ??= refused(error, client)
      onFailure(failure)
      return
    }
    say(`upload error: ${error.message}`)
  })
  uploader.on('retrying', (info) =>
    say(`upload failed (${info.error.message}); retry ${info.attempt} in ${Math.round(info.delayMs / 1000)} s`),
  )
  // Queue warnings (a dead process's lock taken over, an unreadable segment) go where the
  // command's other warnings go, not to Node's process warnings.
  uploader.on('warning', (w) => say(`upload queue: ${w.message}`))
  // Counted per reason: a flood of drops is one line when it starts, a sum per interval while it
  // goes on, and one line once an interval passed without a drop.
  const repeated = new RepeatedWarnings(
    (text, key, first) => (first ? conditions.start(`upload.dropped:${key}`, client.scrub(text)) : say(text)),
    undefined,
    (key, total) =>
      conditions.clear(
        `upload.dropped:${key}`,
        `upload: no records dropped (${key}) for a while; ${formatCount(total)} dropped in all`,
      ),
  )
  uploader.on('dropped', (info) =>
    repeated.add(
      info.reason,
      info.count,
      (n) =>
        `upload dropped ${formatCount(n)} records ` +
        `(${info.reason})${info.error === undefined ? '' : `: ${info.error.message}`}`,
    ),
  )
  // The queue near its bound: the account interface is away or slower than the beacons.
  const stopWatching = watchQueueFill(
    conditions,
    'upload.queue_near_bound',
    'upload: the record queue',
    () => uploader.queueFill,
    () => ({ pending: uploader.pending }),
  )
  const detach = uploader.attach(scanner)
  return {
    uploader,
    get failure() {
      return failure
    },
    async close() {
      stopWatching()
      detach()
      // Flush before leaving: at-least-once delivery is the point of the queue.
      await uploader.close()
      repeated.close()
    },
  }
}

/** The error the command ends with: says it was the upload, and carries nothing secret. */
function refused(error: AccountError, client: AccountClient): AccountError {
  return new AccountError(error.code, client.scrub(`--upload to ${client.baseUrl}: ${error.message}`), {
    status: error.status,
    ...(error.retryAfterSeconds === undefined ? {} : { retryAfterSeconds: error.retryAfterSeconds }),
  })
}
