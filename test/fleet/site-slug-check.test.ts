// `site check` and room slugs (#39): two rooms whose names give one slug would share one Home
// Assistant occupancy sensor and one <p>/fleet/rooms/<slug> topic; the check warns, naming both.
import { describe, expect, it } from 'vitest'
import { checkSiteJSON } from '../../src/fleet/site-check.js'

describe('site check: room slugs', () => {
  it('warns when two rooms share a slug, and says nothing of distinct ones', () => {
    const site = {
      gateways: { a: {}, b: {}, c: {} },
      rooms: [
        { name: 'Living room', gateways: ['a'] },
        { name: 'Kitchen', gateways: ['b'] },
        { name: 'Living-room', gateways: ['c'] },
      ],
    }
    const problems = checkSiteJSON(site).problems.filter((p) => p.message.includes('slug'))
    expect(problems).toEqual([
      expect.objectContaining({
        severity: 'warning',
        where: 'rooms[2]',
        message: expect.stringContaining('living_room'),
      }),
    ])
    expect(problems[0]?.message).toContain('"Living room"')
    const distinct = { ...site, rooms: site.rooms.slice(0, 2) }
    expect(checkSiteJSON(distinct).problems.filter((p) => p.message.includes('slug'))).toEqual([])
  })
})
