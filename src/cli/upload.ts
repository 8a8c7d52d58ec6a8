/**
 * `--upload`: an AccountClient and an Uploader attached to the scanner. The password comes
 * from a file so it stays out of the process list, and it is never printed.
 */

import { AccountClient } from '../cloud/account-client.js'
import { Uploader } from '../cloud/uploader.js'
import type { UploadEventSource } from '../cloud/uploader.js'
import type { UploadFlags } from './args.js'
import { readPasswordFile } from '../password-file.js'

/** A running upload: `close()` flushes what is queued, then stops. */
export interface RunningUpload {
  readonly uploader: Uploader
  close(): Promise<void>
}

/**
 * Starts uploading the scanner's beacons. Problems are reported through `warn` and do not
 * stop scanning: the queue keeps the records and the uploader retries.
 */
export async function startUpload(flags: UploadFlags, scanner: UploadEventSource, warn: (text: string) => void): Promise<RunningUpload> {
  const password = await readPasswordFile(flags.passwordFile)
  const client = new AccountClient({ baseUrl: flags.cloudUrl, email: flags.email, password })
  const uploader = new Uploader({ client, ...(flags.queueDir === undefined ? {} : { queueDir: flags.queueDir }) })
  uploader.on('error', (error) => warn(`upload stopped: ${error.message}`))
  uploader.on('retrying', (info) => warn(`upload failed (${info.error.message}); retry ${info.attempt} in ${Math.round(info.delayMs / 1000)} s`))
  uploader.on('dropped', (info) => warn(`upload dropped ${info.count} records (${info.reason})${info.error === undefined ? '' : `: ${info.error.message}`}`))
  const detach = uploader.attach(scanner)
  return {
    uploader,
    async close() {
      detach()
      // Flush before leaving: at-least-once delivery is the point of the queue.
      await uploader.close()
    },
  }
}
