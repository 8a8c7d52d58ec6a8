/**
 * What a parsed command line is: the command names and the typed flags each command gets.
 * Types only (and the list of names), shared by the parser and the value readers.
 */

/** The Bluetooth stacks `scan` can use (`--backend`). */
export type Backend = 'noble' | 'bluez'

/** The sub-commands of `beaconkit`. */
export type CommandName = 'scan' | 'replay' | 'record' | 'simulate' | 'emulate' | 'broker' | 'keys'

/** The commands, in the order the help lists them. */
export const COMMANDS: readonly CommandName[] = ['scan', 'replay', 'record', 'simulate', 'emulate', 'broker', 'keys']

/** Which beacons to show (and upload): the scanner's filter, from the command line. */
export interface FilterFlags {
  serialNumbers?: string[]
  proximityUUIDs?: string[]
  beaconIDs?: string[]
  minRssi?: number
  verifiedOnly?: boolean
}

/** `--upload` and its companions. */
export interface UploadFlags {
  cloudUrl: string
  email: string
  passwordFile: string
  queueDir?: string
}

/** `--mqtt` and its companions. */
export interface MqttFlags {
  url: string
  /** Default: this machine's host name, cut to the characters a gateway id allows. */
  gatewayId?: string
  topicPrefix?: string
  homeAssistant: boolean
  username?: string
  passwordFile?: string
  /** `--rssi-partitions`: the RSSI batch split for scale-out fleet trackers. */
  rssiPartitions?: number
}

/** Options shared by the commands that show beacons (scan, replay, simulate). */
export interface ViewFlags {
  json: boolean
  /** Broadcast key strings from `--key`; secrets, never printed. */
  keys: string[]
  keysFile?: string
  filter: FilterFlags
  upload?: UploadFlags
  mqtt?: MqttFlags
}

/** A parsed command line. */
export type ParsedCommand =
  | { command: 'help'; topic?: CommandName }
  | { command: 'version' }
  | { command: 'scan'; view: ViewFlags; hci?: number; extraHci?: number[]; fallbackReplay?: string; backend?: Backend }
  | { command: 'replay'; view: ViewFlags; file: string; speed: number; virtual: boolean }
  | { command: 'simulate'; view: ViewFlags; seed: number; beacons: number; durationMs?: number; virtual: boolean }
  | { command: 'record'; file: string; hci?: number; json: boolean; durationMs?: number; simulate: boolean; seed: number; force: boolean }
  | { command: 'emulate'; port: number; host: string; json: boolean; email?: string; passwordFile?: string }
  | { command: 'broker'; port: number; host: string }
  | { command: 'keys-check'; key?: string; keysFile?: string; json: boolean; now?: number }
