/**
 * The radio map: what each anchor is expected to hear at each walkable cell, and how far real
 * readings stray from it. Built from a site survey (per-anchor path loss plus the survey's own
 * departures from it, interpolated between reference points) or from default physics when there
 * is no survey. The observation model of every positioning method.
 */
import { InvalidOptionError } from '../errors.js'
import type { Area, Site } from './site.js'
import { WalkableGrid } from './grid.js'
import { DEFAULT_PATH_LOSS, fitPathLoss, rssiAt, type PathLoss } from './path-loss.js'
import { chooseInterpolation, kernelResidual, type ReferencePoint } from './survey-interpolation.js'
import { SurveyPoints, type SurveyPoint } from './survey.js'
import type { SurveySample } from './types.js'

/** One anchor as the radio map models it. */
export interface AnchorModel {
  id: string
  x: number
  y: number
  z: number
  pathLoss: PathLoss
  /** dB: how far the map's mean may be off at a cell (leave-one-point-out error on the survey). */
  modelSd: number
  /** dB: packet-to-packet spread at a fixed spot. */
  packetSd: number
}

/** Options of {@link RadioMap.fromSurvey} and {@link RadioMap.defaultPhysics}. */
export interface RadioMapOptions {
  /** Walkable cells; default every 0.5 m cell of the site's area. */
  grid?: WalkableGrid
  /** Height of the tracked tag above the floor, metres (default 1.2: carried or on a cart). */
  tagHeight?: number
  /** Length scales (m) tried for interpolating the survey; the best by leave-one-point-out wins. */
  lengthScales?: readonly number[]
  /** Shrinkage weights toward the path-loss curve tried likewise. */
  shrinkages?: readonly number[]
}

/** How the survey was interpolated, as chosen by leave-one-point-out. */
export interface Interpolation {
  lengthScale: number
  shrinkage: number
  /** dB: root-mean-square leave-one-point-out error over all anchors and points. */
  looRmsDb: number
}

/** A {@link RadioMap} as plain data (see `RadioMap.toParts`). @internal */
export interface RadioMapParts {
  grid: { originX: number; originY: number; cell: number; nx: number; ny: number; walkable: Uint8Array }
  anchors: AnchorModel[]
  tagHeight: number
  references: ReferencePoint[]
  interpolation?: Interpolation
  skew: number
  mean: Float32Array
}

const DEFAULT_PACKET_SD = 4

function siteArea(site: Site): Area {
  if (site.area !== undefined) return site.area
  const placed = site.anchorList().filter((a) => a.x !== undefined && a.y !== undefined)
  if (placed.length === 0)
    throw new InvalidOptionError(
      'invalid_option',
      'site: no anchor has x and y and there is no area; give anchor positions to position beacons',
      { option: 'site' },
    )
  const xs = placed.map((a) => a.x as number)
  const ys = placed.map((a) => a.y as number)
  return { minX: Math.min(...xs) - 1, minY: Math.min(...ys) - 1, maxX: Math.max(...xs) + 1, maxY: Math.max(...ys) + 1 }
}

function placedAnchors(site: Site): { id: string; x: number; y: number; z: number }[] {
  const out = site
    .anchorList()
    .flatMap((a) => (a.x === undefined || a.y === undefined ? [] : [{ id: a.id, x: a.x, y: a.y, z: a.z ?? 0 }]))
  if (out.length === 0)
    throw new InvalidOptionError(
      'invalid_option',
      'site: no anchor has x and y; give anchor positions to position beacons',
      { option: 'site' },
    )
  return out
}

/** The observation model: expected RSSI per anchor and cell, with its spreads. */
export class RadioMap {
  /** Anchors with a position, in a fixed order (the index of the `mean` rows). */
  readonly anchors: readonly AnchorModel[]
  /** Expected RSSI, `mean[a * grid.size + cell]`, dBm. */
  readonly mean: Float32Array
  /**
   * Ratio of the spread of readings weaker than expected to that of stronger ones, from the
   * survey's packets (1 without a survey, or from a survey of summaries).
   */
  readonly skew: number
  private readonly indexOf = new Map<string, number>()

