/** Plane geometry of a site's room outlines, shared by the site and the room method. */

/** A room's outline: its corners in metres, in order. */
export type Polygon = readonly (readonly [number, number])[]

/** Even-odd ray casting: whether (x, y) lies inside the polygon. */
export function insidePolygon(polygon: Polygon, x: number, y: number): boolean {
  let within = false
  for (let i = 0, j = polygon.length - 1; i < polygon.length; j = i++) {
    const [xi, yi] = polygon[i]
    const [xj, yj] = polygon[j]
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) within = !within
  }
  return within
}

/** The smallest upright rectangle around a polygon: a cheap test before the polygon's own. */
export interface Bounds {
  minX: number
  minY: number
  maxX: number
  maxY: number
}

/** The bounds of `polygon` (an empty polygon's contain nothing). */
export function boundsOf(polygon: Polygon): Bounds {
  const b = { minX: Infinity, minY: Infinity, maxX: -Infinity, maxY: -Infinity }
  for (const [x, y] of polygon) {
    if (x < b.minX) b.minX = x
    if (x > b.maxX) b.maxX = x
    if (y < b.minY) b.minY = y
    if (y > b.maxY) b.maxY = y
  }
  return b
}

/** Whether (x, y) lies within `b` (edges included). */
export function withinBounds(b: Bounds, x: number, y: number): boolean {
  return x >= b.minX && x <= b.maxX && y >= b.minY && y <= b.maxY
}
