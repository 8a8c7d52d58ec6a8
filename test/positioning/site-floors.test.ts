// Floors in the site file (#39): `floors`, a `floor` on rooms and gateways, overlapping plans of
// different floors, old one-plane files unchanged, and `site check` naming floors that are wrong.
import { describe, expect, it } from 'vitest'
import { Site } from '../../src/positioning/site.js'
import { checkSiteJSON } from '../../src/fleet/site-check.js'

const square = (x: number, y: number, w = 4, h = 4): number[][] => [[x, y], [x + w, y], [x + w, y + h], [x, y + h]]

const house = {
  floors: [
    { id: 'ground', name: 'Ground floor', z: 0 },
    { id: 'first', name: 'First floor', z: 3, image: 'first.png' },
  ],
  gateways: {
    kitchen: { x: 1, y: 1, floor: 'ground' },
    bedroom: { x: 1, y: 1, floor: 'first' },
    hall: { x: 5, y: 1 },
  },
  rooms: [
    { name: 'Kitchen', polygon: square(0, 0), floor: 'ground' },
    { name: 'Hall', polygon: square(4, 0), floor: 'ground' },
    { name: 'Bedroom', polygon: square(0, 0), floor: 'first' },
  ],
}

describe('site floors', () => {
  it('reads floors; rooms and gateways carry them; a room on the plan is found on the gateway\'s own floor', () => {
    const site = Site.fromJSON(house)
    expect(site.floors).toEqual([
      { id: 'ground', name: 'Ground floor', z: 0 },
      { id: 'first', name: 'First floor', z: 3, image: 'first.png' },
    ])
    // Kitchen and Bedroom overlap on the plan: each gateway lands in the room of its own floor.
    expect(site.anchor('kitchen')).toMatchObject({ room: 'Kitchen', floor: 'ground' })
    expect(site.anchor('bedroom')).toMatchObject({ room: 'Bedroom', floor: 'first' })
    // A gateway without a floor takes its room's.
    expect(site.anchor('hall')).toMatchObject({ room: 'Hall', floor: 'ground' })
    expect(site.roomAt(1, 1, 'first')).toBe('Bedroom')
    expect(site.roomAt(1, 1, 'ground')).toBe('Kitchen')
    expect(site.floorOf('Bedroom')).toBe('first')
    expect(checkSiteJSON(house).problems).toEqual([])
  })

  it('a room of the object form is on the floor its gateways agree on', () => {
    const site = Site.fromJSON({
      floors: [{ id: 'up', name: 'Up' }, { id: 'down', name: 'Down' }],
      gateways: { a: { floor: 'up' }, b: { floor: 'up' }, c: { floor: 'down' } },
      rooms: { Attic: ['a', 'b'], Cellar: ['c'] },
    })
    expect(site.rooms).toEqual([{ name: 'Attic', floor: 'up' }, { name: 'Cellar', floor: 'down' }])
  })

  it('keeps the old one-plane sites as they were', () => {
    const site = Site.fromJSON({ gateways: { a: { x: 1, y: 1 } }, rooms: [{ name: 'Box', polygon: square(0, 0) }] })
    expect(site.floors).toEqual([])
    expect(site.anchor('a')).toEqual({ id: 'a', x: 1, y: 1, room: 'Box' })
    expect(site.rooms).toEqual([{ name: 'Box', polygon: square(0, 0) }])
    expect(site.roomAt(1, 1)).toBe('Box')
  })

  it.each([
    [{ floors: { ground: {} } }, /floors is not a list/],
    [{ floors: [{ id: 'a b', name: 'A' }] }, /floors\[0\]\.id is "a b"/],
    [{ floors: [{ id: 'a', name: 'A' }, { id: 'a', name: 'B' }] }, /declared twice/],
    [{ floors: [{ id: 'a' }] }, /floors\[0\]\.name is not a name/],
    [{ floors: [{ id: 'a', name: 'A', z: 'high' }] }, /floors\[0\]\.z is "high"/],
    [{ floors: [{ id: 'a', name: 'A', image: 7 }] }, /floors\[0\]\.image is not a path/],
    [{ floors: Array.from({ length: 65 }, (_, i) => ({ id: `f${i}`, name: 'F' })) }, /at most 64 floors/],
    [{ rooms: [{ name: 'R', floor: 3 }] }, /rooms\[0\]\.floor is 3/],
  ])('refuses a wrong floors entry, saying which (%#)', (extra, message) => {
    expect(() => Site.fromJSON({ gateways: { a: {} }, ...extra })).toThrow(message)
  })

  it('site check: a room or gateway naming an unknown floor, a gateway off its room\'s floor, floors left out', () => {
    const { problems } = checkSiteJSON({
      floors: [{ id: 'ground', name: 'Ground' }, { id: 'first', name: 'First' }],
      gateways: {
        a: { x: 1, y: 1, floor: 'grund' },
        b: { x: 5, y: 1, floor: 'first', room: 'Hall' },
        c: { x: 9, y: 1 },
      },
      rooms: [
        { name: 'Kitchen', polygon: square(0, 0), floor: 'ground' },
        { name: 'Hall', polygon: square(4, 0), floor: 'ground' },
        { name: 'Study', polygon: square(8, 0), floor: 'frist' },
        { name: 'Loft' },
      ],
    })
    expect(problems).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ severity: 'error', where: 'rooms[2].floor', message: expect.stringMatching(/"frist" is not declared under "floors" \(ground, first\)/) }),
        expect.objectContaining({ severity: 'warning', where: 'rooms[3]' }),
        expect.objectContaining({ severity: 'error', where: 'gateways.a.floor', message: expect.stringMatching(/"grund" is not declared/) }),
        expect.objectContaining({ severity: 'error', where: 'gateways.b.floor', message: expect.stringMatching(/its room "Hall" is on floor "ground"/) }),
      ]),
    )
    expect(problems).toHaveLength(4)
  })
})
