/**
 * The flags several commands share (the view's filters, upload, MQTT and the map), as typed
 * values. Types only, read by the value readers (arg-values.ts) and the commands; what each
 * command parses to is declared in its own module (commands/).
 */

import type { ListenSettings } from '../gateway/settings/listen.js'
import type { MqttSettings } from '../gateway/settings/mqtt.js'
import type { UploadSettings } from '../gateway/settings/upload.js'
import type { LogFormat, LogThreshold } from '../log/logger.js'

/** `--mqtt <url>` and its companions (the gateway id is the model's default unless given). */
export type MqttFlags = Omit<MqttSettings, 'gatewayId'> & { gatewayId?: string }
/** `--upload` and its companions. */
export type UploadFlags = UploadSettings
/** `--http [host:]port` and `--http-token`: the live map in a browser. */
export type HttpFlags = ListenSettings
/** `--metrics [host:]port` and `--metrics-token`: Prometheus `/metrics` and `/healthz`. */
export type MetricsFlags = ListenSettings

/** `--log-level` and `--log-format` (every command that runs); absent when neither is given. */
export interface LogFlags {
  level?: LogThreshold
  format?: LogFormat
}

/** The Bluetooth stacks `scan` can use (`--backend`). */
export type Backend = 'noble' | 'bluez'

/** Which beacons to show (and upload): the scanner's filter, from the command line. */
export interface FilterFlags {
  serialNumbers?: string[]
  proximityUUIDs?: string[]
  beaconIDs?: string[]
  minRssi?: number
  verifiedOnly?: boolean
}

/** Options shared by the commands that show beacons (scan, replay, simulate). */
export interface ViewFlags {
  json: boolean
  /** Broadcast key strings from `--key`; secrets, never printed. */
  keys: string[]
  keysFile?: string
  /** `--irk-file`: identity resolving keys (a secret file; only its path is held). */
  irkFile?: string
  filter: FilterFlags
  upload?: UploadFlags
  mqtt?: MqttFlags
  http?: HttpFlags
  /** `--metrics`: Prometheus `/metrics` and `/healthz` on a server of their own. */
  metrics?: MetricsFlags
  /** `--log-level`, `--log-format`. */
  log?: LogFlags
}
