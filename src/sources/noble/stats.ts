/** What a NobleSource counts, for diagnostics and tests. */

/** Counters of a {@link NobleSource}, for diagnostics and tests. */
export interface NobleSourceStats {
  /** Advertisements emitted. */
  advertisements: number
  /** Scans restarted because no advertisement arrived for `watchdogMs`. */
  watchdogRestarts: number
  /**
   * Scans confirmed running again after the adapter came back, was reset, or another program
   * stopped scanning.
   */
  resumes: number
  /** Scan starts the controller refused or never confirmed, each retried with back-off. */
  scanFailures: number
  /** Peripheral ids forgotten by pruning. */
  prunedPeripherals: number
  /** Addresses forgotten from noble's GAP layer by pruning. */
  prunedAddresses: number
}
