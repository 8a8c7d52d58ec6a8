// `beaconkit fleet` and `beaconkit simulate --site`: their flags, the fleet table, and the two
// commands end to end as real processes — the fleet with its embedded broker, the simulated
// site's four gateways publishing into it — stopped by signals as a person or systemd would.
import { describe, expect, it } from 'vitest'
import { parseCommandLine } from '../../src/cli/args.js'
import { renderFleetTable } from '../../src/cli/ui/fleet-table.js'
import type { FleetBeacon } from '../../src/fleet/fleet-beacon.js'
import { refused as error } from './refused.js'
import { freePort } from '../support/mosquitto.js'
import { jsonLines, startCli } from './run-cli.js'

describe('fleet and simulate --site flags', () => {
  it('parses fleet with a broker, or an embedded one on an optional port', () => {
    expect(parseCommandLine(['fleet', '--mqtt', 'mqtt://10.0.0.2:1883', '--site', 's.json', '--survey', 'v.csv', '--occupancy', 'g.txt', '--ha', '--json'])).toEqual({
      command: 'fleet',
      mqtt: { url: 'mqtt://10.0.0.2:1883', homeAssistant: true },
      site: 's.json',
      survey: 'v.csv',
      occupancy: 'g.txt',
      json: true,
    })
    expect(parseCommandLine(['fleet', '--embedded-broker'])).toMatchObject({ embeddedBroker: 1883, mqtt: { url: 'mqtt://127.0.0.1:1883' } })
    expect(parseCommandLine(['fleet', '--embedded-broker', '--json'])).toMatchObject({ embeddedBroker: 1883, json: true })
    expect(parseCommandLine(['fleet', '--embedded-broker', '1884', '--duration', '5'])).toMatchObject({ embeddedBroker: 1884, durationMs: 5000, mqtt: { url: 'mqtt://127.0.0.1:1884' } })
    expect(parseCommandLine(['fleet', '--embedded-broker=0', '--ha'])).toMatchObject({ embeddedBroker: 0, mqtt: { homeAssistant: true } })
    // The embedded broker is a broker: Home Assistant's gate options are read with it (they were refused).
    expect(parseCommandLine(['fleet', '--embedded-broker', '--ha', '--ha-dwell', '2', '--ha-expire', '60'])).toMatchObject({ mqtt: { homeAssistant: true, haDwellMs: 2000, haExpireMs: 60_000 } })
    expect(parseCommandLine(['fleet', '--help'])).toEqual({ command: 'help', topic: 'fleet' })
  })

  it('refuses fleet without a broker, with two, and a survey or an occupancy grid without a site', () => {
    expect(error(['fleet']).message).toMatch(/needs a broker: --mqtt mqtt:\/\/host:1883, or --embedded-broker/)
    expect(error(['fleet', '--mqtt', 'mqtt://h', '--embedded-broker']).message).toMatch(/exclude each other/)
    expect(error(['fleet', '--embedded-broker', '70000']).message).toMatch(/TCP port/)
    expect(error(['fleet', '--mqtt', 'mqtt://h', '--survey', 'v.csv']).message).toMatch(/--survey needs --site/)
    expect(error(['fleet', '--mqtt', 'mqtt://h', '--occupancy', 'g.txt']).message).toMatch(/--occupancy needs --site/)
    expect(error(['fleet', '--mqtt', 'mqtt://h', '--gateway-id', 'x']).message).toMatch(/unknown option --gateway-id/)
  })

  it('parses simulate --site and refuses what does not go with it', () => {
    expect(parseCommandLine(['simulate', '--site', 'fixtures/site-demo.json', '--mqtt', 'mqtt://127.0.0.1:1883', '--seed', '4'])).toMatchObject({
      command: 'simulate',
      site: 'fixtures/site-demo.json',
      seed: 4,
      view: { mqtt: { url: 'mqtt://127.0.0.1:1883' } },
    })
    expect(error(['simulate', '--site', 's.json']).message).toMatch(/--site needs --mqtt <url>/)
    expect(error(['simulate', '--site', 's.json', '--mqtt', 'mqtt://h', '--gateway-id', 'x']).message).toMatch(/--gateway-id does not go with --site/)
    expect(error(['simulate', '--site', 's.json', '--mqtt', 'mqtt://h', '--beacons', '3']).message).toMatch(/--beacons does not go with --site/)
  })
})

