// `beaconkit config check` on hostile and broken files (issue #35 items 5, 6, 18): an alias bomb,
// a file that is no config at all (a symlink to a shadow file), a typo, a YAML syntax error. Each
// gives exit 2 and lines that name where the problem is, never the file's content.
import { chmod, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCli } from './run-cli.js'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'beaconkit-config-check-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

async function file(name: string, text: string): Promise<string> {
  const path = join(dir, name)
  await writeFile(path, text)
  await chmod(path, 0o600)
  return path
}

/** The lines of a run's output, empty ones dropped. */
function lines(text: string): string[] {
  return text.split('\n').filter((l) => l !== '')
}

describe('config check on hostile and broken files', () => {
  it('an alias bomb (billion laughs) is one problem line and exit 2, not a stack trace', async () => {
    const levels = ['a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]']
    for (const [prev, name] of [['a', 'b'], ['b', 'c'], ['c', 'd'], ['d', 'e'], ['e', 'f'], ['f', 'g'], ['g', 'h'], ['h', 'i']]) {
      levels.push(`${name}: &${name} [${Array(9).fill(`*${prev}`).join(',')}]`)
    }
    const path = await file('laughs.yaml', `${levels.join('\n')}\n`)
    const r = await runCli(['config', 'check', path])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe('')
    expect(lines(r.stdout)).toEqual([expect.stringMatching(/^\(file\): .*alias/), `${path}: 1 problem`])
  })

  it('a symlink to a shadow-like file prints none of its content: one line, not a config file', async () => {
    const shadow = await file('shadow', 'root:$6$saltsalt$hashhashhash:19000:0:99999:7:::\ndaemon:*:19000:0:99999:7:::\nbin:*:19000:0:99999:7:::\n')
    const link = join(dir, 'shadow-link.yaml')
    await symlink(shadow, link)
    const r = await runCli(['config', 'check', link])
    expect(r.code).toBe(2)
    const out = lines(r.stdout)
    expect(out).toEqual([expect.stringMatching(/^\(file\): not a config file/), `${link}: 1 problem`])
    for (const secret of ['root', 'daemon', 'saltsalt', 'hashhash', '19000']) expect(r.stdout + r.stderr).not.toContain(secret)
  })

  it('a file that is a list or a scalar is not a config file (one line)', async () => {
    for (const [name, text] of [['list.yaml', '- a\n- b\n'], ['scalar.yaml', 'just some words\n']]) {
      const path = await file(name, text)
      const r = await runCli(['config', 'check', path])
      expect(r.code).toBe(2)
      expect(lines(r.stdout)).toEqual([expect.stringMatching(/^\(file\): not a config file/), `${path}: 1 problem`])
      expect(r.stdout).not.toContain('words')
    }
  })

  it('an unknown key that could be a setting is named with a suggestion; one that could not is counted, not shown', async () => {
    const path = await file('typo.yaml', 'mqtt:\n  url: mqtt://127.0.0.1:1883\n  prefx: home\nloging:\n  level: info\n"p4ss w0rd!": 1\n')
    const r = await runCli(['config', 'check', path])
    expect(r.code).toBe(2)
    const out = lines(r.stdout)
    expect(out).toContain('mqtt.prefx: unknown key; did you mean mqtt.prefix? (see `beaconkit config schema`)')
    expect(out).toContain('loging: unknown key; did you mean logging? (see `beaconkit config schema`)')
    expect(out.some((l) => /1 unknown key that is no setting's name \(not shown\)/.test(l))).toBe(true)
    expect(r.stdout).not.toContain('p4ss')
  })

  it('a YAML syntax error is reported at its real line, and the count names the path as given', async () => {
    const path = await file('broken.yaml', 'gateway:\n  id: hall\nmqtt:\n  url: [\n')
    const r = await runCli(['config', 'check', path])
    expect(r.code).toBe(2)
    const out = lines(r.stdout)
    expect(out[0]).toMatch(/^line [3-5]: not YAML or JSON/)
    expect(out.at(-1)).toBe(`${path}: 1 problem`)
  })
})
