import { describe, it, expect } from 'vitest'
import { renderStatus, renderTable } from '../../../src/cli/ui/table.js'
import { truncate } from '../../../src/cli/ui/grid.js'
import type { TableStatus } from '../../../src/cli/ui/table.js'
import type { Beacon } from '../../../src/reading.js'

function beacon(id: string, over: Partial<Beacon> = {}): Beacon {
  return {
    id,
    address: 'aa:bb:cc:dd:ee:01',
    timestamp: 0,
    rssi: -60,
    frames: ['ibeacon'],
    inRange: true,
    firstSeen: 0,
    lastSeen: 9_000,
    smoothedRssi: -61.25,
    ...over,
  }
}

const status: TableStatus = { adapterState: 'poweredOn', advertsPerSecond: 42.4, inRange: 2, rejected: 3, label: 'replay demo.jsonl' }

const full = beacon('0117C5456A36', {
  serialNumber: '0117C5456A36',
  hardwareModelName: 'C6',
  firmwareVersion: '3.1',
  beaconID: 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|1|2',
  accuracy: 1.234,
  proximity: 'near',
  batteryLevel: 87,
  temperature: 21.5,
  light: null,
  moving: true,
  accelerometerCount: 12,
  secure: { encrypted: true, keyId: '0001', verified: true },
})
const near = beacon('aa:bb:cc:dd:ee:02', {
  address: 'aa:bb:cc:dd:ee:02',
  accuracy: 0.3,
  proximity: 'immediate',
  secure: { encrypted: true, keyId: '6016', verified: false, rejected: 'no_key' },
})
const unknown = beacon('aa:bb:cc:dd:ee:03', { address: 'aa:bb:cc:dd:ee:03', accuracy: -1, proximity: 'unknown' })