  private constructor(
    readonly grid: WalkableGrid,
    anchors: AnchorModel[],
    readonly tagHeight: number,
    /** The survey's reference points (empty without a survey); kNN matches against them. */
    readonly references: readonly ReferencePoint[],
    /** How the survey was interpolated; absent for default physics. */
    readonly interpolation?: Interpolation,
    residualAt?: (a: number, x: number, y: number) => number,
    skew = 1,
    /** The expected RSSI already worked out (a map moved to another thread): not computed again. */
    mean?: Float32Array,
  ) {
    this.skew = skew
    this.anchors = anchors
    anchors.forEach((a, i) => this.indexOf.set(a.id, i))
    const size = grid.size
    if (mean !== undefined) {
      this.mean = mean
      return
    }
    this.mean = new Float32Array(anchors.length * size)
    for (let a = 0; a < anchors.length; a++) {
      for (let iy = 0; iy < grid.ny; iy++) {
        for (let ix = 0; ix < grid.nx; ix++) {
          const x = grid.x(ix)
          const y = grid.y(iy)
          this.mean[a * size + ix + iy * grid.nx] = this.pathLossAt(a, x, y) + (residualAt?.(a, x, y) ?? 0)
        }
      }
    }
  }

  /** Whether the map comes from a survey (false: default physics). */
  get surveyed(): boolean {
    return this.interpolation !== undefined
  }

  /** An anchor's index in `anchors`, or -1 when the site has no position for it. */
  index(anchor: string): number {
    return this.indexOf.get(anchor) ?? -1
  }

  /** Distance in metres from anchor `a` to a tag at (x, y), counting the height difference. */
  distance(a: number, x: number, y: number): number {
    const m = this.anchors[a]
    return Math.hypot(m.x - x, m.y - y, m.z - this.tagHeight)
  }

  /** Expected RSSI of anchor `a` at (x, y) from its path loss alone. */
  pathLossAt(a: number, x: number, y: number): number {
    return rssiAt(this.anchors[a].pathLoss, this.distance(a, x, y))
  }

  /**
   * The map as plain data (typed arrays and plain objects, safe to post to a worker thread).
   * @internal
   */
  toParts(): RadioMapParts {
    const g = this.grid
    const parts: RadioMapParts = {
      grid: { originX: g.originX, originY: g.originY, cell: g.cell, nx: g.nx, ny: g.ny, walkable: g.walkable },
      anchors: this.anchors.map((a) => ({ ...a, pathLoss: { ...a.pathLoss } })),
      tagHeight: this.tagHeight,
      references: this.references.map((r) => ({ x: r.x, y: r.y, mean: r.mean })),
      skew: this.skew,
      mean: this.mean,
    }
    if (this.interpolation !== undefined) parts.interpolation = { ...this.interpolation }
    return parts
  }

  /**
   * The map again from {@link toParts} (on a worker thread). Throws `InvalidOptionError` when
   * the parts do not fit together.
   * @internal
   */
  static fromParts(parts: RadioMapParts): RadioMap {
    const { grid: g, anchors, mean } = parts
    const grid = new WalkableGrid(g.originX, g.originY, g.cell, g.nx, g.ny, g.walkable)
    if (!(mean instanceof Float32Array) || mean.length !== anchors.length * grid.size) {
      throw new InvalidOptionError(
        'invalid_option',
        `radio map: ${mean.length} expected values for ${anchors.length} anchors × ${grid.size} cells; ` +
          'give the parts of one map',
        { option: 'radioMap' },
      )
    }
    return new RadioMap(
      grid,
      [...anchors],
      parts.tagHeight,
      parts.references,
      parts.interpolation,
      undefined,
      parts.skew,
      mean,
    )
  }

  /**
   * A map from physics alone, for a site without a survey: every anchor −59 dBm at 1 m,
   * exponent 2.2, 6 dB of model error. Expect metres of error; a survey halves it.
   */
  static defaultPhysics(site: Site, options: RadioMapOptions = {}): RadioMap {
    const grid = options.grid ?? WalkableGrid.fromArea(siteArea(site))
    const anchors = placedAnchors(site).map((a) => ({
      ...a,
      pathLoss: { ...DEFAULT_PATH_LOSS },
      modelSd: DEFAULT_PATH_LOSS.sigma,
      packetSd: DEFAULT_PACKET_SD,
    }))
    return new RadioMap(grid, anchors, options.tagHeight ?? 1.2, [])
  }

