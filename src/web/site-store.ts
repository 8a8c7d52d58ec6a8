/**
 * The site file as the editor changes it (`fleet --http --edit`, #40): read once (a missing file
 * is the empty site, written at the first save), its `version` kept, and each save checked by
 * `checkSiteJSON` (the model of `beaconkit site check`) and the editor's bounds, then written
 * atomically with the previous file kept as `<file>.bak`. Saves run one at a time, so two editors
 * saving on the same version cannot both win: the second finds the version moved and is refused.
 * A hand edit of the file while the fleet runs is read again by {@link SiteStore.reload} (queued
 * with the saves) and counts as a new version, so an editor still on the old one is refused too.
 */
import { readFile, stat } from 'node:fs/promises'
import { basename, dirname, resolve } from 'node:path'
import { BeaconkitError } from '../errors.js'
import { checkSiteJSON } from '../fleet/site-check.js'
import type { SiteProblem } from '../fleet/site-check.js'
import type { Site } from '../positioning/site.js'
import { removeStaleTemps, writeFileAtomic } from '../util/atomic-file.js'

/** The site a fleet with `--edit` starts from when its site file does not exist yet. */
export const EMPTY_SITE_JSON: Readonly<Record<string, unknown>> = Object.freeze({ version: 0, gateways: {}, rooms: [] })

/** Bytes of a site file the store reads at most (the editor sends at most 1 MiB). */
export const MAX_SITE_FILE_BYTES = 4 * 1024 * 1024
/** Rooms an edited site may have at most. */
export const MAX_EDIT_ROOMS = 200
/** Corners of one room's polygon at most. */
export const MAX_EDIT_CORNERS = 500
/** Characters of a room's, floor's or beacon's name at most. */
export const MAX_EDIT_NAME = 64

/** Why the site file could not be read or written. */
export type SiteStoreErrorCode = 'unreadable_site' | 'write_failed'

/** The site file could not be read or written; the message names the file and what to do. */
export class SiteStoreError extends BeaconkitError<SiteStoreErrorCode> {}

/** What a save came to. */
export type SaveResult =
  | { kind: 'saved'; version: number; problems: SiteProblem[]; site: Site }
  | { kind: 'stale'; version: number }
  | { kind: 'invalid'; problems: SiteProblem[] }

/** What reading the site file again came to (a hand edit while the fleet runs). */
export type ReloadResult =
  /** The file says what the store holds (one of its own saves, or a touch): nothing to do. */
  | { kind: 'same' }
  /** A new site, taken by the store as `version`. */
  | { kind: 'changed'; version: number; problems: SiteProblem[]; site: Site }
  /** The file has errors (or exceeds the editor's bounds): the store keeps the site it had. */
  | { kind: 'invalid'; problems: SiteProblem[] }
  /** The file cannot be read or is no JSON object (or is gone): the store keeps the site it had. */
  | { kind: 'unreadable'; message: string }

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * The text of the site file at `path` (`file` as the user named it, for messages); undefined
 * when there is no such file.
 * @throws SiteStoreError `unreadable_site` for a file that cannot be read or is too large
 */
async function readSiteText(path: string, file: string): Promise<string | undefined> {
  try {
    const info = await stat(path)
    if (info.size > MAX_SITE_FILE_BYTES)
      throw new SiteStoreError(
        'unreadable_site',
        `site file ${file} has ${info.size} bytes, more than the editor reads`,
      )
    return await readFile(path, 'utf8')
  } catch (error) {
    if (error instanceof SiteStoreError) throw error
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    const code = (error as NodeJS.ErrnoException).code ?? 'error'
    throw new SiteStoreError('unreadable_site', `cannot read the site file ${file} (${code}); check its permissions`, {
      cause: error,
    })
  }
}

/**
 * The JSON object of a site file's `text` (`file` named in messages).
 * @throws SiteStoreError `unreadable_site` for a text that is no JSON object
 */
function parseSiteJson(text: string, file: string): Record<string, unknown> {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    throw new SiteStoreError('unreadable_site', `the site file ${file} is not JSON; run beaconkit site check ${file}`, {
      cause: error,
    })
  }
  if (!isRecord(json))
    throw new SiteStoreError('unreadable_site', `the site file ${file} is not a JSON object; see docs/fleet.md`)
  return json
}

