/**
 * The editor's HTTP API on the map server (`fleet --http --edit`, #40; docs/web-map.md "Editing:
 * the API and its rules"): `GET`/`PUT /api/site`, `PUT /api/plan`, `POST /api/teach`, and
 * `GET /plans/<name>` (the plan images, also without edit mode when the site came from a file).
 * The map server has checked the Host rule and the token before it calls here. Every change
 * additionally comes from the page itself: a foreign `Origin` is refused, and the body must carry
 * a JSON or image Content-Type, which a foreign page cannot send without a CORS preflight this
 * server never answers. Bodies are read with a byte limit; every error is JSON `{ code, message }`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Site } from '../positioning/site.js'
import { MAX_PLAN_BYTES, planFileType } from './plan-image.js'
import { mediaType, readPlan, storePlan } from './plan-store.js'
import { readBody } from './request-body.js'
import { SiteStoreError } from './site-store.js'
import type { SiteStore } from './site-store.js'

/** Bytes of a `PUT /api/site` body at most. */
export const MAX_SITE_BODY_BYTES = 1024 * 1024
/** Bytes of a `POST /api/teach` body at most. */
export const MAX_TEACH_BODY_BYTES = 4 * 1024

/** How a teaching asked from the page went: started, or refused with an HTTP status and a code. */
export type TeachOutcome = { ok: true } | { ok: false; status: number; code: string; message: string }

/** What the editor changes and tells (the fleet's side, given by the composition). */
export interface SiteEditing {
  store: SiteStore
  /** Called after each save with the new site: the running fleet takes it. */
  saved?(site: Site): void
  /** Starts "teach this room with this tag"; undefined when the fleet has no room method to teach. */
  teach?(room: string, beacon: string, seconds: number): TeachOutcome
  /** Stops what the editing holds open (the watch on the site file); called when the map closes. */
  close?(): void
}

/** What the routes need from the map server. */
export interface EditRoutes {
  /** Edit mode; undefined: the edit paths answer 404 `not_editable` (the plans are still served). */
  editing?: SiteEditing
  /** Without edit mode: where the plan images are and which the site names (from the site file). */
  plans?: { folder: string; names: readonly string[] }
  /** The map's security headers, sent with every answer. */
  headers: Record<string, string>
}

/** Whether a path is one of the routes here (the map server sends every method of these here). */
export function isEditPath(pathname: string): boolean {
  return ['/api/site', '/api/plan', '/api/teach'].includes(pathname) || pathname.startsWith('/plans/')
}

/** A JSON answer, never cached. */
function json(res: ServerResponse, headers: Record<string, string>, status: number, body: object): void {
  const text = JSON.stringify(body)
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(text)),
    'Cache-Control': 'no-store',
  })
  res.end(text)
}

/** The JSON answer to a request that is refused. */
export function refuse(
  res: ServerResponse,
  headers: Record<string, string>,
  status: number,
  code: string,
  message: string,
  extra: object = {},
): void {
  // A body beyond the limit is not read further: the connection is not kept for another request.
  if (status === 413) headers = { ...headers, Connection: 'close' }
  json(res, headers, status, { code, message, ...extra })
}

/**
 * A change from another site's page (its Origin is not this server's own): see the file comment.
 * `https://` with the same Host is the page behind a TLS proxy that passes the Host on.
 */
function crossOrigin(req: IncomingMessage): boolean {
  const origin = req.headers.origin
  const host = req.headers.host ?? ''
  return origin !== undefined && origin !== `http://${host}` && origin !== `https://${host}`
}

const PLAN_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  // An SVG opened by itself runs nothing and loads nothing.
  'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; img-src data:",
  'Cache-Control': 'no-cache',
}

