// The identity resolver's counters on a gateway's /metrics (issue 37): a gateway started with
// irk.file (the model's path, read by startGateway) counts what its resolver did, and no name or
// key appears anywhere in the scrape.
import { writeFile, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startGateway } from '../../src/gateway/start-gateway.js'
import { parseIdentityKey, rpaFor } from '../../src/secure/identity-key.js'
import { PushSource } from '../support/push-source.js'
import { get, sample } from './scrape.js'

const quiet = { warn: () => undefined, stderr: { write: () => true } }
const PHONE_HEX = 'ec0234a357c8ad05341010a60a397d9b'

describe('metrics of a gateway with an IRK file', () => {
  it('counts addresses resolved and not, cache hits, without a name or a key', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'beaconkit-irk-metrics-'))
    const file = join(dir, 'irk.txt')
    await writeFile(file, `alice-phone ${PHONE_HEX}\n`, { mode: 0o600 })
    const source = new PushSource()
    const gateway = await startGateway({ source, irk: { file }, metrics: { listen: '127.0.0.1:0' } }, quiet)
    try {
      await gateway.start()
      const phone = parseIdentityKey('alice-phone', PHONE_HEX)
      const stranger = parseIdentityKey('stranger', 'ffeeddccbbaa99887766554433221100')
      const now = gateway.scanner.clock.now()
      const heard = (address: string): void =>
        void source.emit('advertisement', { address, addressType: 'random', rssi: -60, timestamp: now })
      for (const n of [1, 2, 3]) heard(rpaFor(phone, n))
      heard(rpaFor(phone, 1))
      for (const n of [1, 2]) heard(rpaFor(stranger, n))
      const stats = gateway.scanner.stats.identities
      expect(stats).toMatchObject({ resolved: 3, unresolved: 2 })
      const body = (await get(gateway.metricsServer?.url as string)).body
      expect(sample(body, 'beaconkit_irk_addresses_resolved_total')).toBe(3)
      expect(sample(body, 'beaconkit_irk_addresses_unresolved_total')).toBe(2)
      expect(sample(body, 'beaconkit_irk_cache_hits_total')).toBe(stats?.cacheHits)
      expect(sample(body, 'beaconkit_irk_cache_evictions_total')).toBe(0)
      expect(sample(body, 'beaconkit_irk_keys')).toBe(1)
      expect(body).not.toContain('alice-phone')
      expect(body.toLowerCase()).not.toContain(PHONE_HEX)
    } finally {
      await gateway.stop()
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('has no irk series without an IRK file', async () => {
    const gateway = await startGateway({ source: new PushSource(), metrics: { listen: '127.0.0.1:0' } }, quiet)
    try {
      expect((await get(gateway.metricsServer?.url as string)).body).not.toContain('beaconkit_irk_')
    } finally {
      await gateway.stop()
    }
  })
})