/** Whether two site files say the same, their versions aside (a hand edit may leave the number as it was). */
function sameSite(a: Record<string, unknown>, b: Record<string, unknown>): boolean {
  const { version: _a, ...restA } = a
  const { version: _b, ...restB } = b
  return JSON.stringify(restA) === JSON.stringify(restB)
}

/** The version a site file's JSON holds: a non-negative whole number, else 0. */
export function siteVersion(json: unknown): number {
  const v = isRecord(json) ? json.version : undefined
  return typeof v === 'number' && Number.isSafeInteger(v) && v >= 0 ? v : 0
}

const longName = (v: unknown): boolean => typeof v === 'string' && v.length > MAX_EDIT_NAME

/** The editor's bounds beyond what the site model checks (a page must not be able to grow a site without end). */
export function editProblems(json: Record<string, unknown>): SiteProblem[] {
  const problems: SiteProblem[] = []
  const error = (where: string, message: string): void => void problems.push({ severity: 'error', where, message })
  const rooms = json.rooms
  const list: [string, unknown][] = Array.isArray(rooms)
    ? rooms.map((r, i) => [`rooms[${i}]`, r])
    : isRecord(rooms)
      ? Object.entries(rooms).map(([k, r]) => [`rooms[${JSON.stringify(k)}]`, r])
      : []
  if (list.length > MAX_EDIT_ROOMS)
    error('rooms', `has ${list.length} rooms; the editor keeps at most ${MAX_EDIT_ROOMS}: merge or delete some`)
  for (const [where, room] of list.slice(0, MAX_EDIT_ROOMS)) {
    if (!isRecord(room)) continue
    if (longName(room.name)) error(`${where}.name`, `is longer than ${MAX_EDIT_NAME} characters; shorten it`)
    if (Array.isArray(room.polygon) && room.polygon.length > MAX_EDIT_CORNERS)
      error(`${where}.polygon`, `has ${room.polygon.length} corners; at most ${MAX_EDIT_CORNERS}: simplify it`)
  }
  for (const group of ['floors', 'beacons'] as const) {
    const items = json[group]
    if (!Array.isArray(items)) continue
    items.slice(0, 10_000).forEach((item, i) => {
      if (isRecord(item) && longName(item.name))
        error(`${group}[${i}].name`, `is longer than ${MAX_EDIT_NAME} characters; shorten it`)
    })
  }
  return problems
}

/** The site file the editor reads and writes (see the file comment). */
export class SiteStore {
  private current: Record<string, unknown>
  private queue: Promise<unknown> = Promise.resolve()
  /** The stored site's problems, once asked (undefined: not checked since it changed). */
  private checked: SiteProblem[] | undefined
  /** The text of the store's last save: what reading the file back finds unless someone changed it. */
  private written: string | undefined

  private constructor(
    /** The site file's path (absolute). */
    readonly file: string,
    json: Record<string, unknown>,
  ) {
    this.current = json
  }

  /**
   * Reads the site file; a missing one is {@link EMPTY_SITE_JSON}.
   * @throws SiteStoreError `unreadable_site` for a file that cannot be read, is too large, or is no JSON object
   */
  static async open(file: string): Promise<SiteStore> {
    const path = resolve(file)
    // A fleet killed while saving left its temporary file: the site file itself is whole (atomic-file.ts).
    await removeStaleTemps(path)
    const text = await readSiteText(path, file)
    return new SiteStore(path, text === undefined ? { ...EMPTY_SITE_JSON } : parseSiteJson(text, file))
  }

  /** The folder the site file and its plan images are in. */
  get folder(): string {
    return dirname(this.file)
  }

  /** The site file's name without its folder. */
  get name(): string {
    return basename(this.file)
  }

  /** The stored version (the file's `version`, 0 when it has none). */
  get version(): number {
    return siteVersion(this.current)
  }

  /** The file's JSON object as stored (a copy: the caller may not change the store). */
  get json(): Record<string, unknown> {
    return structuredClone(this.current)
  }