describe('the fleet table', () => {
  const beacon = (id: string, room: string | undefined, gateways: [string, number][], lastSeen: number): FleetBeacon => ({
    id,
    time: 10_000,
    present: true,
    ...(room === undefined ? {} : { room }),
    gateways: gateways.map(([gateway, rssi]) => ({ gateway, rssi, lastSeen })),
    firstSeen: 0,
    lastSeen,
  })
  const status = { broker: 'mqtt://127.0.0.1:1883 (embedded)', state: 'connected', gatewaysOnline: 3, gatewaysKnown: 4, batchesPerSecond: 3.2 }

  it('shows room, position, gateways, best RSSI and age, by room then id', () => {
    const b = beacon('0117C5D00002', 'Kitchen', [['kitchen-pi', -61.4], ['office-pi', -75.2]], 8_500)
    const lines = renderFleetTable([beacon('tag-z', undefined, [['hall', -80]], 9000), { ...b, position: { x: 1.04, y: 3.96, accuracy: 1.5 } }], status, { width: 160, now: 10_000 })
    expect(lines[0]).toBe('beaconkit fleet │ broker mqtt://127.0.0.1:1883 (embedded) connected │ 3/4 gateways online │ 3 batches/s')
    expect(lines[1]).toMatch(/^BEACON\s+ROOM\s+POSITION\s+GW\s+BEST RSSI\s+NEAREST\s+ALSO HEARD BY\s+AGE$/)
    expect(lines[2]).toMatch(/^0117C5D00002\s+Kitchen\s+1\.0,4\.0 ±1\.5m\s+2\s+-61\s+kitchen-pi\s+office-pi -75\s+1\.5s$/)
    expect(lines[3]).toMatch(/^tag-z\s+1\s+-80\s+hall\s+1\.0s$/)
    // Narrow: the least important columns go first; id, room and RSSI stay.
    const narrow = renderFleetTable([b], status, { width: 40, now: 10_000 })
    expect(narrow[1]).toMatch(/^BEACON\s+ROOM\s+/)
    expect(narrow[1]).not.toContain('ALSO HEARD BY')
    expect(narrow.every((l) => l.length <= 40)).toBe(true)
    expect(renderFleetTable([], status, { width: 80, now: 0 })[1]).toBe('no beacons heard by any gateway yet')
    // A name from the site file's `beacons` list gets a column of its own, only when some beacon has one.
    const named = renderFleetTable([{ ...b, name: 'Kettle' }], status, { width: 160, now: 10_000 })
    expect(named[1]).toMatch(/^BEACON\s+NAME\s+ROOM\s+/)
    expect(named[2]).toMatch(/^0117C5D00002\s+Kettle\s+Kitchen\s+/)
    // A gateway id with a control character cannot reach the terminal as an escape sequence.
    expect(renderFleetTable([beacon('x', 'R', [['evil\u001b[2J', -50]], 0)], status, { width: 120, now: 0 }).join('')).not.toContain('\u001b')
  })
})

describe('the fleet table at 80 columns', () => {
  const heard = [{ gateway: 'kitchen-pi', rssi: -61, lastSeen: 9000 }, { gateway: 'office-pi', rssi: -75, lastSeen: 9000 }, { gateway: 'living-pi', rssi: -80, lastSeen: 9000 }]
  const b = (id: string, room: string): FleetBeacon => ({ id, time: 10_000, present: true, room, position: { x: 12.34, y: 3.96, accuracy: 1.5 }, gateways: heard, firstSeen: 0, lastSeen: 9000 })
  const status = { broker: 'mqtt://127.0.0.1:1883 (embedded)', state: 'connected', gatewaysOnline: 4, gatewaysKnown: 4, batchesPerSecond: 4 }
  const rows = [b('0117C5D00001', 'Living room'), b('0117C5D00002', 'Kitchen')]

  it('keeps the whole room name: the room outlives the position and the gateways', () => {
    const lines = renderFleetTable(rows, status, { width: 80, now: 10_000 })
    expect(lines[1]).toMatch(/^BEACON\s+ROOM\s+POSITION\s/)
    expect(lines.join('\n')).toMatch(/0117C5D00001\s+Living room\s/)
    expect(lines.every((l) => l.length <= 80)).toBe(true)
  })

  it('drops columns in an explicit order as the terminal narrows: BEACON and ROOM last, ROOM cut only when alone with BEACON', () => {
    const all = ['BEACON', 'ROOM', 'POSITION', 'GW', 'BEST RSSI', 'NEAREST', 'ALSO HEARD BY', 'AGE']
    // A column cut to its narrowest shows a cut header ("ALSO HEARD …"): named by its full header.
    const headers = (width: number): string[] =>
      renderFleetTable(rows, status, { width, now: 10_000 })[1]
        .split(/\s{2,}/)
        .map((h) => all.find((full) => full.startsWith(h.replace(/…$/, ''))) ?? h)
    let previous = headers(200)
    for (let width = 199; width >= 20; width--) {
      const now = headers(width)
      // Columns only go as the terminal narrows, and POSITION goes before ROOM.
      expect(now.every((h) => previous.includes(h))).toBe(true)
      if (now.includes('POSITION')) expect(now).toContain('ROOM')
      const text = renderFleetTable(rows, status, { width, now: 10_000 }).join('\n')
      if (now.length > 2) expect(text).toContain('Living room')
      previous = now
    }
    expect(headers(30)).toEqual(['BEACON', 'ROOM'])
  })
})

