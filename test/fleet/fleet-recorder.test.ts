// The site a fleet recording carries in its header is read back by `replay` for the map: every
// part the map draws must survive the round trip (walls were lost: a replay drew none).
import { describe, expect, it } from 'vitest'
import { siteToJSON } from '../../src/fleet/fleet-recorder.js'
import { Site } from '../../src/positioning/site.js'

describe('siteToJSON', () => {
  it('writes gateways, area, rooms and walls in the form Site.fromJSON reads back', () => {
    const site = Site.fromJSON({
      gateways: { hall: { x: 1, y: 2 }, kitchen: { x: 6, y: 2 } },
      area: { minX: 0, minY: 0, maxX: 10, maxY: 5 },
      rooms: [
        { name: 'Hall', polygon: [[0, 0], [5, 0], [5, 5], [0, 5]] },
        { name: 'Kitchen', polygon: [[5, 0], [10, 0], [10, 5], [5, 5]] },
      ],
      walls: [[[5, 0], [5, 4]], { from: [0, 5], to: [10, 5], attenuationDb: 9 }],
    })
    const back = Site.fromJSON(JSON.parse(JSON.stringify(siteToJSON(site))))
    expect(back.walls).toEqual(site.walls)
    expect(back.rooms.map((r) => r.name)).toEqual(['Hall', 'Kitchen'])
    expect(back.anchorList().map((a) => [a.id, a.x, a.y])).toEqual([['hall', 1, 2], ['kitchen', 6, 2]])
  })

  it('leaves walls out of a site without any', () => {
    expect(siteToJSON(Site.fromJSON({ gateways: { hall: { x: 0, y: 0 } } }))).not.toHaveProperty('walls')
  })
})
