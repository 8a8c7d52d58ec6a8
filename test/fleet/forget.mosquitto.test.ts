// Forgetting a beacon (contract v2, section 3) through a real Mosquitto, in real time with short
// settings: `tracker.forget(id)` and a `<p>/fleet/forget` command clear its fleet state, presence
// and every Home Assistant config (read back from the broker); a forget command that is not
// `{"id": "<beacon id>"}` is skipped and counted; a beacon heard again after being forgotten is
// announced again, only once its dwell is over.
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { FleetTracker } from '../../src/fleet/tracker.js'
import { haFleetConfigTopics, haValueConfigTopic } from '../../src/fleet/home-assistant.js'
import { Mosquitto, MOSQUITTO, needsMosquitto } from '../support/mosquitto.js'
import { retainedMessages } from '../support/mqtt-subscriber.js'
import { waitFor } from '../integration/wait.js'

const ID = '0117C50000F1'

describe.skipIf(!MOSQUITTO)(needsMosquitto('forgetting a fleet beacon through Mosquitto'), () => {
  let broker: Mosquitto
  let raw: MqttClient

  beforeAll(async () => {
    broker = await Mosquitto.start()
    raw = await mqtt.connectAsync(broker.url, { clientId: 'forget-gateway', reconnectPeriod: 0 })
  })

  afterAll(async () => {
    await raw?.endAsync()
    await broker?.close()
  })

  /** Publishes an RSSI batch hearing ID every 300 ms until stopped. */
  const hear = (prefix: string): (() => void) => {
    const timer = setInterval(() => {
      const at = Date.now()
      void raw.publishAsync(`${prefix}/gateways/k/rssi`, JSON.stringify({ gateway: 'k', time: at, readings: [{ id: ID, rssi: -60, lastSeen: at, count: 3 }] }), { qos: 1 })
    }, 300)
    return () => clearInterval(timer)
  }

  /** The retained topics of ID: fleet state, presence and configs. */
  const retainedOf = async (prefix: string, ha: string): Promise<string[]> => [...(await retainedMessages(broker.url, [`${prefix}/fleet/#`, `${ha}/#`])).keys()].filter((k) => k.endsWith(ID) || k.includes(ID.toLowerCase())).sort()

  it('forget(id) clears presence, state and every config; heard again, the beacon is announced again after the dwell', async () => {
    const t = new FleetTracker({ url: broker.url, clientId: 'forget-api', topicPrefix: 'fa', goneTimeoutMs: 5000, hearingMs: 1000, homeAssistant: { prefix: 'hfa', dwellMs: 2000 } })
    await t.start()
    // The gateway's own state of the beacon: a temperature, so a value sensor too.
    await raw.publishAsync(`fa/gateways/k/beacons/${ID}`, JSON.stringify({ id: ID, serialNumber: ID, inRange: true, temperature: 20, firstSeen: Date.now(), lastSeen: Date.now() }), { qos: 1, retain: true })
    let stop = hear('fa')
    try {
      await waitFor(() => t.stats.homeAssistant?.announced === 1, 'announced', 20_000)
      stop()
      // The value sensor follows on a refresh of the fused state.
      const temperature = haValueConfigTopic('hfa', ID, 'temperature')
      await waitFor(() => t.stats.published > 0 && t.get(ID)?.values?.temperature === 20, 'the value fused', 20_000)
      let before: string[] = []
      for (let i = 0; i < 100 && !before.includes(temperature); i++) {
        await new Promise((resolve) => setTimeout(resolve, 200))
        before = await retainedOf('fa', 'hfa')
      }
      expect(before).toEqual([`fa/fleet/beacons/${ID}`, `fa/fleet/presence/${ID}`, ...haFleetConfigTopics('hfa', ID).slice(0, 2), temperature].sort())

      t.forget(ID)
      expect(await t.flush()).toBe(true)
      expect(await retainedOf('fa', 'hfa')).toEqual([])
      expect(t.get(ID)).toBeUndefined()
      expect(t.stats.homeAssistant?.announced).toBe(0)
      expect(() => t.forget('a/b')).toThrow(/beacon id/)

      // Heard again: found anew, and announced again once heard over the dwell (not before).
      const again = Date.now()
      stop = hear('fa')
      await waitFor(() => t.get(ID) !== undefined, 'found again', 20_000)
      expect(await t.flush()).toBe(true)
      expect((await retainedOf('fa', 'hfa')).filter((k) => k.startsWith('hfa/'))).toEqual([])
      await waitFor(() => t.stats.homeAssistant?.announced === 1, 'announced again', 20_000)
      expect(Date.now() - again).toBeGreaterThanOrEqual(2000)
      expect(await t.flush()).toBe(true)
      expect(await retainedOf('fa', 'hfa')).toEqual(expect.arrayContaining(haFleetConfigTopics('hfa', ID).slice(0, 2)))
    } finally {
      stop()
      await t.stop()
    }
  }, 60_000)

  it('a running tracker forgets on <p>/fleet/forget; what is not {"id": "<beacon id>"} is skipped and counted', async () => {
    const t = new FleetTracker({ url: broker.url, clientId: 'forget-command', topicPrefix: 'fc', goneTimeoutMs: 5000, hearingMs: 1000, homeAssistant: { prefix: 'hfc', dwellMs: 1000 } })
    await t.start()
    const stop = hear('fc')
    try {
      await waitFor(() => t.stats.homeAssistant?.announced === 1, 'announced', 20_000)
      stop()
      expect(await t.flush()).toBe(true)
      for (const bad of ['not json', '{"id":"a/b"}', '{"id":"+"}', '[]', '{}', JSON.stringify({ id: 'x'.repeat(2000) })]) await raw.publishAsync('fc/fleet/forget', bad, { qos: 1 })
      await raw.publishAsync('fc/fleet/forget', JSON.stringify({ id: ID }), { qos: 1 })
      await waitFor(() => t.stats.forgetCommands.done === 1, 'the forget command', 20_000)
      expect(t.stats.forgetCommands).toEqual({ done: 1, invalid: 6 })
      expect(await t.flush()).toBe(true)
      expect(await retainedOf('fc', 'hfc')).toEqual([])
      expect(t.get(ID)).toBeUndefined()
    } finally {
      stop()
      await t.stop()
    }
  }, 60_000)
})
