/**
 * The logger of a run the composition root starts: the caller's (`log`, or its plain `warn`), or
 * else the package's own on the run's stderr, at the level and in the format of the model's
 * `logging` (pino loads only then: a caller with a logger of its own never loads it).
 */

import type { BeaconkitConfig } from '../config/load-config.js'
import { createLogger } from '../log/create-logger.js'
import { loggerOf } from '../log/logger.js'
import type { Logger } from '../log/logger.js'

/** The hooks' logger, or the package's default one writing to `stderr`. */
export async function runLogger(
  hooks: { log?: Logger; warn?(text: string): void },
  logging: BeaconkitConfig['logging'],
  stderr: { write(text: string): unknown; isTTY?: boolean },
): Promise<Logger> {
  if (hooks.log !== undefined || hooks.warn !== undefined) return loggerOf(hooks)
  return createLogger({ level: logging?.level ?? 'info', format: logging?.format ?? 'auto', stream: stderr })
}
