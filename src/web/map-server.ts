/**
 * The live map's HTTP server (node:http, no framework): the page's static files, a JSON
 * snapshot and a Server-Sent Events stream of coalesced updates, from a FleetTracker (floor
 * plan, rooms, gateways) or a single BeaconScanner (range table and found/gone log).
 *
 * Security (docs/web-map.md): loopback by default; on any other interface a token is required
 * (given, or generated here and shown once by the caller). The static files hold no data and are
 * served to anyone; everything with data (`/api/*`, the floor-plan image) needs the token. On
 * loopback without a token, requests must name a loopback Host, so a web site that rebinds its
 * DNS name to 127.0.0.1 cannot read the map from a visitor's browser.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import { readFile } from 'node:fs/promises'
import { basename, dirname, resolve } from 'node:path'
import { inspect } from 'node:util'
import { InvalidOptionError } from '../errors.js'
import type { BeaconScanner } from '../scanner/scanner.js'
import type { FleetTracker } from '../fleet/tracker.js'
import type { Site } from '../positioning/site.js'
import { authorized, checkToken, generateToken, hostRefusal, isLoopbackHost, NO_HOST_TEXT } from './auth.js'
import { imageType, pageAssets } from './assets.js'
import { EventStreams } from './event-stream.js'
import { LiveView } from './live-view.js'
import type { DetailsSource, LiveSnapshot } from './live-view.js'
import type { FleetTimeline } from './timeline.js'
import type { MetricsEndpoint } from '../metrics/endpoint.js'
import { isMetricsPath, serveMetrics } from './metrics-route.js'
import { urlHost } from '../util/listen.js'
import { startHttpListener } from './http-listener.js'
import { handleEdit, isEditPath, refuse } from './edit-routes.js'
import type { EditRoutes, SiteEditing } from './edit-routes.js'
import { isPlanFileName } from './plan-image.js'
import { planSource } from './view.js'

/** Options of {@link startMapServer}. Give `fleet`, `scanner` or `timeline`. */
export interface MapServerOptions {
  /** Interface to listen on; default 127.0.0.1. Anything but loopback requires a token. */
  host?: string
  /** TCP port; default 8080, 0 picks a free one. */
  port?: number
  /**
   * Access token the page must show. Default: none on loopback, a generated one elsewhere
   * (read it from {@link MapServer.pageUrl} and tell the user once).
   */
  token?: string
  /** The fleet to show on the floor plan. */
  fleet?: FleetTracker
  /** A single scanner: the range table with sparklines and the found/gone log. */
  scanner?: BeaconScanner
  /** A recorded fleet run to scrub through with a time slider (`FleetTimeline.load(path)`). */
  timeline?: FleetTimeline
  /** Gateways, rooms and area of the floor plan (fleet mode; the tracker's own site). */
  site?: Site
  /** Floor-plan image covering the site's area: an http(s) URL, or a file served by this server. */
  image?: string
  /**
   * The site file the site came from: the plan images in its folder that the site names are
   * served under `/plans/` (a floor's image that is a file shows on the map).
   */
  siteFile?: string
  /** Edit mode (`fleet --http --edit`, #40): the editor's API on this server (edit-routes.ts). */
  edit?: SiteEditing
  /** Sensor values of fleet beacons (serial, battery, …) for the details panel. */
  details?: DetailsSource
  /** `/metrics` and `/healthz` beside the map, with the map's token (docs/metrics.md). */
  metrics?: MetricsEndpoint
  /** How often changed beacons are sent to the pages; default 1000 ms. */
  flushIntervalMs?: number
  /**
   * Bytes an event stream may have unsent (beyond its first snapshot) before it is dropped: a
   * client that stops reading costs at most this. Default 4 MiB (`MAX_STREAM_BUFFER_BYTES`).
   */
  maxStreamBufferBytes?: number
  /**
   * Milliseconds an event stream's socket may go without draining (its client not reading)
   * before it is dropped, however few bytes wait. Default 30 s (`STREAM_STALL_MS`).
   */
  streamStallMs?: number
  /**
   * Event streams one remote address may hold at once; more are answered 429. Default 20
   * (`MAX_STREAMS_PER_CLIENT`). Behind a reverse proxy every page comes from the proxy's
   * address: raise it to the pages you expect.
   */
  maxStreamsPerClient?: number
}

