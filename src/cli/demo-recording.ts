/**
 * Where the recording bundled with the package lies, wherever beaconkit is installed: the
 * command is dist/cli/main.js and the recording fixtures/demo.jsonl of the same package, so
 * `beaconkit replay --demo` works in any folder (a path such as fixtures/demo.jsonl works
 * only inside this repository).
 */
import { fileURLToPath } from 'node:url'

/** Absolute path of the bundled demo recording (two folders up from the command, or from src/cli in development). */
export function demoRecordingPath(): string {
  return fileURLToPath(new URL('../../fixtures/demo.jsonl', import.meta.url))
}
