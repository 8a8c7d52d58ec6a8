// Occupancy per room for Home Assistant (#39): counts of present beacons per room, payloads
// published only when they change, and the discovery config on the room's own device with
// suggested_area — its templates rendered by real Jinja2 like the other fleet templates.
import { describe, expect, it } from 'vitest'
import type { FleetBeacon } from '../../src/fleet/fleet-beacon.js'
import {
  changedRooms,
  haOccupancyConfig,
  haOccupancyConfigTopic,
  roomOccupancy,
  roomOccupancyTopic,
  roomSlug,
} from '../../src/fleet/room-occupancy.js'
import { jinjaAvailable, renderTemplatesSafe } from '../support/ha-schema.js'

const beacon = (id: string, room?: string, name?: string): FleetBeacon => ({
  id, time: 0, present: true, gateways: [], firstSeen: 0, lastSeen: 0,
  ...(room === undefined ? {} : { room }), ...(name === undefined ? {} : { name }),
})
const rooms = [{ name: 'Living room', floor: 'ground' }, { name: 'Bedroom', floor: 'first' }]

describe('room occupancy', () => {
  it('counts present beacons per room, every room listed, names sorted', () => {
    const got = roomOccupancy(rooms, [beacon('a', 'Living room', 'Bob'), beacon('b', 'Living room', 'Anna'), beacon('c'), beacon('d', 'Attic')])
    expect(got).toEqual([
      { room: 'Living room', floor: 'ground', count: 2, beacons: ['Anna', 'Bob'] },
      { room: 'Bedroom', floor: 'first', count: 0, beacons: [] },
    ])
    expect(roomSlug('Living room')).toBe('living_room')
    expect(roomOccupancyTopic('bk', 'Living room')).toBe('bk/fleet/rooms/living_room')
  })

  it('publishes a room again only when its payload changed', () => {
    const last = new Map<string, string>()
    expect(changedRooms(last, roomOccupancy(rooms, [beacon('a', 'Bedroom')])).map((s) => s.room)).toEqual(['Living room', 'Bedroom'])
    expect(changedRooms(last, roomOccupancy(rooms, [beacon('a', 'Bedroom')]))).toEqual([])
    expect(changedRooms(last, roomOccupancy(rooms, [])).map((s) => [s.room, s.count])).toEqual([['Bedroom', 0]])
  })

  it('the config: one sensor on the room\'s own device, filed in its area', () => {
    const c = haOccupancyConfig('beaconkit', 'Living room')
    expect(haOccupancyConfigTopic('homeassistant', 'Living room')).toBe('homeassistant/sensor/beaconkit_room_living_room_occupancy/config')
    expect(c).toMatchObject({
      unique_id: 'beaconkit_room_living_room_occupancy',
      state_topic: 'beaconkit/fleet/rooms/living_room',
      device: { identifiers: ['beaconkit_room_living_room'], name: 'Living room', suggested_area: 'Living room' },
    })
  })

  it.skipIf(!jinjaAvailable())('its templates through Jinja2: the count, the names and floor; None for a foreign payload', () => {
    const c = haOccupancyConfig('beaconkit', 'Bedroom')
    const payload = JSON.stringify({ room: 'Bedroom', floor: 'first', count: 2, beacons: ['Anna', 'Bob'] })
    const rendered = renderTemplatesSafe([payload, '', '{"count":"two"}'].flatMap((p) => [
      { template: c.value_template as string, payload: p },
      { template: c.json_attributes_template as string, payload: p },
    ]))
    expect(rendered[0]).toEqual({ ok: '2' })
    expect(JSON.parse((rendered[1] as { ok: string }).ok)).toEqual({ beacons: ['Anna', 'Bob'], floor: 'first' })
    expect(rendered[2]).toEqual({ ok: 'None' })
    expect(JSON.parse((rendered[3] as { ok: string }).ok)).toEqual({ beacons: [], floor: null })
    expect(rendered[4]).toEqual({ ok: 'None' })
  })
})

describe.skipIf(!jinjaAvailable())('the Room sensor gains the floor as an attribute (#39)', () => {
  it('floor while present on a floor; None away, on a one-plane site, or for a foreign payload', async () => {
    const { haRoomConfig } = await import('../../src/fleet/home-assistant.js')
    const c = haRoomConfig('beaconkit', 'tag')
    expect(c.json_attributes_topic).toBe('beaconkit/fleet/presence/tag')
    const payloads = [
      { id: 'tag', present: true, room: 'Bedroom', floor: 'first', time: 1 },
      { id: 'tag', present: true, room: 'Kitchen', time: 1 },
      { id: 'tag', present: false, floor: 'first', time: 1 },
    ].map((p) => JSON.stringify(p))
    const rendered = renderTemplatesSafe([...payloads, ''].map((payload) => ({ template: c.json_attributes_template as string, payload })))
    expect(rendered.map((r) => JSON.parse((r as { ok: string }).ok) as unknown)).toEqual([{ floor: 'first' }, { floor: null }, { floor: null }, { floor: null }])
  })
})