/** Answers a request for an edit path (see the file comment). */
export async function handleEdit(req: IncomingMessage, res: ServerResponse, url: URL, r: EditRoutes): Promise<void> {
  const { headers, editing } = r
  const method = req.method ?? 'GET'
  if (url.pathname.startsWith('/plans/')) {
    if (method !== 'GET' && method !== 'HEAD') return refuse(res, headers, 405, 'method', 'plans are only read here')
    const folder = editing?.store.folder ?? r.plans?.folder
    const names = editing?.store.imageNames() ?? r.plans?.names ?? []
    let name: string
    try {
      name = decodeURIComponent(url.pathname.slice('/plans/'.length))
    } catch {
      name = ''
    }
    const bytes = folder === undefined ? undefined : await readPlan(folder, names, name)
    if (bytes === undefined) return refuse(res, headers, 404, 'not_found', 'no such plan image in this site')
    res.writeHead(200, {
      ...headers,
      ...PLAN_HEADERS,
      'Content-Type': planFileType(name),
      'Content-Length': String(bytes.length),
    })
    return void res.end(method === 'HEAD' ? undefined : bytes)
  }
  if (editing === undefined)
    return refuse(res, headers, 404, 'not_editable', 'this map was started without --edit; restart it with --edit')
  const route = `${method} ${url.pathname}`
  if (route === 'GET /api/site')
    return json(res, headers, 200, {
      version: editing.store.version,
      site: editing.store.json,
      problems: editing.store.problems(),
      editable: true,
      file: editing.store.name,
    })
  if (!['PUT /api/site', 'PUT /api/plan', 'POST /api/teach'].includes(route))
    return refuse(res, headers, 405, 'method', `${method} is not served on ${url.pathname}`)
  if (crossOrigin(req))
    return refuse(res, headers, 403, 'cross_origin', 'edits are taken only from the map page itself; open the map')
  const type = mediaType(req.headers['content-type'])
  if (route === 'PUT /api/plan') {
    if (!['image/png', 'image/jpeg', 'image/svg+xml'].includes(type))
      return refuse(res, headers, 415, 'unsupported_image', 'send the plan as image/png, image/jpeg or image/svg+xml')
    const body = await readBody(req, MAX_PLAN_BYTES)
    if (body === 'too_large') return refuse(res, headers, 413, 'too_large', 'the plan image is over 8 MiB; shrink it')
    const floor = url.searchParams.get('floor') ?? undefined
    let stored: Awaited<ReturnType<typeof storePlan>>
    try {
      stored = await storePlan(editing.store, floor === '' ? undefined : floor, body, type)
    } catch (error) {
      return writeFailed(res, headers, error)
    }
    if (!stored.ok) return refuse(res, headers, stored.status, stored.code, stored.message)
    return json(res, headers, 200, { image: stored.image, width: stored.width, height: stored.height })
  }
  if (type !== 'application/json')
    return refuse(res, headers, 415, 'not_json', 'send the body as JSON with Content-Type: application/json')
  const limit = route === 'PUT /api/site' ? MAX_SITE_BODY_BYTES : MAX_TEACH_BODY_BYTES
  const body = await readBody(req, limit)
  if (body === 'too_large')
    return refuse(res, headers, 413, 'too_large', `the body is over ${limit} bytes; the editor sends less`)
  let parsed: unknown
  try {
    parsed = JSON.parse(body.toString('utf8'))
  } catch {
    return refuse(res, headers, 400, 'bad_json', 'the body is not JSON; send what the map page sends')
  }
  const o = typeof parsed === 'object' && parsed !== null ? (parsed as Record<string, unknown>) : {}
  if (route === 'POST /api/teach') return teach(res, headers, editing, o)
  try {
    return await putSite(res, headers, editing, o)
  } catch (error) {
    return writeFailed(res, headers, error)
  }
}

/** A save that the disk refused (full, read only): the previous file is whole, the page may try again. */
function writeFailed(res: ServerResponse, headers: Record<string, string>, error: unknown): void {
  const why = error instanceof SiteStoreError ? error.message : 'the file could not be written'
  return refuse(res, headers, 500, 'write_failed', `${why}; nothing was changed, try again once it is fixed`)
}

async function putSite(
  res: ServerResponse,
  headers: Record<string, string>,
  editing: SiteEditing,
  body: Record<string, unknown>,
): Promise<void> {
  const version = body.version
  if (typeof version !== 'number' || !Number.isSafeInteger(version) || version < 0)
    return refuse(res, headers, 400, 'bad_request', 'give { "version": N, "site": {…} } with the version you read')
  const result = await editing.store.save(version, body.site)
  if (result.kind === 'stale')
    return refuse(
      res,
      headers,
      409,
      'stale_site',
      `the site was changed in another editor (now version ${result.version}); reload to get those changes, ` +
        'then make yours again',
      { version: result.version },
    )
  if (result.kind === 'invalid')
    return refuse(res, headers, 422, 'invalid_site', 'the site has errors; correct them where they are shown', {
      problems: result.problems,
    })
  editing.saved?.(result.site)
  return json(res, headers, 200, { version: result.version, problems: result.problems })
}

function teach(
  res: ServerResponse,
  headers: Record<string, string>,
  editing: SiteEditing,
  body: Record<string, unknown>,
): void {
  const { room, beacon } = body
  const seconds = body.seconds ?? 30
  if (typeof room !== 'string' || room === '' || room.length > 64)
    return refuse(res, headers, 422, 'bad_request', 'give "room": the name of a room of the site')
  if (typeof beacon !== 'string' || beacon === '' || beacon.length > 128)
    return refuse(res, headers, 422, 'bad_request', 'give "beacon": the id of a beacon the fleet hears')
  if (typeof seconds !== 'number' || !Number.isInteger(seconds) || seconds < 1 || seconds > 300)
    return refuse(res, headers, 422, 'bad_request', '"seconds" is a whole number from 1 to 300')
  const outcome: TeachOutcome = editing.teach?.(room, beacon, seconds) ?? {
    ok: false,
    status: 409,
    code: 'no_room_method',
    message: 'the fleet decides rooms by the strongest gateway: run it with --rooms plan --fingerprints <file>',
  }
  if (!outcome.ok) return refuse(res, headers, outcome.status, outcome.code, outcome.message)
  return json(res, headers, 202, { ok: true })
}
