// Site files: the tetam data set's shape (receivers keyed by id), gateway → room names,
// room polygons, fixed beacons, and files that are wrong in ways a person writes them.
import { existsSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { Site } from '../../src/positioning/site.js'
import { InvalidOptionError } from '../../src/errors.js'
import { BeaconNames } from '../../src/positioning/beacon-names.js'

const tetam = new URL('../../../shared/datasets/tetam/site.json', import.meta.url)

describe('Site.fromJSON', () => {
  // The data set lives beside the repository in the workplace, not in a clone elsewhere.
  it.skipIf(!existsSync(tetam))('reads the tetam site: twelve receivers, the area, other keys ignored', () => {
    const site = Site.fromJSON(JSON.parse(readFileSync(tetam, 'utf8')))
    expect(site.kind).toBe('receivers')
    expect(site.anchorList()).toHaveLength(12)
    expect(site.anchor('b827eb4521b4')).toMatchObject({ x: 7, y: 7.09, z: 1.22 })
    expect(site.area?.maxX).toBeCloseTo(20.66, 2)
  })

  it('gateway → room names, and rooms found from polygons', () => {
    const simple = Site.fromJSON({ gateways: { a: {}, b: {}, c: { room: 'Lab' } }, rooms: { Kitchen: ['a'], Hall: ['b'] } })
    expect(simple.anchorList().map((a) => [a.id, a.room])).toEqual([['a', 'Kitchen'], ['b', 'Hall'], ['c', 'Lab']])
    expect(simple.rooms.map((r) => r.name)).toEqual(['Kitchen', 'Hall', 'Lab'])
    const plan = Site.fromJSON({ gateways: { a: { x: 1, y: 1 }, b: { x: 9, y: 9 } }, rooms: [{ name: 'Box', polygon: [[0, 0], [2, 0], [2, 2], [0, 2]] }] })
    expect(plan.anchor('a')?.room).toBe('Box')
    expect(plan.anchor('b')?.room).toBeUndefined()
    expect(plan.roomAt(1.5, 0.5)).toBe('Box')
  })

  it('names beacons by id or serial number; unnamed (simulated) entries name nothing', () => {
    const site = Site.fromJSON({
      gateways: { a: {} },
      beacons: [{ id: 'tag-1', name: 'Anna' }, { serialNumber: '0117C5000042', name: 'Bob' }, { serial: '0117C5000043', name: 'Cleo', at: [1, 1] }, { serial: '0117C5000044', at: [2, 2] }],
    })
    expect(site.beaconNames).toEqual([{ id: 'tag-1', name: 'Anna' }, { serialNumber: '0117C5000042', name: 'Bob' }, { serialNumber: '0117C5000043', name: 'Cleo' }])
    const names = new BeaconNames(site.beaconNames)
    expect(names.nameOf('tag-1')).toBe('Anna')
    // A Kontakt beacon's id is its serial number; another id finds its name by the serial its state reports.
    expect(names.nameOf('0117C5000042')).toBe('Bob')
    expect(names.nameOf('iBeacon:f7826da6-4fa2-4e98-8024-bc5b71e0893e-1-2', '0117C5000043')).toBe('Cleo')
    expect(names.listed('tag-2')).toBe(false)
    expect(new BeaconNames([]).listed('tag-2')).toBe(true)
    expect(Site.fromJSON({ gateways: { a: {} } }).beaconNames).toEqual([])
    // Bounded, like everything read: a list past 10,000 names is refused, not held.
    expect(() => Site.fromJSON({ gateways: { a: {} }, beacons: Array.from({ length: 10_001 }, (_, i) => ({ id: `t${i}`, name: 'n' })) })).toThrow(/at most 10000/)
  })

  it('a beacon marked announce: false is named but not listed for Home Assistant (by id or serial number)', () => {
    const site = Site.fromJSON({
      gateways: { a: {} },
      beacons: [{ id: 'tag-1', name: 'Anna', announce: false }, { serialNumber: '0117C5000042', name: 'Bob', announce: false }, { id: 'tag-3', name: 'Cleo', announce: true }],
    })
    expect(site.beaconNames).toEqual([{ id: 'tag-1', name: 'Anna', announce: false }, { serialNumber: '0117C5000042', name: 'Bob', announce: false }, { id: 'tag-3', name: 'Cleo' }])
    const names = new BeaconNames(site.beaconNames)
    expect(names.nameOf('tag-1')).toBe('Anna')
    expect(names.listed('tag-1')).toBe(false)
    expect(names.nameOf('iBeacon:x', '0117C5000042')).toBe('Bob')
    expect(names.listed('iBeacon:x', '0117C5000042')).toBe(false)
    expect(names.listed('tag-3')).toBe(true)
    expect(names.listed('tag-4')).toBe(false)
    // Only a list of beacons all kept from Home Assistant: still a list, so nobody is announced.
    expect(new BeaconNames([{ id: 'tag-1', name: 'Anna', announce: false }]).listed('tag-9')).toBe(false)
  })

  it('fixed beacons make a site of the mobile case', () => {
    expect(Site.fromJSON({ anchorBeacons: { '0117C5000001': { x: 0, y: 0 } } }).kind).toBe('beacons')
  })

  it.each([
    [null, /not a JSON object/],
    [{}, /no anchors/],
    [{ gateways: { a: { x: 'left' } } }, /a\.x is "left"/],
    [{ gateways: { a: {} }, rooms: [{ polygon: [] }] }, /rooms\[0\] has no name/],
    [{ gateways: { a: {} }, rooms: [{ name: 'R', polygon: [[0, 0]] }] }, /at least three/],
    [{ gateways: { a: {} }, area: { minX: 0 } }, /area lacks/],
    [{ gateways: { a: {} }, beacons: { tag: 'Anna' } }, /beacons is not a list/],
    [{ gateways: { a: {} }, beacons: [{ name: 'Anna' }] }, /beacons\[0\] \(Anna\) has neither "id" nor "serialNumber"/],
    [{ gateways: { a: {} }, beacons: [{ id: 'a/b', name: 'Anna' }] }, /beacons\[0\]\.id is not a beacon id/],
    [{ gateways: { a: {} }, beacons: [{ id: 'tag', name: 'x'.repeat(65) }] }, /beacons\[0\]\.name is not a name/],
    [{ gateways: { a: {} }, beacons: [{ id: 'tag', name: 'bell\u0007' }] }, /beacons\[0\]\.name is not a name/],
    [{ gateways: { a: {} }, beacons: [{ id: 'tag', name: 'Anna', announce: 'no' }] }, /beacons\[0\]\.announce is not true or false/],
  ])('refuses %j with a message that says what to fix', (json, message) => {
    expect(() => Site.fromJSON(json)).toThrow(InvalidOptionError)
    expect(() => Site.fromJSON(json)).toThrow(message)
  })
})
