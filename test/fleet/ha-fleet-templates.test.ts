// The fleet's Home Assistant templates (contract v2, section 3) rendered by real Jinja2 with Home
// Assistant's variables (test/support/ha-schema.ts), on the presence and state payloads the
// tracker publishes: the device_tracker's attributes put a present beacon in zone.home and an
// away one in no zone; the Room sensor shows the room, home, away, or unknown.
import { describe, expect, it } from 'vitest'
import { FLEET_HA_FIELDS, haRoomConfig, haTrackerConfig, haValueConfig } from '../../src/fleet/home-assistant.js'
import type { FleetPresenceState } from '../../src/fleet/fleet-presence.js'
import { jinjaAvailable, renderTemplatesSafe } from '../support/ha-schema.js'

const ID = '0117C5000001'
const presence = (state: Omit<FleetPresenceState, 'id' | 'time'>): string => JSON.stringify({ id: ID, ...state, time: 1_700_000_000_000 })
const PRESENT_ROOM = presence({ present: true, room: 'Kitchen', name: 'Keys' })
const PRESENT = presence({ present: true })
const AWAY = presence({ present: false, name: 'Keys' })

describe.skipIf(!jinjaAvailable())('fleet Home Assistant templates through Jinja2 (needs python3 with python3-jinja2)', () => {
  it('the device_tracker attributes: in_zones ["zone.home"] while present, [] when away or unreadable; room and name', () => {
    const template = haTrackerConfig('beaconkit', ID).json_attributes_template as string
    const rendered = renderTemplatesSafe([PRESENT_ROOM, PRESENT, AWAY, '', 'not json', '[1,2]'].map((payload) => ({ template, payload })))
    const parsed = rendered.map((r) => ('ok' in r ? (JSON.parse(r.ok) as unknown) : r))
    expect(parsed).toEqual([
      { in_zones: ['zone.home'], room: 'Kitchen', name: 'Keys' },
      { in_zones: ['zone.home'], room: null },
      { in_zones: [], room: null, name: 'Keys' },
      { in_zones: [], room: null },
      { in_zones: [], room: null },
      { in_zones: [], room: null },
    ])
  })

  it('the Room sensor: the room, home without one, away, None for an empty or foreign payload', () => {
    const template = haRoomConfig('beaconkit', ID).value_template as string
    const rendered = renderTemplatesSafe([PRESENT_ROOM, PRESENT, AWAY, '', '{"present":"yes"}', '{}'].map((payload) => ({ template, payload })))
    expect(rendered).toEqual([{ ok: 'Kitchen' }, { ok: 'home' }, { ok: 'away' }, { ok: 'None' }, { ok: 'away' }, { ok: 'None' }])
  })

  it('the value sensors read the fused values of <p>/fleet/beacons/<id>, unknown once it is cleared', () => {
    const state = JSON.stringify({ id: ID, present: true, time: 1, gateways: [], firstSeen: 0, lastSeen: 1, values: { temperature: 21.5, light: null, batteryLevel: 80, accelerometerCount: 7, moving: true } })
    const cases = FLEET_HA_FIELDS.flatMap((f) => [state, ''].map((payload) => ({ template: haValueConfig('beaconkit', ID, f).value_template as string, payload })))
    expect(renderTemplatesSafe(cases)).toEqual([{ ok: '21.5' }, { ok: 'None' }, { ok: 'None' }, { ok: 'None' }, { ok: '80' }, { ok: 'None' }, { ok: '7' }, { ok: 'None' }, { ok: 'ON' }, { ok: 'None' }])
  })
})
