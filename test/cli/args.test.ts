import { describe, it, expect } from 'vitest'
import { parseCommandLine } from '../../src/cli/args.js'
import { refused as error } from './refused.js'

describe('parseCommandLine', () => {
  it('parses survey: the broker, the carried beacon, the points, the seconds', () => {
    expect(parseCommandLine(['survey', '--mqtt', 'mqtt://127.0.0.1:1883', '--mqtt-prefix', 'site/a', '--beacon', 'tag-1', '--points', 'p.csv', '--seconds', '30', 'out.csv'])).toEqual({
      command: 'survey', mqtt: { url: 'mqtt://127.0.0.1:1883', topicPrefix: 'site/a', homeAssistant: false }, beacon: 'tag-1', points: 'p.csv', seconds: 30, out: 'out.csv',
    })
    expect(parseCommandLine(['survey', '--mqtt', 'mqtt://h', '--beacon', 'b', 'o.csv'])).toMatchObject({ seconds: 10 })
    expect(error(['survey', '--beacon', 'b', 'o.csv']).option).toBe('mqtt')
    expect(error(['survey', '--mqtt', 'mqtt://h', 'o.csv']).option).toBe('beacon')
    expect(error(['survey', '--mqtt', 'mqtt://h', '--beacon', 'b', '--seconds', '0', 'o.csv']).option).toBe('seconds')
    expect(error(['survey', '--mqtt', 'mqtt://u:secret@h', '--beacon', 'b', 'o.csv']).message).not.toMatch(/secret/)
  })

  it('parses locate: the site, the recording, the method and the pace, each checked', () => {
    expect(parseCommandLine(['locate', '--site', 's.json', '--survey', 'v.csv', '--method', 'knn', '--every', '500', '--tag-height', '1.5', 'rec.csv'])).toEqual({
      command: 'locate', site: 's.json', recording: 'rec.csv', survey: 'v.csv', method: 'knn', everyMs: 500, tagHeight: 1.5,
    })
    expect(parseCommandLine(['locate', '--site', 's.json', 'rec.csv'])).toEqual({ command: 'locate', site: 's.json', recording: 'rec.csv', method: 'filter', everyMs: 1000 })
    expect(parseCommandLine(['locate', '--help'])).toEqual({ command: 'help', topic: 'locate' })
    expect(error(['locate', 'rec.csv']).message).toMatch(/--site is required.*beaconkit locate --help/)
    expect(error(['locate', '--site', 's.json']).message).toMatch(/missing argument/)
    expect(error(['locate', '--site', 's.json', '--method', 'magic', 'r.csv']).option).toBe('method')
    expect(error(['locate', '--site', 's.json', '--every', '5', 'r.csv']).option).toBe('every')
    expect(error(['locate', '--site', 's.json', '--tag-height', 'tall', 'r.csv']).option).toBe('tag-height')
    expect(error(['locate', '--site', 's.json', '--sight', 'x', 'r.csv']).message).toMatch(/unknown option --sight/)
  })

  it('gives help for no arguments, --help, help <command> and <command> --help', () => {
    expect(parseCommandLine([])).toEqual({ command: 'help' })
    expect(parseCommandLine(['--help'])).toEqual({ command: 'help' })
    expect(parseCommandLine(['help', 'replay'])).toEqual({ command: 'help', topic: 'replay' })
    for (const c of ['scan', 'replay', 'record', 'simulate', 'emulate', 'keys']) {
      expect(parseCommandLine([c, '--help'])).toEqual({ command: 'help', topic: c })
      expect(parseCommandLine([c, '-h'])).toEqual({ command: 'help', topic: c })
    }
  })

  it('parses replay with its view options, normalising filters', () => {
    const parsed = parseCommandLine([
      'replay', 'demo.jsonl', '--speed', '10', '--json', '--key', 'k1', '--key', 'k2', '--keys-file', 'keys.txt',
      '--serial', '0117c5456a36', '--uuid', 'e2c56db5dffb48d2b060d0f5a71096e0',
      '--beacon-id', 'e2c56db5-dffb-48d2-b060-d0f5a71096e0|01|2', '--min-rssi', '-80', '--verified-only',
    ])
    expect(parsed).toEqual({
      command: 'replay',
      file: 'demo.jsonl',
      speed: 10,
      virtual: false,
      view: {
        json: true,
        keys: ['k1', 'k2'],
        keysFile: 'keys.txt',
        filter: {
          serialNumbers: ['0117C5456A36'],
          proximityUUIDs: ['E2C56DB5-DFFB-48D2-B060-D0F5A71096E0'],
          beaconIDs: ['E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|1|2'],
          minRssi: -80,
          verifiedOnly: true,
        },
      },
    })
  })

  it('parses scan --hci and the upload options', () => {
    expect(
      parseCommandLine(['scan', '--hci', '1', '--upload', '--cloud-url', 'http://127.0.0.1:8080', '--email', 'a@b.c', '--password-file', 'pw', '--queue-dir', 'q']),
    ).toEqual({
      command: 'scan',
      hci: 1,
      view: { json: false, keys: [], filter: {}, upload: { cloudUrl: 'http://127.0.0.1:8080', email: 'a@b.c', passwordFile: 'pw', queueDir: 'q' } },
    })
  })

  it('parses a repeated --hci as several adapters for scan', () => {
    expect(parseCommandLine(['scan', '--hci', '0', '--hci', '1', '--hci', '3'])).toEqual({
      command: 'scan',
      hci: 0,
      extraHci: [1, 3],
      view: { json: false, keys: [], filter: {} },
    })
  })

  it('parses keys check, emulate, record and simulate', () => {
    expect(parseCommandLine(['keys', 'check', '-', '--json'])).toEqual({ command: 'keys-check', key: '-', json: true })
    expect(parseCommandLine(['keys', 'check', '--keys-file', 'f', '--now', '2015-01-01T00:00:00Z'])).toEqual({
      command: 'keys-check', keysFile: 'f', json: false, now: Date.parse('2015-01-01T00:00:00Z'),
    })
    expect(parseCommandLine(['emulate', '--port', '0'])).toEqual({ command: 'emulate', port: 0, host: '127.0.0.1', json: false })
    expect(parseCommandLine(['record', 'out.jsonl', '--simulate', '--duration', '1.5'])).toEqual({
      command: 'record', file: 'out.jsonl', json: false, simulate: true, seed: 1, force: false, durationMs: 1500,
    })
    expect(parseCommandLine(['simulate', '--virtual', '--duration', '60', '--seed', '7'])).toMatchObject({
      command: 'simulate', virtual: true, durationMs: 60_000, seed: 7, beacons: 12,
    })
  })

  it.each([
    [['frobnicate'], /unknown command 'frobnicate'/],
    [['--json', 'scan'], /put the command first/],
    [['scan', '--bogus'], /unknown option --bogus for `beaconkit scan`/],
    [['scan', 'extra'], /unexpected argument 'extra'/],
    [['replay'], /missing argument: beaconkit replay <file.jsonl>/],
    [['replay', 'f', '--speed', 'fast'], /--speed must be a positive factor/],
    [['replay', 'f', '--speed', '0'], /--speed must be a positive factor/],
    [['replay', 'f', '--speed', '2', '--virtual'], /exclude each other/],
    [['replay', 'f', '--key'], /option --key needs a value/],
    [['scan', '--hci', '-1'], /--hci must be an adapter number/],
    [['scan', '--hci', 'hci0'], /--hci must be an adapter number/],
    [['scan', '--hci', '0', '--hci', 'x'], /--hci must be an adapter number/],
    [['scan', '--hci', '1', '--hci', '1'], /--hci 1 is given twice/],
    [['scan', '--min-rssi', '-80.5'], /--min-rssi must be a whole number/],
    [['scan', '--serial', 'xyz'], /--serial takes a 12-digit hex serial/],
    [['scan', '--uuid', 'not-a-uuid'], /--uuid takes a proximity UUID/],
    [['scan', '--beacon-id', 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|1'], /--beacon-id takes UUID\|major\|minor/],
    [['scan', '--beacon-id', 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|1|70000'], /--beacon-id takes/],
    [['scan', '--cloud-url', 'http://x'], /only takes effect with --upload/],
    [['scan', '--upload'], /--upload needs --cloud-url/],
    [['scan', '--upload', '--cloud-url', 'ftp://x', '--email', 'e', '--password-file', 'p'], /must be an http\(s\) URL/],
    [['scan', '--upload', '--cloud-url', 'http://x'], /--upload needs --email/],
    [['scan', '--upload', '--cloud-url', 'http://x', '--email', 'e'], /--upload needs --password-file/],
    [['simulate', '--virtual'], /--virtual needs --duration/],
    [['emulate', '--port', '70000'], /--port must be a TCP port/],
    [['keys'], /usage: beaconkit keys check/],
    [['keys', 'check'], /missing argument/],
    [['keys', 'check', 'a', '--keys-file', 'f'], /either a key or --keys-file/],
    [['keys', 'check', 'a', '--now', 'yesterday'], /--now takes a date/],
    [['help', 'nope'], /no help for 'nope'/],
    [['replay', 'f', '--virtual=yes'], /^--virtual is a flag and takes no value: write --virtual alone, without =… \(see/],
    [['scan', '--json=7b4b5ff594fdaf8f9fc7f2b494e400016f461205'], /^--json is a flag and takes no value/],
  ])('refuses %j', (argv, message) => {
    const e = error(argv)
    expect(e.code).toBe('invalid_option')
    expect(e.message).toMatch(message)
    expect(e.message).toMatch(/see `beaconkit( \w+)? --help`/)
  })

  it('never echoes a long stray argument (it may be a key typed in the wrong place)', () => {
    const key = '7b4b5ff594fdaf8f9fc7f2b494e400016f461205'
    const e = error(['scan', key])
    expect(e.message).not.toContain(key)
    expect(e.message).toContain('40 characters')
    expect(error(['scan', `--json=${key}`]).message).not.toContain(key.slice(0, 12))
  })
})
