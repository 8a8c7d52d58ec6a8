// Away in seconds (#39): the advertising interval learnt per device, away after 3 intervals + 1 s,
// lost packets not mistaken for a slower tag, and a gateway going offline never makes a device away.
import { describe, expect, it } from 'vitest'
import { AwayTimer } from '../../src/fleet/away-timer.js'

const up = (): boolean => true

describe('AwayTimer', () => {
  it('learns a 1 Hz and a 10 s tag and declares each away after 3 intervals + 1 s of silence', () => {
    const away = new AwayTimer()
    for (let t = 0; t <= 20_000; t += 1000) away.heard('fast', 'hall', t)
    for (let t = 0; t <= 100_000; t += 10_000) away.heard('slow', 'hall', t)
    expect(away.intervalOf('fast')).toBe(1000)
    expect(away.intervalOf('slow')).toBe(10_000)
    expect(away.awayAt('fast', up)).toBe(20_000 + 4000)
    expect(away.awayAt('slow', up)).toBe(100_000 + 31_000)
    expect(away.away('fast', 23_999, up)).toBe(false)
    expect(away.away('fast', 24_000, up)).toBe(true)
  })

  it('a lost packet doubles one gap, not the interval; one packet heard by two gateways is one packet', () => {
    const away = new AwayTimer()
    for (let t = 0; t <= 30_000; t += 2000) {
      if (t % 8000 === 6000) continue // every fourth packet lost
      away.heard('tag', 'hall', t)
      away.heard('tag', 'kitchen', t + 40)
    }
    expect(away.intervalOf('tag')).toBe(2000)
  })

  it('before an interval is learnt, and while every gateway that heard it is offline, waits the fallback', () => {
    const away = new AwayTimer({ fallbackMs: 30_000 })
    away.heard('new', 'hall', 0)
    expect(away.awayAt('new', up)).toBe(30_000)
    for (let t = 0; t <= 10_000; t += 1000) away.heard('tag', 'hall', t)
    // Its only gateway drops off the network: silence says nothing of the tag.
    const hallDown = (g: string): boolean => g !== 'hall'
    expect(away.awayAt('tag', hallDown)).toBe(10_000 + 30_000)
    expect(away.away('tag', 20_000, hallDown)).toBe(false)
    // Another gateway that heard it lately is up: its silence counts.
    away.heard('tag', 'kitchen', 11_000)
    expect(away.awayAt('tag', hallDown)).toBe(11_000 + 4000)
  })

  it('is bounded in devices, the least recently heard giving way', () => {
    const away = new AwayTimer({ maxDevices: 2 })
    away.heard('a', 'g', 0)
    away.heard('b', 'g', 1)
    away.heard('a', 'g', 2)
    away.heard('c', 'g', 3)
    expect(away.size).toBe(2)
    expect(away.lastHeard('b')).toBeUndefined()
    expect(away.lastHeard('a')).toBe(2)
    away.forget('a')
    expect(away.awayAt('a', up)).toBeUndefined()
  })
})