/** A running map server. */
export interface MapServer {
  /** `http://host:port/` (no token). */
  readonly url: string
  /** The URL to open: with `#token=…` when a token is required. Print it once; it is a secret. */
  readonly pageUrl: string
  readonly host: string
  readonly port: number
  /** Whether requests for data must show a token. */
  readonly tokenRequired: boolean
  /** Pages connected to the event stream now. */
  readonly clients: number
  /** Event streams dropped because their client stopped reading (it reconnects if it is a page). */
  readonly streamsDropped: number
  /**
   * A new site (an edited site file): the snapshot's `plan` becomes its plan (with `image`, a
   * path this server serves or an http(s) URL, as the page loads it; default the image it had),
   * and every open event stream gets `event: site` with that plan; its gateways' places follow
   * in the next `update`. A fleet map only (a scanner's or a recording's has no live site).
   */
  setSite(site: Site, image?: string): void
  /** Ends the streams and stops listening. */
  close(): Promise<void>
}

const MAX_STREAMS = 200
/**
 * Default bound on the event streams of one remote address. A browser opens at most 6 HTTP/1.1
 * connections to a server, so one person's tabs never need more; a few people behind one NAT fit.
 */
export const MAX_STREAMS_PER_CLIENT = 20

function headersFor(imageOrigins: string[]): Record<string, string> {
  const img = ["'self'", ...new Set(imageOrigins)].join(' ')
  return {
    // No inline script or style anywhere: the page is files from this server only.
    'Content-Security-Policy':
      `default-src 'none'; script-src 'self'; style-src 'self'; img-src ${img}; connect-src 'self'; ` +
      "base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
    'X-Frame-Options': 'DENY',
  }
}

/** The plan image the edited site file names, as the page loads it (planSource); undefined: none. */
function editedImage(edit: SiteEditing): string | undefined {
  const image = edit.store.field('image')
  return typeof image === 'string' ? planSource(image, true) : undefined
}

/** Without edit mode: the site folder's plan images the site names (its floors' and its own). */
function staticPlans(siteFile: string, site: Site | undefined, image: string | undefined): EditRoutes['plans'] {
  const folder = dirname(resolve(siteFile))
  const names = (site?.floors ?? []).flatMap((f) => (f.image === undefined ? [] : [f.image]))
  if (image !== undefined && dirname(resolve(image)) === folder) names.push(basename(image))
  return { folder, names }
}

/** An optional whole-number option, at least `min`; undefined when not given. */
function positiveInteger(value: number | undefined, option: string, unit: string, min: number): number | undefined {
  if (value === undefined) return undefined
  if (Number.isInteger(value) && value >= min) return value
  const message = `${option} must be a whole number of ${unit}, at least ${min}, not ${String(value)}`
  throw new InvalidOptionError('invalid_option', message, { option })
}

/**
 * Serves the live map of a fleet (or the range table of one scanner) on `host:port`.
 *
 * ```ts
 * const map = await startMapServer({ fleet: tracker, site, port: 8080 })
 * console.log(`open ${map.pageUrl}`)
 * // …
 * await map.close()
 * ```
 */