describe('renderTable', () => {
  it('shows a phone of the IRK file by its name, not its rotating address (#37)', () => {
    const phone = beacon('irk:alice-phone', { address: '4a:11:22:33:44:55', irk: 'alice-phone', frames: [] })
    const row = renderTable([phone], status, { width: 250, now: 10_000 })[2] as string
    expect(row).toContain('irk:alice-phone')
    expect(row).not.toContain('4a:11:22:33:44:55')
  })

  it('shows the status line, a header and every column on a wide terminal', () => {
    const lines = renderTable([full], status, { width: 250, now: 10_000 })
    expect(lines[0]).toBe('beaconkit replay demo.jsonl │ adapter poweredOn │ 42 adverts/s │ 2 in range │ 3 rejected')
    for (const h of ['SERIAL/ADDRESS', 'MODEL/FW', 'BEACON ID', 'RSSI', 'LAST 30 s', 'SMOOTH', 'DIST', 'PROX', 'BATT', 'TEMP', 'LIGHT', 'MOVE', 'ACC', 'SEC', 'AGE']) {
      expect(lines[1]).toContain(h)
    }
    const row = lines[2]
    for (const cell of ['0117C5456A36', 'C6/3.1', 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|1|2', '-60', '-61.3', '1.23m', 'near', '87%', '21.5°C', 'off', 'yes', '12', '✓ 0001', '1.0s']) {
      expect(row).toContain(cell)
    }
  })

  it('sorts by accuracy with unknown distances last', () => {
    const lines = renderTable([unknown, full, near], status, { width: 250, now: 10_000 })
    expect(lines[2]).toContain('aa:bb:cc:dd:ee:02')
    expect(lines[3]).toContain('0117C5456A36')
    expect(lines[4]).toContain('aa:bb:cc:dd:ee:03')
    expect(lines[4]).toMatch(/\s\?\s/)
  })

  it('marks encrypted beacons without a key and rejected frames', () => {
    const rejected = beacon('x', { secure: { encrypted: true, keyId: '0001', verified: false, rejected: 'crc' } })
    expect(renderTable([near], status, { width: 250, now: 10_000 })[2]).toContain('? 6016')
    expect(renderTable([rejected], status, { width: 250, now: 10_000 })[2]).toContain('✗ 0001 crc')
  })

  it('explains the ✓ ? ✗ markers of SEC and the ? of DIST in a legend line, for the markers shown', () => {
    const rejected = beacon('x', { secure: { encrypted: true, keyId: '0001', verified: false, rejected: 'crc' } })
    const lines = renderTable([full, near, rejected, unknown], status, { width: 250, now: 10_000 })
    expect(lines.at(-1)).toBe(
      'legend: SEC ✓ verified with a broadcast key, ? encrypted, no key for it here (--key), ✗ failed verification (reason follows) │ DIST ? unknown distance',
    )
    expect(renderTable([near], status, { width: 250, now: 10_000 }).at(-1)).toBe('legend: SEC ? encrypted, no key for it here (--key)')
    const plain = beacon('p', { accuracy: 1.2 })
    expect(renderTable([plain], status, { width: 250, now: 10_000 }).some((l) => l.startsWith('legend'))).toBe(false)
    // Within the height: the legend takes a row from the beacons, never from the screen.
    const many = Array.from({ length: 20 }, (_, i) => beacon(`n${i}`, { secure: { encrypted: true, keyId: '0001', verified: true } }))
    const cut = renderTable(many, status, { width: 250, height: 10, now: 10_000 })
    expect(cut).toHaveLength(10)
    expect(cut.at(-1)).toMatch(/^legend: SEC ✓/)
  })

  it('cuts every line to the width and drops the least important columns first', () => {
    for (const width of [160, 100, 80, 60, 40, 20, 5, 1]) {
      const lines = renderTable([full, near, unknown], status, { width, now: 10_000 })
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(width)
    }
    const narrow = renderTable([full], status, { width: 80, now: 10_000 })
    expect(narrow[1]).toContain('SERIAL/ADDRESS')
    expect(narrow[1]).toContain('DIST')
    expect(narrow[1]).not.toContain('ACC')
    expect(narrow[1]).not.toContain('LIGHT')
  })

  it('keeps major and minor when it has to shorten the beacon id', () => {
    const lines = renderTable([full], status, { width: 120, now: 10_000 })
    expect(lines[2]).toMatch(/E2C56DB5[-0-9A-F]*…\|1\|2/)
  })

  it('fits the height and says how many rows were left out', () => {
    const many = Array.from({ length: 30 }, (_, i) => beacon(`id${String(i).padStart(2, '0')}`, { accuracy: i, serialNumber: `SN${String(i).padStart(2, '0')}` }))
    const lines = renderTable(many, status, { width: 120, height: 10, now: 10_000 })
    expect(lines).toHaveLength(10)
    expect(lines[2]).toContain('SN00')
    expect(lines[8]).toContain('SN06')
    expect(lines[9]).toBe('… 23 more beacons (enlarge the terminal)')
  })

  it('says so when nothing is in range', () => {
    expect(renderTable([], { ...status, inRange: 0 }, { width: 120, now: 0 })).toEqual([
      'beaconkit replay demo.jsonl │ adapter poweredOn │ 42 adverts/s │ 0 in range │ 3 rejected',
      'no beacons in range yet',
    ])
  })

  it('draws the RSSI sparkline from the history', () => {
    const history = (): { t: number; rssi: number }[] => [
      { t: 8_000, rssi: -100 },
      { t: 10_000, rssi: -40 },
    ]
    const row = renderTable([full], status, { width: 250, now: 10_000, history })[2]
    expect(row).toContain('▁█')
  })

  it('never lets control characters from a device reach the terminal', () => {
    const evil = beacon('e', { hardwareModelName: 'X\x1b[2J', serialNumber: '\x07BEL' })
    const lines = renderTable([evil], status, { width: 250, now: 0 })
    // eslint-disable-next-line no-control-regex
    expect(lines.join('\n')).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f]/)
  })

  it('is pure: the same input gives the same lines', () => {
    const a = renderTable([full, near], status, { width: 100, now: 10_000 })
    const b = renderTable([full, near], status, { width: 100, now: 10_000 })
    expect(a).toEqual(b)
  })
})

describe('renderStatus and truncate', () => {
  it('appends notes such as upload progress and the latest warning', () => {
    expect(renderStatus({ advertsPerSecond: 10, inRange: 1, rejected: 0, notes: ['uploaded 3 of 4', '⚠ line 7: not valid JSON'] })).toBe(
      'beaconkit │ 10 adverts/s │ 1 in range │ 0 rejected │ uploaded 3 of 4 │ ⚠ line 7: not valid JSON',
    )
  })

  it('rounds the rate and names the source', () => {
    expect(renderStatus({ adapterState: 'unknown', advertsPerSecond: 0.4, inRange: 0, rejected: 0 })).toBe(
      'beaconkit │ adapter unknown │ 0 adverts/s │ 0 in range │ 0 rejected',
    )
  })
  it('marks a cut with an ellipsis', () => {
    expect(truncate('abcdef', 4)).toBe('abc…')
    expect(truncate('abc', 4)).toBe('abc')
    expect(truncate('abc', 0)).toBe('')
  })
})
