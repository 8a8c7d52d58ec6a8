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
