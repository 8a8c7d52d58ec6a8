/**
 * The configuration of the parts a gateway runs (docs/cli.md): the cloud
 * upload, the MQTT publisher and the live map. The command line fills them from its flags (and
 * a config file and the environment, through the same flags); the composition root
 * (start-gateway.ts) and the sinks read them.
 */

import type { BeaconName } from '../positioning/beacon-names.js'

/** `--upload` and its companions. */
export interface UploadFlags {
  cloudUrl: string
  email: string
  /** File whose first line is the account password (wins over `password`). */
  passwordFile?: string
  /** The account password itself, from the environment or a private config file; a secret. */
  password?: string
  queueDir?: string
}

/** `--mqtt` and its companions. */
export interface MqttFlags {
  url: string
  /** Default: this machine's host name, cut to the characters a gateway id allows. */
  gatewayId?: string
  /** `--client-id`: the MQTT client id as given; default a unique one per process. */
  clientId?: string
  topicPrefix?: string
  homeAssistant: boolean
  /** `--ha-dwell` in ms: announce a beacon heard over this span (default 30 s). */
  haDwellMs?: number
  /** `--ha-expire` in ms: remove the configs of a beacon gone this long (default 7 days). */
  haExpireMs?: number
  /** `--ha-beacons auto|on|off` of a gateway: per-beacon entities (default auto: until a fleet tracker is seen). */
  haBeacons?: 'auto' | boolean
  username?: string
  passwordFile?: string
  /** The broker password itself, from the environment or a private config file; a secret (`passwordFile` wins). */
  password?: string
  /** `--mqtt-ca`, `--mqtt-cert`, `--mqtt-key`: PEM files for `mqtts://`. */
  tls?: { caFile?: string; certFile?: string; keyFile?: string }
  /**
   * A config file's `beacons:` names: the Home Assistant devices of named beacons are called by them, and
   * only listed beacons are announced.
   */
  beaconNames?: readonly BeaconName[]
  /** `--rssi-partitions`: the RSSI batch split for scale-out fleet trackers. */
  rssiPartitions?: number
  /** Keep outgoing events on disk here until the broker has them. */
  queueDir?: string
}

/** `--http [host:]port` and `--http-token`: the live map in a browser. */
export interface HttpFlags {
  host: string
  port: number
  /** A secret: never printed but in the page URL shown once. */
  token?: string
}

/** How every broker client of a run (publisher, tracker, the map's details) reaches the broker. */
export interface BrokerSettings {
  topicPrefix?: string
  username?: string
  passwordFile?: string
  password?: string
  tls?: { caFile?: string; certFile?: string; keyFile?: string }
}

/** The broker settings of `--mqtt` and its companions, with absent ones left out. */
export function brokerSettings(flags: MqttFlags): BrokerSettings {
  return {
    ...(flags.topicPrefix === undefined ? {} : { topicPrefix: flags.topicPrefix }),
    ...(flags.username === undefined ? {} : { username: flags.username }),
    ...(flags.passwordFile === undefined ? {} : { passwordFile: flags.passwordFile }),
    ...(flags.password === undefined ? {} : { password: flags.password }),
    ...(flags.tls === undefined ? {} : { tls: flags.tls }),
  }
}

/** `--metrics [host:]port` and `--metrics-token`: Prometheus `/metrics` and `/healthz` on a server of their own. */
export interface MetricsFlags {
  host: string
  port: number
  /** A secret: required off loopback (generated and printed once when not given); never logged. */
  token?: string
}
