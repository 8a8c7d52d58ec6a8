import { describe, expect, it } from 'vitest'
import type { Advertisement } from '../../src/advertisement.js'
import { VirtualClock } from '../../src/clock.js'
import { encodeIBeacon } from '../../src/frames/ibeacon.js'
import type { Beacon } from '../../src/reading.js'
import { BeaconScanner } from '../../src/scanner/scanner.js'
import { parseIdentityKey, rpaFor } from '../../src/secure/identity-key.js'
import { IdentityKeyring } from '../../src/secure/identity-keyring.js'
import { PushSource } from '../support/push-source.js'

const T0 = 1_800_000_000_000
const PHONE = parseIdentityKey('alice-phone', 'ec0234a357c8ad05341010a60a397d9b')
const WATCH = parseIdentityKey('bob.watch', '00112233445566778899aabbccddeeff')
const STRANGER = parseIdentityKey('stranger', 'ffeeddccbbaa99887766554433221100')
/** Apple Nearby Info (type 0x10) under Apple's company id: a phone's usual advertisement, no known frame. */
const NEARBY = Uint8Array.from([0x4c, 0x00, 0x10, 0x05, 0x01, 0x18, 0x2c, 0x9a, 0x3e])

interface Seen {
  event: 'found' | 'gone'
  time: number
  id: string
  address: string
}

async function scanner(identities: IdentityKeyring | undefined): Promise<{
  clock: VirtualClock
  source: PushSource
  scanner: BeaconScanner
  seen: Seen[]
}> {
  const clock = new VirtualClock(T0)
  const source = new PushSource(clock)
  const s = new BeaconScanner({ source, clock, ...(identities === undefined ? {} : { identities }) })
  const seen: Seen[] = []
  const note = (event: 'found' | 'gone') => (b: Beacon) =>
    seen.push({ event, time: clock.now(), id: b.id, address: b.address })
  s.on('found', note('found'))
  s.on('gone', note('gone'))
  await s.start()
  return { clock, source, scanner: s, seen }
}

/** Pushes one advertisement at clock time `t`. */
function heard(clock: VirtualClock, source: PushSource, t: number, adv: Omit<Advertisement, 'timestamp'>): void {
  clock.advanceTo(t)
  source.emit('advertisement', { timestamp: t, ...adv })
}

describe('a scanner with identity resolving keys', () => {
  it('keeps one device across rotations every 40 s, found once and gone once, gone timeout after silence', async () => {
    const { clock, source, scanner: s, seen } = await scanner(new IdentityKeyring([PHONE, WATCH]))
    // Five minutes: a packet a second, a new address every 40 s.
    for (let sec = 0; sec < 300; sec++) {
      const address = rpaFor(PHONE, 1000 + Math.floor(sec / 40))
      heard(clock, source, T0 + sec * 1000, { address, addressType: 'random', rssi: -60, manufacturerData: NEARBY })
    }
    const lastPacket = T0 + 299_000
    clock.advanceTo(lastPacket + 20_000)
    expect(seen.map((e) => [e.event, e.id, e.time])).toEqual([
      ['found', 'irk:alice-phone', T0],
      ['gone', 'irk:alice-phone', lastPacket + 8000],
    ])
    // The gone beacon carries the latest address it was heard from.
    expect(seen[1]?.address).toBe(rpaFor(PHONE, 1000 + 7))
    expect(s.stats.identities).toMatchObject({ resolved: 8, unresolved: 0 })
    await s.stop()
  })

  it('tracks a resolved watch that carries an iBeacon frame as irk:<name>, with the frame decoded', async () => {
    const { clock, source, scanner: s, seen } = await scanner(new IdentityKeyring([PHONE, WATCH]))
    const uuid = 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0'
    const ibeacon = encodeIBeacon({ proximityUUID: uuid, major: 7, minor: 9, measuredPower: -59 })
    for (let sec = 0; sec < 90; sec++) {
      const address = rpaFor(WATCH, 77 + Math.floor(sec / 30))
      heard(clock, source, T0 + sec * 1000, { address, rssi: -55, manufacturerData: ibeacon })
    }
    const [beacon] = s.beacons()
    expect(beacon).toMatchObject({ id: 'irk:bob.watch', irk: 'bob.watch', proximityUUID: uuid, major: 7, minor: 9 })
    expect(beacon?.frames).toEqual(['ibeacon'])
    expect(beacon?.beaconID).toBe(`${uuid}|7|9`)
    expect(s.beacons()).toHaveLength(1)
    clock.advanceTo(T0 + 200_000)
    expect(seen.map((e) => `${e.event} ${e.id}`)).toEqual(['found irk:bob.watch', 'gone irk:bob.watch'])
    await s.stop()
  })

  it('tracks a resolved phone whose advertisement carries nothing at all', async () => {
    const { clock, source, scanner: s } = await scanner(new IdentityKeyring([PHONE]))
    heard(clock, source, T0, { address: rpaFor(PHONE, 5), rssi: -70 })
    expect(s.beacons().map((b) => [b.id, b.frames.length, b.accuracy])).toEqual([['irk:alice-phone', 0, -1]])
    await s.stop()
  })

  it('leaves a stranger rotating under an unknown key unresolved, and frame-less strangers dropped as before', async () => {
    const { clock, source, scanner: s, seen } = await scanner(new IdentityKeyring([PHONE]))
    for (let sec = 0; sec < 120; sec++) {
      const address = rpaFor(STRANGER, 9 + Math.floor(sec / 40))
      heard(clock, source, T0 + sec * 1000, { address, addressType: 'random', rssi: -65, manufacturerData: NEARBY })
    }
    clock.advanceTo(T0 + 200_000)
    expect(seen).toEqual([])
    expect(s.stats.identities).toMatchObject({ resolved: 0, unresolved: 3 })
    expect(s.stats.ignored).toBe(120)
    await s.stop()
  })

  it('is what it was without keys: a phone is nothing, and its iBeacon is a beacon per address', async () => {
    const { clock, source, scanner: s, seen } = await scanner(undefined)
    const ibeacon = encodeIBeacon({
      proximityUUID: 'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0',
      major: 1,
      minor: 2,
      measuredPower: -59,
    })
    heard(clock, source, T0, { address: rpaFor(PHONE, 1), rssi: -60, manufacturerData: NEARBY })
    heard(clock, source, T0 + 1000, { address: rpaFor(WATCH, 1), rssi: -60, manufacturerData: ibeacon })
    clock.advanceTo(T0 + 20_000)
    expect(seen.map((e) => e.id)).toEqual([
      'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|1|2',
      'E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|1|2',
    ])
    expect(s.stats.identities).toBeUndefined()
    await s.stop()
  })

  it('refuses an identities option that is not a keyring or a resolver', () => {
    expect(() => new BeaconScanner({ source: new PushSource(), identities: ['x'] as never })).toThrow(/identities/)
  })
})
