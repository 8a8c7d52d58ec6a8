// A floor plan as a real PNG file (what a user photographs or exports): white, with the walls of
// a four-room flat drawn in dark grey, so the editor's tests upload a picture as a user would.
import { crc32, deflateSync } from 'node:zlib'

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(data.length, 0)
  head.write(type, 4, 'ascii')
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0)
  return Buffer.concat([head, data, crc])
}

/**
 * A `width` × `height` RGB PNG of a flat: outer walls, one wall across the middle and one down
 * it, each with a door gap (the rooms of fixtures/site-demo.json, at any size).
 */
export function floorPlanPng(width: number, height: number): Buffer {
  const t = Math.max(2, Math.round(width / 100))
  const wall = (x: number, y: number): boolean => {
    const edge = x < t || y < t || x >= width - t || y >= height - t
    const midX = Math.abs(x - width / 2) < t / 2 + 1 && Math.abs(y - height * 0.25) > height * 0.06
    const midY = Math.abs(y - height / 2) < t / 2 + 1 && Math.abs(x - width * 0.25) > width * 0.04
    return edge || midX || midY
  }
  const rows = Buffer.alloc((width * 3 + 1) * height)
  for (let y = 0; y < height; y++) {
    const row = y * (width * 3 + 1)
    rows[row] = 0
    for (let x = 0; x < width; x++) rows.fill(wall(x, y) ? 0x33 : 0xff, row + 1 + x * 3, row + 4 + x * 3)
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 2 // RGB
  const signature = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
  return Buffer.concat([
    signature,
    chunk('IHDR', ihdr),
    chunk('IDAT', deflateSync(rows)),
    chunk('IEND', Buffer.alloc(0)),
  ])
}
