// Home Assistant's birth (src/mqtt/ha-birth.ts): only a live `online` on the birth topic counts,
// and a flood is answered at most once per interval, the last birth late but never dropped.
import { EventEmitter } from 'node:events'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { MqttLink } from '../../src/mqtt/connection.js'
import { HaBirthWatch } from '../../src/mqtt/ha-birth.js'

function fakeLink(): { link: MqttLink; emitter: EventEmitter; subscribed: string[][] } {
  const emitter = new EventEmitter()
  const subscribed: string[][] = []
  const link = Object.assign(emitter, {
    subscribe: (filters: string[]) => {
      subscribed.push(filters)
      return Promise.resolve()
    },
  })
  return { link: link as unknown as MqttLink, emitter, subscribed }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('HaBirthWatch', () => {
  it('answers a live online on <prefix>/status, rate-limited, and nothing else', () => {
    vi.useFakeTimers()
    let announced = 0
    const watch = new HaBirthWatch('ha', () => announced++, 5000)
    const { link, emitter, subscribed } = fakeLink()
    watch.connected(link)
    expect(subscribed).toEqual([['ha/status']])
    const send = (topic: string, payload: string, retained = false): boolean => emitter.emit('message', topic, Buffer.from(payload), retained)
    send('ha/status', 'online', true)
    send('ha/status', 'offline')
    send('other/status', 'online')
    send('ha/status', 'online'.padEnd(40, ' x'))
    expect(announced).toBe(0)
    send('ha/status', 'online')
    expect(announced).toBe(1)
    // A flood within the interval: one more answer, at its end.
    for (let i = 0; i < 100; i++) send('ha/status', 'online')
    expect(announced).toBe(1)
    vi.advanceTimersByTime(5000)
    expect(announced).toBe(2)
    watch.close()
    send('ha/status', 'online')
    vi.advanceTimersByTime(10_000)
    expect(announced).toBe(2)
  })
})
