/**
 * Every command's `--help`, byte for byte, against the texts kept in fixtures/help/ (issue 36:
 * the configuration model and the composition root were reworked without changing what a user
 * reads). The sub-commands print their command's help, so one file per command covers them.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { runCli } from './run-cli.js'

const HELP = fileURLToPath(new URL('./fixtures/help/', import.meta.url))
const kept = readdirSync(HELP).filter((f) => f.endsWith('.txt'))

describe('--help texts', () => {
  it('keeps a text for the overview and every command', () => {
    expect(kept).toContain('beaconkit.txt')
    expect(kept.length).toBeGreaterThanOrEqual(14)
  })

  it.each(kept)('%s is printed byte for byte as kept', async (file) => {
    const command = file.replace(/\.txt$/, '')
    const args = command === 'beaconkit' ? ['--help'] : [command, '--help']
    const result = await runCli(args)
    expect(result.code).toBe(0)
    expect(result.stdout + result.stderr).toBe(readFileSync(`${HELP}${file}`, 'utf8'))
  })

  it.each([
    ['fleet', 'forget'],
    ['site', 'check'],
    ['config', 'check'],
    ['keys', 'check'],
  ])('%s %s --help prints its command’s text', async (command, sub) => {
    const result = await runCli([command, sub, '--help'])
    expect(result.stdout + result.stderr).toBe(readFileSync(`${HELP}${command}.txt`, 'utf8'))
  })
})
