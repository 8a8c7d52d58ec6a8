/** What a BluezSource counts, for diagnostics and tests. */

/** Counters of a {@link BluezSource}, for diagnostics and tests. */
export interface BluezSourceStats {
  /** Advertisements emitted. */
  advertisements: number
  /** Discovery restarted after the adapter or bluetoothd came back. */
  resumes: number
  /** Devices bluetoothd currently reports for the adapter. */
  devices: number
  /**
   * Our advertisement monitor is registered with bluetoothd (full update rate for beacons; see
   * monitor.ts).
   */
  monitoring: boolean
}
