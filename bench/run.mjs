// Runs every bench/*.bench.mjs in its own process (a fresh heap each, GC exposed for the
// memory rows) against the built package in dist/, one after another so they don't compete
// for the two cores.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const only = process.argv.slice(2)
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.mjs'))
  .filter((f) => only.length === 0 || only.some((o) => f.includes(o)))
  .sort()

console.log(`beaconkit benchmarks — node ${process.version}, ${process.platform}/${process.arch}`)
let failed = 0
for (const file of files) {
  console.log(`\n## ${file}`)
  const r = spawnSync(process.execPath, ['--expose-gc', join(here, file)], { stdio: 'inherit' })
  if (r.status !== 0) failed++
}
process.exit(failed === 0 ? 0 : 1)
