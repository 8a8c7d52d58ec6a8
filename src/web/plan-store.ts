/**
 * Plan images beside the site file: an upload is stored as `<site>.plan[-<floor>].<ext>` in the
 * site file's folder (atomically, so a page never reads half an image), and `GET /plans/<name>`
 * reads only a file of that folder that the current site names. No name from a request ever
 * reaches the file system unchecked: the floor must be one of the site's, the name must keep the
 * plan file rule (no folder, no `..`).
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { writeFileAtomic } from '../util/atomic-file.js'
import { isPlanFileName, planFileNameFor, sniffPlanImage } from './plan-image.js'
import type { PlanImageInfo } from './plan-image.js'
import type { SiteStore } from './site-store.js'

/** What an upload came to: stored (its name and size), or refused with an HTTP status and a code. */
export type PlanUpload =
  | { ok: true; image: string; width: number | null; height: number | null }
  | { ok: false; status: number; code: string; message: string }

function floorIds(floors: unknown): string[] {
  if (!Array.isArray(floors)) return []
  return floors.flatMap((f) =>
    typeof f === 'object' && f !== null && typeof (f as { id?: unknown }).id === 'string'
      ? [(f as { id: string }).id]
      : [],
  )
}

/** The media type of a Content-Type header, without parameters, lower case. */
export function mediaType(header: string | undefined): string {
  return (header ?? '').split(';')[0].trim().toLowerCase()
}

/**
 * Stores an uploaded plan for `floor` (undefined on a one-plane site) beside the site file.
 * The site itself is not changed: the page sets the image in the site and saves it.
 */
export async function storePlan(
  store: SiteStore,
  floor: string | undefined,
  bytes: Buffer,
  contentType: string | undefined,
): Promise<PlanUpload> {
  const ids = floorIds(store.field('floors'))
  if (floor === undefined && ids.length > 0)
    return refuse(400, 'unknown_floor', `the site has floors (${ids.join(', ')}): give ?floor=<id>`)
  if (floor !== undefined && !ids.includes(floor))
    return refuse(400, 'unknown_floor', `the site has no floor ${JSON.stringify(floor.slice(0, 64))}; add it first`)
  const info: PlanImageInfo | undefined = sniffPlanImage(bytes)
  if (info === undefined)
    return refuse(415, 'unsupported_image', 'the plan must be a PNG, JPEG or SVG image; convert it and send it again')
  const said = mediaType(contentType) || 'nothing'
  if (info.type !== said)
    return refuse(415, 'unsupported_image', `the bytes are ${info.type}, but the request says ${said}: send it as that`)
  const name = planFileNameFor(store.name, floor, info.ext)
  if (!isPlanFileName(name))
    return refuse(400, 'unknown_floor', 'that floor id cannot name a file; give the floor an id of letters and digits')
  await writeFileAtomic(join(store.folder, name), bytes)
  return { ok: true, image: name, width: info.width, height: info.height }
}

function refuse(status: number, code: string, message: string): PlanUpload {
  return { ok: false, status, code, message }
}

/**
 * The bytes of plan image `name` when the site names it and it is a plan file name in `folder`;
 * undefined (answer 404) otherwise.
 */
export async function readPlan(folder: string, names: readonly string[], name: string): Promise<Buffer | undefined> {
  if (!isPlanFileName(name) || !names.includes(name)) return undefined
  try {
    return await readFile(join(folder, name))
  } catch {
    return undefined
  }
}
