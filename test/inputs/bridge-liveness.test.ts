// The pieces of the foreign-input bridge's liveness that need no broker: the `via` member of a
// gateway status (written by MqttPublisher's statusFields, read by every status reader as before),
// and the checks of bridgeId, staleGraceMs and statusFields. The broker side is in
// bridge-liveness.mosquitto.test.ts.
import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { InvalidOptionError } from '../../src/errors.js'
import { statusState } from '../../src/fleet/gateway-messages.js'
import { defaultBridgeId } from '../../src/inputs/bridge-liveness.js'
import { ForeignBridge } from '../../src/inputs/bridge.js'
import { isSweepTopic } from '../../src/inputs/stale-sweep.js'
import { PACKAGE_VERSION, readStatusState, statusPayload } from '../../src/mqtt/payloads.js'
import { MqttPublisher } from '../../src/mqtt/publisher.js'

const URL = 'mqtt://127.0.0.1:1'
const INPUTS = [{ format: 'omg' as const, base: 'home' }]

function optionError(make: () => unknown): InvalidOptionError {
  try {
    make()
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidOptionError)
    return error as InvalidOptionError
  }
  throw new Error('no error thrown')
}

describe('a gateway status with extra fields (via)', () => {
  it('carries via in both forms, beacons in the online form only, the contract members unchanged', () => {
    expect(JSON.parse(statusPayload('online', 5, 3, { via: 'fleet-a' }))).toEqual({ state: 'online', time: 5, version: PACKAGE_VERSION, via: 'fleet-a', beacons: 3 })
    expect(JSON.parse(statusPayload('offline', 5, 3, { via: 'fleet-a' }))).toEqual({ state: 'offline', time: 5, version: PACKAGE_VERSION, via: 'fleet-a' })
    // Called directly with reserved names, the function still writes the contract's own values.
    expect(JSON.parse(statusPayload('offline', 5, undefined, { state: 'online', time: 'x', version: 'y', beacons: '9' }))).toEqual({ state: 'offline', time: 5, version: PACKAGE_VERSION })
  })

  it('is read by the fleet and by readStatusState exactly as a status without via', () => {
    for (const state of ['online', 'offline'] as const) {
      const text = statusPayload(state, 1, undefined, { via: 'fleet-a' })
      expect(statusState(JSON.parse(text))).toBe(state)
      expect(readStatusState(Buffer.from(text))).toBe(state)
    }
  })

  it('MqttPublisher refuses statusFields that would replace a member, hold a non-string or exceed 1 KiB', () => {
    const bad: unknown[] = [{ state: 'online' }, { beacons: '3' }, { via: 7 }, { via: 'x'.repeat(2000) }, ['via'], 'via']
    for (const statusFields of bad) {
      const error = optionError(() => new MqttPublisher({ url: URL, gatewayId: 'hall', statusFields: statusFields as Record<string, string> }))
      expect(error.code).toBe('invalid_option')
      expect(error.option).toBe('statusFields')
    }
    expect(new MqttPublisher({ url: URL, gatewayId: 'hall', statusFields: { via: 'fleet-a' } }).gatewayId).toBe('hall')
  })
})

describe('ForeignBridge id and grace', () => {
  it('refuses a bridgeId that is not a topic level, and a negative or non-number grace', () => {
    for (const bridgeId of ['', 'a/b', 'a+b', '#', 'x'.repeat(129), 'sp ace']) {
      const error = optionError(() => new ForeignBridge({ url: URL, inputs: INPUTS, bridgeId }))
      expect([error.code, error.option]).toEqual(['invalid_option', 'bridgeId'])
    }
    for (const staleGraceMs of [-1, Number.NaN, Infinity]) {
      expect(optionError(() => new ForeignBridge({ url: URL, inputs: INPUTS, staleGraceMs })).option).toBe('staleGraceMs')
    }
  })

  it('defaults the id from the client id, else to one stable per host (not the random client id)', () => {
    expect(new ForeignBridge({ url: URL, inputs: INPUTS, clientId: 'fleet.main/inputs' }).bridgeId).toBe('fleet_main_inputs')
    expect(new ForeignBridge({ url: URL, inputs: INPUTS, bridgeId: 'ha-bridge', clientId: 'x' }).bridgeId).toBe('ha-bridge')
    const a = new ForeignBridge({ url: URL, inputs: INPUTS }).bridgeId
    expect(a).toMatch(/^beaconkit-inputs(-[A-Za-z0-9_-]+)?$/)
    expect(new ForeignBridge({ url: URL, inputs: INPUTS }).bridgeId).toBe(a)
    // A client id the broker assigns ('') gives no id of its own.
    expect(defaultBridgeId('')).toBe(a)
  })

  it('shows its id in inspect and JSON, never the password', () => {
    const bridge = new ForeignBridge({ url: URL, inputs: INPUTS, bridgeId: 'fleet-a', password: 'hunter2-secret' })
    expect(inspect(bridge)).toContain("bridgeId: 'fleet-a'")
    expect(JSON.stringify(bridge)).toContain('"bridgeId":"fleet-a"')
    expect(inspect(bridge) + JSON.stringify(bridge)).not.toContain('hunter2')
  })

  it('leaves gateway statuses and its own status to the sweep, never to the foreign parsers', () => {
    const own = (t: string): boolean => isSweepTopic('site/bk', 'site/bk/inputs/fleet-a/status', t)
    expect(['site/bk/gateways/omg-a/status', 'site/bk/inputs/fleet-a/status'].map(own)).toEqual([true, true])
    expect(['site/bk/gateways/omg-a/rssi', 'site/bk/gateways/a/b/status', 'home/omg-a/LWT', 'site/bk/inputs/other/status'].map(own)).toEqual([false, false, false, false])
  })
})
