/**
 * `--input esphome:<host>[:<port>][@<dB>]` through the model (#38): the fleet's mapping sends
 * `esphome:` values to the ESPHome parser and the others to the MQTT registry's, and names a bad
 * one by its path.
 */
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../../../src/config/config-error.js'
import { fleetSettings } from '../../../src/gateway/settings/fleet.js'
import { espHomeInputText, parseEspHomeInput } from '../../../src/inputs/esphome/input-spec.js'
import { parseInputSpec } from '../../../src/inputs/inputs-spec.js'

describe('esphome: inputs', () => {
  it('parses a host, a port, an IPv6 address and an RSSI offset; writes each back in one spelling', () => {
    expect(parseEspHomeInput('esphome:Hall-Proxy.local')).toEqual({ target: { host: 'hall-proxy.local', port: 6053 } })
    expect(parseEspHomeInput('esphome:192.168.1.40:6054@-4')).toEqual({
      target: { host: '192.168.1.40', port: 6054 },
      rssiOffsetDb: -4,
    })
    const v6 = parseEspHomeInput('esphome:[fd00::12]:6053@+3')
    expect(v6).toEqual({ target: { host: 'fd00::12', port: 6053 }, rssiOffsetDb: 3 })
    expect(espHomeInputText(v6)).toBe('esphome:[fd00::12]:6053@3')
    expect(parseEspHomeInput(espHomeInputText(v6))).toEqual(v6)
  })

  it('refuses no host, a bad host or port and an offset beyond ±40 dB', () => {
    expect(() => parseEspHomeInput('esphome:')).toThrow(/needs the proxy/)
    expect(() => parseEspHomeInput('esphome:@-4')).toThrow(/needs the proxy/)
    expect(() => parseEspHomeInput('esphome:hall proxy')).toThrow(/not a proxy address/)
    expect(() => parseEspHomeInput('esphome:hall:70000')).toThrow(/not a proxy address/)
    expect(() => parseEspHomeInput('esphome:hall@-60')).toThrow(/at most ±40/)
  })

  it('an unknown input names esphome: among the choices', () => {
    expect(() => parseInputSpec('esphom:hall')).toThrow(/or esphome:<host>\[:<port>\] for an ESPHome proxy/)
  })

  it('the fleet mapping splits esphome: from MQTT inputs and keeps the keys file', () => {
    const settings = fleetSettings({
      mqtt: { url: 'mqtt://127.0.0.1:1883' },
      fleet: { inputs: ['omg:home', 'esphome:hall.local', 'esphome:10.0.0.2:6060@2'], esphomeKeys: '/etc/k' },
    })
    expect(settings.inputs).toEqual([{ format: 'omg', base: 'home' }])
    expect(settings.esphome).toEqual([
      { target: { host: 'hall.local', port: 6053 } },
      { target: { host: '10.0.0.2', port: 6060 }, rssiOffsetDb: 2 },
    ])
    expect(settings.esphomeKeys).toBe('/etc/k')
  })

  it('only esphome: inputs: no MQTT inputs, and --keys-file goes with them', () => {
    const settings = fleetSettings({
      mqtt: { url: 'mqtt://127.0.0.1:1883' },
      keys: { file: '/etc/keys' },
      fleet: { inputs: ['esphome:hall.local'] },
    })
    expect(settings.inputs).toBeUndefined()
    expect(settings.esphome).toHaveLength(1)
  })

  it('a bad esphome: input is a problem at its path in the model', () => {
    let caught: unknown
    try {
      fleetSettings({ mqtt: { url: 'mqtt://127.0.0.1:1883' }, fleet: { inputs: ['omg', 'esphome:'] } })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(ConfigError)
    expect((caught as ConfigError).problems.map((p) => p.path)).toEqual(['fleet.inputs[1]'])
  })
})
