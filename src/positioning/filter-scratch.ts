import type { GridFilterParams } from './grid-filter-params.js'
import type { RadioMap } from './radio-map.js'

/** Scratch arrays shared by every beacon's filter of one positioner (single-threaded, so safe). */
export class FilterScratch {
  readonly tmp: Float64Array
  /** A posterior's widened window during an update (see `GridFilter.own`). */
  readonly work: Float32Array
  /** Per cell: the product of an update's likelihood factors, before its logarithm. */
  readonly prod: Float64Array
  readonly prior: Float64Array
  /** The posterior's marginals over columns and rows, for trimming its window. */
  readonly cols: Float64Array
  readonly rows: Float64Array
  private kernelOf?: { sigma: number; weights: Float64Array }

  constructor(
    readonly map: RadioMap,
    params: GridFilterParams,
  ) {
    this.cols = new Float64Array(map.grid.nx)
    this.rows = new Float64Array(map.grid.ny)
    this.tmp = new Float64Array(map.grid.size)
    this.work = new Float32Array(map.grid.size)
    this.prod = new Float64Array(map.grid.size)
    this.prior = Float64Array.from(map.grid.walkable, (w) => (w === 1 ? 1 : params.blockedWeight))
  }

  /**
   * The walk's Gaussian weights at offsets −radius…radius cells; steps are usually a second, so
   * the last one is kept.
   */
  kernel(sigma: number, radius: number): Float64Array {
    const known = this.kernelOf
    if (known !== undefined && known.sigma === sigma && known.weights.length === 2 * radius + 1) return known.weights
    const weights = new Float64Array(2 * radius + 1)
    for (let i = -radius; i <= radius; i++) weights[i + radius] = Math.exp((-i * i) / (2 * sigma * sigma))
    this.kernelOf = { sigma, weights }
    return weights
  }
}