  /**
   * Calibrates from a survey: samples `{ x, y, anchor, rssi }` (or a {@link SurveyPoints} that
   * reduced them while streaming). Fits each anchor's path loss to the reference points' means,
   * then interpolates the means' departures from it onto the grid with a Gaussian kernel, shrunk
   * toward the curve far from any point; kernel width and shrinkage are chosen by
   * leave-one-point-out on the survey itself. Samples for anchors the site does not place are
   * ignored. Throws `InvalidOptionError` when no reference point hears a placed anchor.
   */
  static fromSurvey(
    site: Site,
    samples: Iterable<SurveySample> | SurveyPoints,
    options: RadioMapOptions = {},
  ): RadioMap {
    let reduced: SurveyPoints
    if (samples instanceof SurveyPoints) reduced = samples
    else {
      reduced = new SurveyPoints()
      for (const s of samples) reduced.add(s)
    }
    const points = reduced.points()
    const grid = options.grid ?? WalkableGrid.fromArea(siteArea(site))
    const tagHeight = options.tagHeight ?? 1.2
    const placed = placedAnchors(site)
    const A = placed.length
    const refs: ReferencePoint[] = points.map((p) => ({
      x: p.x,
      y: p.y,
      mean: Float64Array.from(placed, (a) => p.anchors.get(a.id)?.mean ?? Number.NaN),
    }))
    if (!refs.some((r) => r.mean.some((m) => !Number.isNaN(m)))) {
      throw new InvalidOptionError(
        'invalid_option',
        'survey: no reference point hears an anchor the site places; ' +
          'check that the survey and the site name the anchors alike',
        { option: 'survey' },
      )
    }
    const dist = (a: number, x: number, y: number): number =>
      Math.hypot(placed[a].x - x, placed[a].y - y, placed[a].z - tagHeight)
    const pathLoss = placed.map((_, a) =>
      fitPathLoss(refs.flatMap((r) => (Number.isNaN(r.mean[a]) ? [] : [{ d: dist(a, r.x, r.y), rssi: r.mean[a] }]))),
    )
    const residual = refs.map((r) =>
      Float64Array.from(placed, (_, a) =>
        Number.isNaN(r.mean[a]) ? Number.NaN : r.mean[a] - rssiAt(pathLoss[a], dist(a, r.x, r.y)),
      ),
    )
    const chosen = chooseInterpolation(
      refs,
      residual,
      A,
      options.lengthScales ?? [1, 1.5, 2, 3, 4],
      options.shrinkages ?? [0.05, 0.2, 0.5, 1, 2],
    )
    const anchors: AnchorModel[] = placed.map((a, i) => ({
      ...a,
      pathLoss: pathLoss[i],
      modelSd: Math.max(1, chosen.perAnchorRms[i]),
      packetSd: pooledSd(points, a.id),
    }))
    const { lengthScale, shrinkage } = chosen
    const residualAt = (a: number, x: number, y: number): number =>
      kernelResidual(refs, residual, a, x, y, lengthScale, shrinkage, -1)
    // Held to 1–2: a survey cannot make strong readings the likelier tail, nor should a few
    // deep fades make weak readings meaningless.
    const skew = Math.min(2, Math.max(1, reduced.skew() ?? 1))
    return new RadioMap(
      grid,
      anchors,
      tagHeight,
      refs,
      { lengthScale, shrinkage, looRmsDb: chosen.rms },
      residualAt,
      skew,
    )
  }
}

function pooledSd(points: readonly SurveyPoint[], id: string): number {
  let n = 0
  let v = 0
  for (const p of points) {
    const c = p.anchors.get(id)
    if (c !== undefined && c.count > 1) {
      v += c.sd * c.sd
      n++
    }
  }
  return n === 0 ? DEFAULT_PACKET_SD : Math.max(1, Math.sqrt(v / n))
}
