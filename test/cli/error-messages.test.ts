// Error messages that say where and what (issue #35 item 18): a site file that is not JSON is
// named with its line and column; an option that takes a value, given none before the next
// option, says it needs one (it is no flag).
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parseCommandLine } from '../../src/cli/args.js'
import { readEnvironment } from '../../src/config/env.js'
import { runCli } from './run-cli.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'beaconkit-errors-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('error messages say where', () => {
  it('a site file that is not JSON: its line and column', async () => {
    const path = join(dir, 'site.json')
    // The second comma is on line 4, column 27.
    await writeFile(path, '{\n  "area": {"width": 10, "height": 8},\n  "receivers": {\n    "a": {"x": 1, "y": 2},,\n  }\n}\n')
    const r = await runCli(['site', 'check', path])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(new RegExp(`the site file ${path} is not JSON at line 4, column 27 \\(`))
  })

  it('an option that takes a file, followed by another option, says it needs a file (not "is a flag")', () => {
    for (const argv of [['scan', '--fallback-replay', '--json'], ['scan', '--fallback-replay']]) {
      expect(() => parseCommandLine(argv)).toThrow(/option --fallback-replay needs a value: --fallback-replay <file\.jsonl>/)
    }
    expect(() => parseCommandLine(['scan', '--fallback-replay', '--json'])).not.toThrow(/is a flag/)
  })

  it('an unknown BEACONKIT_ variable close to a setting\'s is given its likely name', () => {
    expect(readEnvironment({ BEACONKIT_MQTT_UR: 'mqtt://h' }).unknown).toEqual(['BEACONKIT_MQTT_UR'])
    expect(readEnvironment({ BEACONKIT_MQTT_UR: 'mqtt://h' }).suggestions.get('BEACONKIT_MQTT_UR')).toBe('BEACONKIT_MQTT_URL')
  })
})