  /**
   * One top-level value of the stored site (`image`, `floors`, …), as stored: read it, do not
   * change it. For a look at one key without {@link json}'s copy of the whole file (a megabyte
   * on the largest sites, copied at every save otherwise).
   */
  field(key: string): unknown {
    return this.current[key]
  }

  /** The stored site's problems, as `site check` lists them (without the image file check). */
  problems(): SiteProblem[] {
    // Checked once per stored site: every open editor reads them again after each save.
    return (this.checked ??= checkSiteJSON(this.current).problems)
  }

  /** The plan image names the stored site gives (top-level `image`, each floor's `image`), files and URLs. */
  imageNames(): string[] {
    const names: string[] = []
    if (typeof this.current.image === 'string') names.push(this.current.image)
    const floors = this.current.floors
    if (Array.isArray(floors))
      for (const f of floors) if (isRecord(f) && typeof f.image === 'string') names.push(f.image)
    return names
  }

  /**
   * Saves `site` as version `version + 1` when `version` is the stored one and the site has no
   * error; nothing is written otherwise. One save at a time (see the file comment).
   * @throws SiteStoreError `write_failed` when the file cannot be written (the previous file is then whole)
   */
  save(version: number, site: unknown): Promise<SaveResult> {
    const run = this.queue.then(() => this.saveNow(version, site))
    this.queue = run.catch(() => undefined)
    return run
  }

  /**
   * Reads the site file again (a hand edit while the fleet runs), one at a time with the saves.
   * A new site is taken as a new version: the file's own when it is higher, else one above the
   * stored one, so an editor still on the old version is refused rather than overwriting it.
   */
  reload(): Promise<ReloadResult> {
    const run = this.queue.then(() => this.reloadNow())
    this.queue = run.catch(() => undefined)
    return run
  }

  private async reloadNow(): Promise<ReloadResult> {
    let json: Record<string, unknown>
    try {
      const text = await readSiteText(this.file, this.name)
      if (text === undefined) return { kind: 'unreadable', message: `the site file ${this.name} is gone` }
      // The store's own save, read back (the watch sees every save): known without parsing a megabyte.
      if (text === this.written) return { kind: 'same' }
      json = parseSiteJson(text, this.name)
    } catch (error) {
      return { kind: 'unreadable', message: (error as Error).message }
    }
    if (sameSite(json, this.current)) return { kind: 'same' }
    const bounds = editProblems(json)
    if (bounds.length > 0) return { kind: 'invalid', problems: bounds }
    const checked = checkSiteJSON(json)
    const errors = checked.problems.filter((p) => p.severity === 'error')
    if (checked.site === undefined || errors.length > 0) return { kind: 'invalid', problems: checked.problems }
    this.current = { ...json, version: Math.max(siteVersion(json), this.version + 1) }
    this.checked = undefined
    return { kind: 'changed', version: this.version, problems: checked.problems, site: checked.site }
  }

  private async saveNow(version: number, site: unknown): Promise<SaveResult> {
    if (version !== this.version) return { kind: 'stale', version: this.version }
    if (!isRecord(site))
      return { kind: 'invalid', problems: [{ severity: 'error', where: 'site', message: 'is not a JSON object' }] }
    const { version: _given, ...rest } = site
    const next = { version: version + 1, ...rest }
    const bounds = editProblems(next)
    if (bounds.length > 0) return { kind: 'invalid', problems: bounds }
    const checked = checkSiteJSON(next)
    const errors = checked.problems.filter((p) => p.severity === 'error')
    if (checked.site === undefined || errors.length > 0) return { kind: 'invalid', problems: checked.problems }
    try {
      const text = `${JSON.stringify(next, null, 2)}\n`
      await writeFileAtomic(this.file, text, { backup: true })
      this.written = text
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? 'error'
      throw new SiteStoreError(
        'write_failed',
        `cannot save the site file ${this.name} (${code}); check that its folder is writable and the disk has room`,
        { cause: error },
      )
    }
    this.current = next
    this.checked = checked.problems
    return { kind: 'saved', version: next.version, problems: checked.problems, site: checked.site }
  }
}