export async function startMapServer(options: MapServerOptions): Promise<MapServer> {
  const host = options.host ?? '127.0.0.1'
  const port = options.port ?? 8080
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new InvalidOptionError('invalid_option', `port must be a TCP port between 0 and 65535, not ${String(port)}`, {
      option: 'port',
    })
  if ([options.fleet, options.scanner, options.timeline].filter((x) => x !== undefined).length !== 1) {
    throw new InvalidOptionError(
      'invalid_option',
      'give the map server one of: a fleet (FleetTracker), a scanner (BeaconScanner) ' +
        'or a timeline (a recorded fleet run)',
      { option: 'fleet' },
    )
  }
  const loopback = isLoopbackHost(host)
  const token = options.token !== undefined ? checkToken(options.token) : loopback ? undefined : generateToken()
  let imageUrl: string | undefined
  let imageFile: string | undefined
  let imageOrigin: string | undefined
  if (options.image !== undefined) {
    if (/^https?:\/\//i.test(options.image)) {
      imageUrl = options.image
      imageOrigin = new URL(options.image).origin
    } else {
      if (imageType(options.image) === undefined)
        throw new InvalidOptionError(
          'invalid_option',
          'the floor-plan image must be a .png, .jpg, .webp or .svg file, or an http(s) URL',
          { option: 'image' },
        )
      imageFile = options.image
      imageUrl = '/floorplan'
      // A plan file beside the site file is served where the editor's uploads are (/plans/).
      const folder =
        options.edit?.store.folder ?? (options.siteFile === undefined ? undefined : dirname(resolve(options.siteFile)))
      if (folder !== undefined && dirname(resolve(options.image)) === folder && isPlanFileName(basename(options.image)))
        imageUrl = `/plans/${basename(options.image)}`
    }
  }
  const assets = pageAssets()
  // A floor's plan image is an http(s) URL (view.ts): its origin is allowed like the site's image's.
  const floorOrigins = (site: Site | undefined): string[] =>
    (site?.floors ?? []).flatMap((f) =>
      f.image !== undefined && /^https?:\/\//i.test(f.image) ? [new URL(f.image).origin] : [],
    )
  const originsOf = (site: Site | undefined, image: string | undefined): string[] => [
    ...(image === undefined || !/^https?:\/\//i.test(image) ? [] : [new URL(image).origin]),
    ...floorOrigins(site),
  ]
  // Made again for a new site (setSite): its floors' images may come from elsewhere.
  let security = headersFor(originsOf(options.site, imageOrigin))
  const timeline = options.timeline
  const view = new LiveView({
    ...(options.fleet === undefined ? {} : { fleet: options.fleet }),
    ...(options.scanner === undefined ? {} : { scanner: options.scanner }),
    ...(options.site === undefined ? {} : { site: options.site }),
    ...(imageUrl === undefined ? {} : { image: imageUrl }),
    planFiles: options.edit !== undefined || options.siteFile !== undefined,
    ...(options.details === undefined ? {} : { details: options.details }),
    ...(options.flushIntervalMs === undefined ? {} : { flushIntervalMs: options.flushIntervalMs }),
  })
  const maxBuffered = options.maxStreamBufferBytes
  if (maxBuffered !== undefined && (!Number.isInteger(maxBuffered) || maxBuffered < 1024)) {
    throw new InvalidOptionError(
      'invalid_option',
      `maxStreamBufferBytes must be a whole number of bytes, at least 1024, not ${String(maxBuffered)}`,
      { option: 'maxStreamBufferBytes' },
    )
  }
  const stallMs = positiveInteger(options.streamStallMs, 'streamStallMs', 'milliseconds', 100)
  const perClient =
    positiveInteger(options.maxStreamsPerClient, 'maxStreamsPerClient', 'streams', 1) ?? MAX_STREAMS_PER_CLIENT
  const streams = new EventStreams({
    ...(maxBuffered === undefined ? {} : { maxBufferedBytes: maxBuffered }),
    ...(stallMs === undefined ? {} : { stallMs }),
  })
  view.on('update', (u) => streams.send('update', u))
  // A recording is scrubbed through: the page asks for a moment (`?at=ms`); live, it is now.
  const snapshot = (url: URL): LiveSnapshot => {
    if (timeline === undefined)
      return options.edit === undefined ? view.snapshot() : { ...view.snapshot(), editable: true }
    const at = Number(url.searchParams.get('at') ?? Number.NaN)
    return timeline.snapshot(Number.isFinite(at) ? at : timeline.start)
  }

  const send = (
    res: ServerResponse,
    status: number,
    type: string,
    body: string | Buffer,
    extra: Record<string, string> = {},
  ): void => {
    res.writeHead(status, {
      ...security,
      'Content-Type': type,
      'Content-Length': String(Buffer.byteLength(body)),
      ...extra,
    })
    res.end(body)
  }
  const plain = (res: ServerResponse, status: number, text: string): void =>
    send(res, status, 'text/plain; charset=utf-8', `${text}\n`, { 'Cache-Control': 'no-store' })
  const editRoutes: EditRoutes = {
    // The headers are made again on setSite: the routes read them when they answer.
    get headers() {
      return security
    },
    ...(options.edit === undefined ? {} : { editing: options.edit }),
    ...(options.siteFile === undefined ? {} : { plans: staticPlans(options.siteFile, options.site, options.image) }),
  }

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://map.invalid')
    // Only the editor's paths take changes (edit-routes.ts); everything else is read only.
    const edit = isEditPath(url.pathname)
    if (req.method !== 'GET' && req.method !== 'HEAD' && !edit) return plain(res, 405, 'only GET is served here')
    const refusal = hostRefusal(req, token)
    if (refusal === 'no_host') return plain(res, 400, NO_HOST_TEXT)
    if (refusal === 'not_loopback') {
      return plain(
        res,
        403,
        'this map listens on loopback without a token and answers only requests for localhost or 127.0.0.1; ' +
          'behind a proxy, pass Host 127.0.0.1 or start it with a token',
      )
    }
    if (options.metrics !== undefined && isMetricsPath(url.pathname))
      return serveMetrics(req, res, options.metrics, token)
    const asset = assets.get(url.pathname)
    if (asset !== undefined) return send(res, 200, asset.type, asset.body, { 'Cache-Control': 'no-cache' })
    const data = url.pathname.startsWith('/api/') || url.pathname === '/floorplan' || edit
    if (!data) return plain(res, 404, 'not found')
    if (!authorized(req, url, token)) {
      const text = 'this map needs its access token: open the URL printed when it started (the part after #token=)'
      return edit ? refuse(res, security, 401, 'unauthorized', text) : plain(res, 401, text)
    }
    if (edit) return handleEdit(req, res, url, editRoutes)
    if (url.pathname === '/api/snapshot')
      return send(res, 200, 'application/json; charset=utf-8', JSON.stringify(snapshot(url)), {
        'Cache-Control': 'no-store',
      })
    if (url.pathname === '/api/events') {
      // Each stream is a socket held open: a bound, so a runaway client cannot exhaust them.
      if (streams.size >= MAX_STREAMS)
        return plain(res, 503, `this map already serves ${MAX_STREAMS} pages; close some and reload`)
      // One client cannot take them all: the rest of the bound stays for everyone else.
      const client = req.socket.remoteAddress ?? 'unknown'
      if (streams.from(client) >= perClient) {
        const text = `this address already has ${perClient} live map pages open; close some and reload`
        return plain(res, 429, `${text} (behind a proxy, raise maxStreamsPerClient)`)
      }
      return streams.add(res, { event: 'snapshot', data: snapshot(url) }, client)
    }
    if (url.pathname === '/floorplan' && imageFile !== undefined) {
      try {
        return send(res, 200, imageType(imageFile) as string, await readFile(imageFile), {
          'Cache-Control': 'no-cache',
        })
      } catch {
        return plain(res, 404, 'the floor-plan image file could not be read')
      }
    }
    return plain(res, 404, 'not found')
  }

  const listener = await startHttpListener(handle, { host, port, what: 'the map', option: 'http' })
  const actualPort = listener.port

  if (timeline === undefined) view.start()
  const url = `http://${urlHost(host)}:${actualPort}/`
  let closed = false
  const running: MapServer & { [inspect.custom](): string; toJSON(): object } = {
    url,
    pageUrl: token === undefined ? url : `${url}#token=${token}`,
    host,
    port: actualPort,
    tokenRequired: token !== undefined,
    get clients() {
      return streams.size
    },
    get streamsDropped() {
      return streams.dropped
    },
    setSite(site, image) {
      if (options.fleet === undefined)
        throw new InvalidOptionError('invalid_option', 'setSite() is for the map of a fleet: start it with `fleet`', {
          option: 'fleet',
        })
      // In edit mode the site file names its plan (an upload is /plans/<name>); else the one it had.
      const plan = image ?? (options.edit === undefined ? imageUrl : editedImage(options.edit))
      security = headersFor(originsOf(site, plan ?? imageOrigin))
      streams.send('site', view.setSite(site, plan))
    },
    async close() {
      if (closed) return
      closed = true
      options.edit?.close?.()
      view.stop()
      streams.close()
      await listener.close()
    },
    // The page URL holds the token: show where it listens, never the token.
    [inspect.custom]: () => `MapServer { url: '${url}', tokenRequired: ${token !== undefined} }`,
    toJSON: () => ({ url, tokenRequired: token !== undefined }),
  }
  Object.defineProperty(running, 'pageUrl', { enumerable: false })
  return running
}
