// A gateway that knows its room (#39): `gateway.room` (`--room`) reaches its Home Assistant device
// as `suggested_area`, so Home Assistant files the gateway in that area; a room name that is no
// name (control characters, too long) is refused before anything is published.
import { describe, expect, it } from 'vitest'
import { InvalidOptionError } from '../../src/errors.js'
import { homeAssistantOption } from '../../src/gateway/mqtt-sink.js'
import { SettingProblems } from '../../src/gateway/settings/problems.js'
import { mqttSettings } from '../../src/gateway/settings/mqtt.js'
import { haGatewayConfigs } from '../../src/mqtt/ha-gateway-device.js'
import { resolvePublisherOptions } from '../../src/mqtt/publisher-options.js'

describe("a gateway's room in Home Assistant", () => {
  it('puts suggested_area on both configs of the gateway device, and none without a room', () => {
    const status = 'beaconkit/gateways/kitchen-pi/status'
    for (const c of haGatewayConfigs('homeassistant', 'kitchen-pi', status, 'Kitchen')) {
      const config = JSON.parse(c.payload) as { device: Record<string, unknown> }
      expect(config.device).toMatchObject({ identifiers: ['beaconkit_gw_kitchen-pi'], suggested_area: 'Kitchen' })
    }
    for (const c of haGatewayConfigs('homeassistant', 'kitchen-pi', status))
      expect((JSON.parse(c.payload) as { device: Record<string, unknown> }).device).not.toHaveProperty('suggested_area')
  })

  it('takes the room from the model (gateway.room) into the publisher', () => {
    const problems = new SettingProblems()
    const settings = mqttSettings(
      {
        gateway: { id: 'kitchen-pi', room: 'Kitchen' },
        mqtt: { url: 'mqtt://127.0.0.1:1883', homeAssistant: { enabled: true } },
      },
      problems,
    )
    expect(problems.list).toEqual([])
    const ha = settings === undefined ? false : homeAssistantOption(settings)
    expect(ha).toMatchObject({ room: 'Kitchen' })
    const resolved = resolvePublisherOptions({
      url: 'mqtt://127.0.0.1:1883',
      gatewayId: 'kitchen-pi',
      homeAssistant: ha,
    })
    expect(resolved.homeAssistant).toMatchObject({ room: 'Kitchen' })
  })

  it('refuses a room that is no name', () => {
    for (const room of ['', 'Kitchen\n', 'x'.repeat(65)])
      expect(() =>
        resolvePublisherOptions({ url: 'mqtt://127.0.0.1:1883', gatewayId: 'g', homeAssistant: { room } }),
      ).toThrow(InvalidOptionError)
  })
})
