// The model→parts mapping (src/gateway/settings/): every default decided in one place, and every
// bad setting of a model named by its path in one ConfigError.
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../../src/config/config-error.js'
import { gatewaySettings } from '../../../src/gateway/settings/gateway.js'
import { fleetSettings } from '../../../src/gateway/settings/fleet.js'
import { defaultGatewayId } from '../../../src/gateway/settings/mqtt.js'

function problemPaths(run: () => unknown): string[] {
  try {
    run()
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError)
    expect((error as ConfigError).code).toBe('invalid_config')
    return (error as ConfigError).problems.map((p) => p.path)
  }
  throw new Error('expected a ConfigError')
}

describe('gatewaySettings', () => {
  it('an empty model is a scanner alone, with no filter', () => {
    expect(gatewaySettings({})).toEqual({ filter: {} })
  })

  it('decides the defaults: the gateway id from the host name, the listen host, the Home Assistant gate in ms', () => {
    const s = gatewaySettings({
      mqtt: { url: 'mqtt://127.0.0.1:1883', homeAssistant: { enabled: true, dwell: 2.5, expire: 60, beacons: 'off' } },
      http: { listen: 8080 },
      metrics: { listen: '[::1]:9100', token: 'metrics-token-0123456789' },
    })
    expect(s.mqtt).toMatchObject({
      url: 'mqtt://127.0.0.1:1883',
      gatewayId: defaultGatewayId(),
      homeAssistant: true,
      haDwellMs: 2500,
      haExpireMs: 60_000,
      haBeacons: false,
    })
    expect(s.http).toEqual({ host: '127.0.0.1', port: 8080 })
    expect(s.metrics).toEqual({ host: '::1', port: 9100, token: 'metrics-token-0123456789' })
    expect(gatewaySettings({ gateway: { id: 'hall' }, mqtt: { url: 'mqtt://b' } }).mqtt?.gatewayId).toBe('hall')
  })

  it('writes filters the way readings carry them', () => {
    const { filter } = gatewaySettings({
      filters: {
        serialNumbers: ['0117c5456a36'],
        proximityUUIDs: ['e2c56db5dffb48d2b060d0f5a71096e0'],
        beaconIDs: ['e2c56db5-dffb-48d2-b060-d0f5a71096e0|1|2'],
      },
    })
    expect(filter.serialNumbers).toEqual(['0117C5456A36'])
    expect(filter.proximityUUIDs).toEqual(['E2C56DB5-DFFB-48D2-B060-D0F5A71096E0'])
    expect(filter.beaconIDs).toEqual(['E2C56DB5-DFFB-48D2-B060-D0F5A71096E0|1|2'])
  })

  it('names every bad setting by its path in one ConfigError', () => {
    const paths = problemPaths(() =>
      gatewaySettings({
        gateway: { id: 'hall' },
        mqtt: { homeAssistant: { dwell: 5 } },
        upload: { cloudUrl: 'https://cloud.example.com' },
        http: { token: 'metrics-token-0123456789' },
        metrics: { listen: 'nowhere' },
        filters: { serialNumbers: ['0117C5456A36', 'xyz'] },
      }),
    )
    expect(paths.sort()).toEqual(
      [
        'filters.serialNumbers[1]',
        'upload.cloudUrl',
        'gateway.id',
        'mqtt.homeAssistant.dwell',
        'http.token',
        'metrics.listen',
      ].sort(),
    )
  })

  it('checks the settings that go together', () => {
    expect(problemPaths(() => gatewaySettings({ upload: { enabled: true } })).sort()).toEqual([
      'upload.cloudUrl',
      'upload.email',
      'upload.passwordFile',
    ])
    const paths = problemPaths(() =>
      gatewaySettings({
        mqtt: {
          url: 'http://broker',
          passwordFile: '/etc/pw',
          queueDir: '/var/q',
          homeAssistant: { expire: 10 },
        },
        upload: { enabled: true, cloudUrl: 'ftp://x', email: 'a@b', passwordFile: '/p', queueDir: '/var/q' },
      }),
    )
    expect(paths.sort()).toEqual(
      ['mqtt.url', 'mqtt.passwordFile', 'mqtt.queueDir', 'mqtt.homeAssistant.expire', 'upload.cloudUrl'].sort(),
    )
  })
})

describe('fleetSettings', () => {
  it('needs one broker: its own or yours', () => {
    expect(problemPaths(() => fleetSettings({}))).toEqual(['mqtt.url'])
    expect(problemPaths(() => fleetSettings({ mqtt: { url: 'mqtt://b' }, fleet: { embeddedBroker: true } }))).toEqual([
      'mqtt.url',
    ])
    const own = fleetSettings({ fleet: { embeddedBroker: true } })
    expect(own.embeddedBroker).toBe(1883)
    expect(own.mqtt.url).toBe('mqtt://127.0.0.1:1883')
    expect(fleetSettings({ fleet: { embeddedBroker: 0 } }).embeddedBroker).toBe(0)
  })

  it('reads the inputs, and names what needs the site or the inputs', () => {
    const s = fleetSettings({ mqtt: { url: 'mqtt://b' }, fleet: { inputs: ['espresense', 'omg:home@-4'] } })
    expect(s.inputs).toEqual([
      { format: 'espresense', base: 'espresense' },
      { format: 'omg', base: 'home', rssiOffsetDb: -4 },
    ])
    const paths = problemPaths(() =>
      fleetSettings({
        mqtt: { url: 'mqtt://b' },
        keys: { file: '/etc/keys' },
        beacons: [{ id: 'a', name: 'A' }],
        fleet: { survey: 'survey.json', occupancy: 'grid.txt', inputs: ['nothing'] },
      }),
    )
    expect(paths.sort()).toEqual(['beacons', 'fleet.inputs[0]', 'fleet.occupancy', 'fleet.survey', 'keys.file'])
  })
})
