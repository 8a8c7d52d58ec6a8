// A program's gateway: loadConfig reads the model (here from the environment), startGateway builds
// from it; a model with a problem fails before anything starts.
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { loadConfig } from '../../../src/config/load-config.js'
import { ConfigError } from '../../../src/config/config-error.js'
import { startGateway } from '../../../src/gateway/start-gateway.js'
import { ReplaySource } from '../../../src/sources/replay.js'

const DEMO = fileURLToPath(new URL('../../../fixtures/demo.jsonl', import.meta.url))

describe('startGateway from a loadConfig model', () => {
  it('serves /metrics where the model says', async () => {
    const config = await loadConfig({ env: { BEACONKIT_METRICS_LISTEN: '127.0.0.1:0' } })
    const lines: string[] = []
    const gateway = await startGateway(
      { ...config, source: new ReplaySource(DEMO, { virtual: true }) },
      { stderr: { write: (text: string) => lines.push(text) } },
    )
    try {
      expect(gateway.mqtt).toBeUndefined()
      expect(gateway.web).toBeUndefined()
      const url = gateway.metricsServer?.url
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+/)
      expect(lines.join('')).toContain('metrics at')
      await gateway.start()
      await gateway.scanner.drain()
      const response = await fetch(new URL('/metrics', url))
      expect(response.status).toBe(200)
      expect(await response.text()).toMatch(/beaconkit_/)
    } finally {
      await gateway.stop()
    }
  })

  it('refuses a model with problems before anything starts', async () => {
    const source = new ReplaySource(DEMO, { virtual: true })
    const started = startGateway({ source, mqtt: { homeAssistant: { enabled: true } }, http: { listen: 'x' } })
    await expect(started).rejects.toBeInstanceOf(ConfigError)
    await expect(started).rejects.toMatchObject({
      code: 'invalid_config',
      problems: [{ path: 'mqtt.homeAssistant.enabled' }, { path: 'http.listen' }],
    })
    // Nothing started: the source was never asked for an advertisement.
    expect(source.clock).toBeDefined()
  })
})
