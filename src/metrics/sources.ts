/**
 * What the metrics read: the running parts of a gateway or a fleet, as they already are. Every
 * number is read from a part's existing `stats` at scrape time, so the ingest path does no extra
 * work for metrics (docs/metrics.md).
 */
import type { BeaconScanner } from '../scanner/scanner.js'
import type { MqttPublisher } from '../mqtt/publisher.js'
import type { Uploader } from '../cloud/uploader.js'
import type { FleetTracker } from '../fleet/tracker.js'
import type { AdvertisementSource } from '../sources/source.js'
import type { RoomMetricsSource } from './room-metrics.js'

/** The parts of a gateway (`scanner`, with its `source`) or of a fleet (`tracker`) to report on; each is optional. */
export interface MetricsSources {
  /** The gateway's scanner: advertisements, decode rejects, beacons tracked. */
  scanner?: BeaconScanner
  /** The scanner's source: the `source` label and the health of the adapter. */
  source?: AdvertisementSource
  /** The MQTT publisher of a gateway: queue, drops, refusals, connection, messages. */
  mqtt?: MqttPublisher
  /** The cloud uploader: queue depth and drops. */
  uploader?: Uploader
  /** The fleet tracker: observations, beacons, fusion and positions, its broker connection. */
  tracker?: FleetTracker
  /** The fleet's room method (#39): learnt offsets, fingerprints, teachings. */
  rooms?: RoomMetricsSource
}

/**
 * The `source` label of a source: its adapter name when it has one (`hci1`), else its kind
 * (`replay`, `noble`, `bluez`, `simulated`, `combined`) from its class name; a bundler's
 * renaming suffix (`ReplaySource2`) is dropped.
 */
export function sourceLabel(source: AdvertisementSource | undefined): string {
  if (source === undefined) return 'none'
  if (typeof source.adapter === 'string' && source.adapter !== '') return source.adapter
  const name = (source.constructor as { name?: unknown }).name
  if (typeof name !== 'string' || name === '') return 'source'
  const kind = name
    .replace(/\d+$/, '')
    .replace(/Source$/, '')
    .toLowerCase()
  return kind === '' ? 'source' : kind
}