describe('beaconkit fleet --embedded-broker with beaconkit simulate --site (real processes)', () => {
  it('shows the simulated site as JSON events and stops both cleanly on signals', async () => {
    const port = await freePort()
    const url = `mqtt://127.0.0.1:${port}`
    const fleet = startCli(['fleet', '--embedded-broker', String(port), '--site', 'fixtures/site-demo.json', '--json'])
    const gateways = startCli(['simulate', '--site', 'fixtures/site-demo.json', '--mqtt', url, '--seed', '3'])
    try {
      await gateways.waitFor('simulating fixtures/site-demo.json: 4 gateways (kitchen-pi, living-pi, office-pi, bedroom-pi), 6 beacons')
      // Each tag of the site is found by its serial number; the kettle stands in the kitchen (at
      // once, or after the dwell when the first batch came from another room's gateway alone).
      await fleet.waitFor(/"event":"room","time":\d+,"beacon":\{"id":"0117C5D00002".*"to":"Kitchen"\}/)
      await fleet.waitFor(/"event":"updated"/)
      // What the fleet had printed when the simulation was told to stop (an event's time cannot
      // say it: a starved fleet stamps the kettle's room in the same millisecond the test stops).
      const printed = fleet.output()
      const beforeStop = jsonLines(printed.slice(0, printed.lastIndexOf('\n') + 1))
      gateways.child.kill('SIGTERM')
      const g = await gateways.done
      expect(g.code).toBe(0)
      expect(g.stdout).toContain('simulation stopped; every gateway said offline')
      // A clean stop says offline for each gateway, and the fleet shows it.
      await fleet.waitFor(/"event":"gateway","gateway":"bedroom-pi","state":"offline"/)
      fleet.child.kill('SIGINT')
      const f = await fleet.done
      expect(f.code).toBe(0)
      const events = jsonLines(f.stdout)
      const found = events.filter((e) => e.event === 'found').map((e) => (e.beacon as FleetBeacon).id)
      for (const serial of ['0117C5D00001', '0117C5D00002', '0117C5D00003', '0117C5D00004']) expect(found).toContain(serial)
      expect(events.filter((e) => e.event === 'gateway' && e.state === 'online').map((e) => e.gateway).sort()).toEqual(['bedroom-pi', 'kitchen-pi', 'living-pi', 'office-pi'])
      // Its room while the site ran. Once the simulation stops, its gateways say offline one by
      // one, and the room follows the gateways still heard (docs/fleet.md "Rooms and hysteresis").
      const kettle = beforeStop.filter((e) => e.event === 'room' && (e.beacon as FleetBeacon).id === '0117C5D00002').at(-1)
      expect(kettle?.to).toBe('Kitchen')
      expect(f.stderr).toContain(`MQTT broker (aedes) listening on ${url}`)
    } finally {
      gateways.child.kill('SIGKILL')
      fleet.child.kill('SIGKILL')
    }
  }, 90_000)

  it('exits 2 with a clear line for a site file that is missing or wrong', async () => {
    const missing = await startCli(['fleet', '--embedded-broker', '0', '--site', 'no-such-site.json']).done
    expect(missing.code).toBe(2)
    expect(missing.stderr).toMatch(/fleet: cannot read the site file no-such-site\.json \(ENOENT\)/)
    const wrong = await startCli(['simulate', '--site', 'package.json', '--mqtt', 'mqtt://127.0.0.1:1']).done
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toMatch(/site: no anchors/)
  })
})
