/**
 * The page's static files: plain ES modules, CSS and an HTML shell in src/web/page, copied to
 * dist/web/page by the build (tsup.config.ts). Read once at start and served from memory, so a
 * request can never name a file outside that list.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { InvalidOptionError } from '../errors.js'

/** One file of the page. */
export interface Asset {
  type: string
  body: Buffer
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
}

/**
 * Where the page lies: beside this module in development (src/web/page), or in dist/web/page
 * from the library bundle (dist/index.*) and from the command (dist/cli/main.js).
 */
function pageDir(): string {
  const here = moduleDir()
  for (const rel of ['page', 'web/page', '../web/page']) {
    const dir = join(here, rel)
    if (existsSync(join(dir, 'index.html'))) return dir
  }
  throw new InvalidOptionError(
    'file_not_found',
    `the live map's page files are missing (looked beside ${here}); ` +
      'reinstall beaconkit, or run `npm run build` in a checkout',
  )
}

function moduleDir(): string {
  // The CommonJS build has no import.meta; tsup's shim gives it one there.
  return fileURLToPath(new URL('.', import.meta.url))
}

let cache: Map<string, Asset> | undefined

/** The page's files by URL path (`/app.js`), `/` being index.html. */
export function pageAssets(): Map<string, Asset> {
  if (cache !== undefined) return cache
  const dir = pageDir()
  const assets = new Map<string, Asset>()
  for (const name of readdirSync(dir)) {
    const type = TYPES[extname(name)]
    if (type === undefined) continue
    assets.set(`/${name}`, { type, body: readFileSync(join(dir, name)) })
  }
  const index = assets.get('/index.html')
  if (index !== undefined) assets.set('/', index)
  cache = assets
  return assets
}

/** The content type of a file name, for a floor-plan image on disk. */
export function imageType(path: string): string | undefined {
  const ext = extname(path).toLowerCase()
  if (ext === '.jpg' || ext === '.jpeg') return 'image/jpeg'
  if (ext === '.webp') return 'image/webp'
  if (ext === '.png' || ext === '.svg') return TYPES[ext]
  return undefined
}
