// Issue #35 item 2: which ids a foreign node may not take (src/inputs/native-gateways.ts): a
// gateway seen publishing its own status (no `via`), or one the site reserves; a site gateway
// declared `foreign` is the site's word. Bounded and strict about what counts as a status.
import { describe, expect, it } from 'vitest'
import { NativeGateways } from '../../src/inputs/native-gateways.js'
import { Site } from '../../src/positioning/site.js'

const status = (body: unknown): Buffer => Buffer.from(JSON.stringify(body))

describe('NativeGateways', () => {
  it('learns native ids from their own statuses only', () => {
    const natives = new NativeGateways('bk')
    expect(natives.statusFilter).toBe('bk/gateways/+/status')
    natives.observe('bk/gateways/kitchen-pi/status', status({ state: 'online', time: 1, version: '0.1.0' }))
    natives.observe('bk/gateways/hall-pi/status', status({ state: 'offline', time: 1 }))
    // A bridge's node, garbage, another prefix, a deeper topic: not native.
    natives.observe('bk/gateways/esp-porch/status', status({ state: 'online', time: 1, via: 'fleet-inputs' }))
    natives.observe('bk/gateways/junk/status', Buffer.from('online'))
    natives.observe('bk/gateways/big/status', Buffer.from(JSON.stringify({ state: 'online', pad: 'x'.repeat(5000) })))
    natives.observe('other/gateways/elsewhere/status', status({ state: 'online' }))
    natives.observe('bk/gateways/deep/status/x', status({ state: 'online' }))
    expect(['kitchen-pi', 'hall-pi', 'esp-porch', 'junk', 'big', 'elsewhere', 'deep'].filter((id) => natives.has(id))).toEqual(['kitchen-pi', 'hall-pi'])
  })

  it('reserves site gateways not declared foreign, and believes the site over the broker', () => {
    const site = Site.fromJSON({ gateways: { 'kitchen-pi': {}, 'esp-porch': { foreign: true }, 'esp-hall': { foreign: 'yes' } } })
    expect(site.anchorList().map((a) => [a.id, a.foreign === true])).toEqual([['kitchen-pi', false], ['esp-porch', true], ['esp-hall', false]])
    const natives = new NativeGateways('bk', new Set(['kitchen-pi', 'esp-hall']), new Set(['esp-porch']))
    natives.observe('bk/gateways/esp-porch/status', status({ state: 'online' }))
    expect(natives.has('kitchen-pi')).toBe(true)
    expect(natives.has('esp-hall')).toBe(true)
    expect(natives.has('esp-porch')).toBe(false)
    expect(natives.has('esp-new')).toBe(false)
  })

  it('takes an edited site: the ids it now reserves or declares foreign decide from then on', () => {
    const natives = new NativeGateways('bk', new Set(['kitchen-pi']), new Set(['esp-porch']))
    natives.observe('bk/gateways/esp-porch/status', status({ state: 'online' }))
    natives.observe('bk/gateways/hall-pi/status', status({ state: 'online' }))
    natives.setSite(new Set(['esp-porch']), new Set(['hall-pi']))
    // The porch node is now reserved; the hall is the site's foreign node, whatever the broker showed.
    expect(natives.has('esp-porch')).toBe(true)
    expect(natives.has('hall-pi')).toBe(false)
    expect(natives.has('kitchen-pi')).toBe(false)
    // A site that declares no foreign gateway: only the statuses seen count.
    natives.setSite()
    expect(['esp-porch', 'hall-pi', 'kitchen-pi'].filter((id) => natives.has(id))).toEqual(['esp-porch', 'hall-pi'])
  })
})
