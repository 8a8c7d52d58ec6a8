/**
 * What a CombinedSource takes and how it is checked: the sources and their adapter names, the
 * clock they share, the retry delay. Every refusal is an InvalidOptionError naming the fix.
 */
import type { Clock } from '../clock.js'
import { InvalidOptionError } from '../errors.js'
import type { AdapterState, AdvertisementSource, AdvertisementSourceEvents } from './source.js'

/** A source with the adapter name its advertisements are tagged with. */
export interface NamedSource {
  source: AdvertisementSource
  /** Tags this source's advertisements. Default: the source's own `adapter`, else `source<n>` (1-based). */
  adapter?: string
}

/** What {@link CombinedSource} takes: sources, or sources with names. */
export type SourceEntry = AdvertisementSource | NamedSource

/** Options of {@link CombinedSource}. */
export interface CombinedSourceOptions {
  /**
   * An adapter that failed to start while others run is tried again after this long, then
   * after twice as long each time, up to ten minutes (a dongle plugged in after boot joins by
   * itself). 0: never. Default 30,000 ms.
   */
  retryStartMs?: number
}

/** The longest wait between two attempts to start a failed adapter. */
export const MAX_RETRY_MS = 600_000

/** Where one adapter of a {@link CombinedSource} stands. */
export interface AdapterStatus {
  adapter: string
  /** `failed`: its start() rejected; `ended`: a finite source delivered its last advertisement. */
  status: 'stopped' | 'starting' | 'running' | 'failed' | 'ended'
  /** The latest state it reported, if any. */
  state?: AdapterState
}

/**
 * What a {@link CombinedSource} warns with: an object rather than the plain string of other
 * sources, so the scanner's `warning` event keeps the code and the adapter.
 */
export interface AdapterWarning {
  /**
   * `adapter_state` (an adapter left `poweredOn` while another is on), else the source's own code or
   * `source_warning`.
   */
  code: string
  /** Starts with the adapter's name. */
  message: string
  adapter: string
  /** For recordings: the 1-based line number at fault. */
  line?: number
}

/** Events of a {@link CombinedSource}: those of every source, its warnings structured. */
export type CombinedSourceEvents = Omit<AdvertisementSourceEvents, 'warning'> & { warning: [AdapterWarning] }

function isNamed(entry: SourceEntry): entry is NamedSource {
  return (
    typeof entry === 'object' &&
    entry !== null &&
    'source' in entry &&
    typeof (entry as { start?: unknown }).start !== 'function'
  )
}

function isSource(s: unknown): s is AdvertisementSource {
  const x = s as Partial<AdvertisementSource> | null
  return (
    typeof x === 'object' &&
    x !== null &&
    typeof x.start === 'function' &&
    typeof x.stop === 'function' &&
    typeof x.on === 'function'
  )
}

/** Checked options: each source with its adapter name, the shared clock if any. */
export interface ResolvedCombined {
  members: { adapter: string; source: AdvertisementSource }[]
  clock: Clock | undefined
  retryStartMs: number
}

/** Checks a CombinedSource's sources and options; throws InvalidOptionError. */
export function resolveCombined(sources: readonly SourceEntry[], options: CombinedSourceOptions): ResolvedCombined {
  const retry = options.retryStartMs ?? 30_000
  if (typeof retry !== 'number' || !Number.isFinite(retry) || retry < 0) {
    throw new InvalidOptionError(
      'invalid_option',
      `retryStartMs must be a number of milliseconds >= 0 (0: never retry); got ${String(retry)}.`,
      { option: 'retryStartMs' },
    )
  }
  if (!Array.isArray(sources) || sources.length === 0) {
    throw new InvalidOptionError(
      'invalid_option',
      'CombinedSource needs at least one source, e.g. [new NobleSource({ hciDeviceId: 0 }), new ' +
        'NobleSource({ hciDeviceId: 1 })].',
      { option: 'source' },
    )
  }
  const names = new Set<string>()
  const members = sources.map((entry, i) => {
    const source = isNamed(entry) ? entry.source : entry
    if (!isSource(source))
      throw new InvalidOptionError(
        'invalid_option',
        `source ${i + 1} is not an AdvertisementSource (start(), stop(), on()).`,
        { option: 'source' },
      )
    const given = isNamed(entry) ? entry.adapter : undefined
    const adapter =
      given ?? (typeof source.adapter === 'string' && source.adapter !== '' ? source.adapter : `source${i + 1}`)
    if (typeof adapter !== 'string' || adapter === '')
      throw new InvalidOptionError('invalid_option', `source ${i + 1}: the adapter name must be a non-empty string.`, {
        option: 'source',
      })
    if (names.has(adapter))
      throw new InvalidOptionError(
        'invalid_option',
        `two sources are named ${JSON.stringify(adapter)}: give each adapter its own name.`,
        { option: 'source' },
      )
    names.add(adapter)
    return { adapter, source }
  })
  const clocks = new Set(members.map((m) => m.source.clock).filter((c) => c !== undefined))
  if (clocks.size > 1) {
    throw new InvalidOptionError(
      'invalid_option',
      'the sources run on different clocks: combine live sources, or virtual-time sources sharing one clock.',
      { option: 'source' },
    )
  }
  const [clock] = clocks
  return { members, clock, retryStartMs: retry }
}
