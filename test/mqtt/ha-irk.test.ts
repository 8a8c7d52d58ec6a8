/**
 * A gateway's Home Assistant configs for a phone or watch resolved with its own IRK file
 * (issue 37): `irk:<name>` is announced as soon as it is found (the user named it in the file,
 * no dwell), under the key's name; a device known by a random address, or made up as `irk:…`
 * without having been resolved, is not.
 */
import { describe, expect, it } from 'vitest'
import { HaAnnouncer } from '../../src/mqtt/home-assistant.js'
import { hasStableIdentity } from '../../src/mqtt/stable-identity.js'
import type { Beacon } from '../../src/reading.js'

const SETTINGS = { prefix: 'homeassistant', topicPrefix: 'beaconkit', gatewayId: 'hall', expireAfterSeconds: 60 }
const T0 = 1_767_254_400_000

function beacon(over: Partial<Beacon> & { id: string }): Beacon {
  return {
    address: '4a:11:22:33:44:55',
    rssi: -60,
    smoothedRssi: -60,
    firstSeen: T0,
    lastSeen: T0 + 1000,
    frames: [],
    ...over,
  } as unknown as Beacon
}

describe('Home Assistant and irk:<name> devices (gateway on its own)', () => {
  it('announces a resolved phone at once, named by its key', () => {
    const ha = new HaAnnouncer(SETTINGS)
    const phone = beacon({ id: 'irk:alice-phone', irk: 'alice-phone' })
    expect(hasStableIdentity(phone)).toBe(true)
    ha.found(phone, T0)
    const configs = ha.due(phone, T0 + 1000)
    expect(configs.length).toBeGreaterThan(0)
    for (const c of configs) {
      expect(c.topic).toContain('irk_alice_phone')
      expect((JSON.parse(c.payload) as { device: { name: string } }).device.name).toBe('alice-phone')
    }
  })

  it('does not announce a stranger known by its address, nor an irk: id that was not resolved', () => {
    const ha = new HaAnnouncer(SETTINGS)
    const stranger = beacon({ id: '4a:11:22:33:44:55' })
    const madeUp = beacon({ id: 'irk:mallory' })
    for (const b of [stranger, madeUp]) {
      expect(hasStableIdentity(b)).toBe(false)
      ha.found(b, T0)
      expect(ha.due(b, T0 + 120_000)).toEqual([])
    }
  })
})
