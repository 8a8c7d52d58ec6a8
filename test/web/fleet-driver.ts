// A simulated four-gateway site for the map tests, until the SiteSimulator lands: each gateway
// is a real mqtt.js client with the contract's last will that publishes its status and one RSSI
// batch per (virtual) second to a real broker; the tracker's clock is virtual and moves only
// after the batches of that second have arrived, so the run is exact whatever the machine's load.
import mqtt from 'mqtt'
import type { MqttClient } from 'mqtt'
import { statusPayload } from '../../src/mqtt/payloads.js'
import { Site } from '../../src/positioning/site.js'
import type { FleetTracker } from '../../src/fleet/tracker.js'
import type { VirtualClock } from '../../src/clock.js'
import { waitFor } from '../integration/wait.js'

/** Four rooms in a row of two by two, a gateway in each. */
export const SITE_JSON = {
  gateways: {
    'gw-kitchen': { x: 3, y: 2.5 },
    'gw-hall': { x: 11, y: 2.5 },
    'gw-lab': { x: 3, y: 7.5 },
    'gw-office': { x: 11, y: 7.5 },
  },
  area: { minX: 0, minY: 0, maxX: 14, maxY: 10 },
  rooms: [
    { name: 'Kitchen', polygon: [[0, 0], [7, 0], [7, 5], [0, 5]] },
    { name: 'Hall', polygon: [[7, 0], [14, 0], [14, 5], [7, 5]] },
    { name: 'Lab', polygon: [[0, 5], [7, 5], [7, 10], [0, 10]] },
    { name: 'Office', polygon: [[7, 5], [14, 5], [14, 10], [7, 10]] },
  ],
}

export const SITE = Site.fromJSON(SITE_JSON)

/** Beacon id → the room it sits in. */
export const BEACONS: Record<string, string> = {
  '0117C5400001': 'Kitchen',
  '0117C5400002': 'Kitchen',
  '0117C5400003': 'Hall',
  '0117C5400004': 'Hall',
  '0117C5400005': 'Lab',
  '0117C5400006': 'Lab',
  '0117C5400007': 'Office',
  '0117C5400008': 'Office',
}

/** The gateways and the virtual time they share with the tracker. */
export class SiteDriver {
  readonly clients = new Map<string, MqttClient>()
  /** Beacons that have left the site. */
  readonly left = new Set<string>()
  /** Gateways that were killed. */
  readonly dead = new Set<string>()

  constructor(
    private readonly url: string,
    private readonly tracker: FleetTracker,
    private readonly clock: VirtualClock,
  ) {}

  /** Connects every gateway and publishes its retained `online` status. */
  async start(): Promise<void> {
    for (const a of SITE.anchorList()) {
      const client = await mqtt.connectAsync(this.url, {
        clientId: `map-test-${a.id}`,
        reconnectPeriod: 0,
        will: { topic: `beaconkit/gateways/${a.id}/status`, payload: Buffer.from(statusPayload('offline', this.clock.now())), qos: 1, retain: true },
      })
      await client.publishAsync(`beaconkit/gateways/${a.id}/status`, statusPayload('online', this.clock.now()), { qos: 1, retain: true })
      this.clients.set(a.id, client)
    }
    // What each gateway's publisher keeps retained per beacon: the details panel reads it.
    let n = 0
    for (const [id, room] of Object.entries(BEACONS)) {
      const gw = SITE.anchorList().find((a) => a.room === room)?.id as string
      const beacon = {
        id, address: `c0:00:00:00:00:0${++n}`, serialNumber: id, hardwareModelName: 'C0', batteryLevel: 80 + n, temperature: 21.5, light: 320,
        moving: false, movingState: 'still', secure: { encrypted: true, keyId: '0001', verified: true }, inRange: true, firstSeen: this.clock.now(), lastSeen: this.clock.now(),
        rssi: -58, smoothedRssi: -58, frames: ['e781'],
      }
      await this.clients.get(gw)?.publishAsync(`beaconkit/gateways/${gw}/beacons/${id}`, JSON.stringify(beacon), { qos: 1, retain: true })
    }
    // Junk a broken gateway might leave: skipped, never shown, never a crash.
    await this.clients.get('gw-lab')?.publishAsync('beaconkit/gateways/gw-lab/beacons/JUNK', 'not json', { qos: 1, retain: true })
    await this.clients.get('gw-lab')?.publishAsync('beaconkit/gateways/gw-lab/beacons/0117C5400006', JSON.stringify({ lastSeen: 0, secure: null, batteryLevel: 'full' }), { qos: 1, retain: true })
  }

  /** RSSI of a beacon at a gateway: strong in its own room, weak next door, unheard across. */
  private rssi(gateway: string, room: string): number | undefined {
    const own = SITE.anchor(gateway)?.room
    if (own === room) return -58
    const [a, b] = [SITE.rooms.findIndex((r) => r.name === own), SITE.rooms.findIndex((r) => r.name === room)]
    return Math.abs(a - b) === 1 || Math.abs(a - b) === 2 ? -84 : undefined
  }

  /** Runs `seconds` of virtual time: one batch per live gateway per second, then the clock moves. */
  async run(seconds: number): Promise<void> {
    for (let s = 0; s < seconds; s++) {
      const time = this.clock.now()
      const before = this.tracker.stats.batches
      let sent = 0
      for (const [gw, client] of this.clients) {
        if (this.dead.has(gw)) continue
        const readings = Object.entries(BEACONS)
          .filter(([id]) => !this.left.has(id))
          .map(([id, room], i) => ({ id, rssi: this.rssi(gw, room), measuredPower: -59, lastSeen: time - 200, count: 5, i }))
          .filter((r) => r.rssi !== undefined)
          // A few dB of fading, as real RSSI has: the sparklines have something to show.
          .map(({ i, ...r }) => ({ ...r, rssi: (r.rssi as number) + (((time / 1000 + i) % 5) - 2) }))
        await client.publishAsync(`beaconkit/gateways/${gw}/rssi`, JSON.stringify({ gateway: gw, time, readings }), { qos: 1 })
        sent++
      }
      await waitFor(() => this.tracker.stats.batches >= before + sent, 'the batches of one second at the tracker', 20_000)
      this.clock.advanceBy(1000)
    }
  }

  /** Kills a gateway without a clean close: the broker publishes its last will. */
  kill(gateway: string): void {
    this.dead.add(gateway)
    this.clients.get(gateway)?.end(true)
  }

  async close(): Promise<void> {
    for (const [gw, c] of this.clients) if (!this.dead.has(gw)) await c.endAsync()
  }
}
