/**
 * What a parsed command line is: the command names and the typed flags each command gets.
 * Types only (and the list of names), shared by the parser and the value readers.
 */

import type { PositioningMethod } from '../positioning/types.js'
import type { HttpFlags, MqttFlags, UploadFlags } from '../gateway/config.js'
export type { HttpFlags, MqttFlags, UploadFlags } from '../gateway/config.js'

/** The Bluetooth stacks `scan` can use (`--backend`). */
export type Backend = 'noble' | 'bluez'

/** The sub-commands of `beaconkit`. */
export type CommandName = 'scan' | 'replay' | 'record' | 'simulate' | 'emulate' | 'broker' | 'webhook' | 'keys' | 'fleet' | 'locate' | 'survey' | 'site'

/** The commands, in the order the help lists them. */
export const COMMANDS: readonly CommandName[] = ['scan', 'replay', 'record', 'simulate', 'emulate', 'broker', 'webhook', 'keys', 'fleet', 'site', 'locate', 'survey']

/** Which beacons to show (and upload): the scanner's filter, from the command line. */
export interface FilterFlags {
  serialNumbers?: string[]
  proximityUUIDs?: string[]
  beaconIDs?: string[]
  minRssi?: number
  verifiedOnly?: boolean
}



/** `webhook --mqtt` and its companions: where pushes are forwarded. */
export interface WebhookMqttFlags {
  url: string
  topicPrefix?: string
  username?: string
  passwordFile?: string
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
  http?: HttpFlags
}

/** `beaconkit locate`: files in, the positioning method and the output's pace. */
export interface LocateFlags {
  /** The site file (anchor positions). */
  site: string
  /** The recording to position. */
  recording: string
  survey?: string
  occupancy?: string
  method: PositioningMethod
  /** One estimate per beacon this often, ms. */
  everyMs: number
  /** Metres; default the survey's, else 1.2. */
  tagHeight?: number
  /** The site anchor an advertisement recording was made at (default: the site's only one). */
  gateway?: string
}

/** `beaconkit survey`: the broker, the carried beacon, the points and where the samples go. */
export interface SurveyFlags {
  /** The broker the gateways publish to (`--mqtt`, `--mqtt-prefix`, `--mqtt-user`, `--mqtt-password-file`). */
  mqtt: MqttFlags
  /** The id of the carried beacon as the gateways publish it. */
  beacon: string
  /** The samples file (CSV x,y,anchor,rssi), appended to. */
  out: string
  /** CSV name,x,y; without it the command asks for x,y at each point. */
  points?: string
  /** Seconds recorded per point. */
  seconds: number
  /** The site file: with it, the survey's quality (leave-one-point-out error) is printed at the end. */
  site?: string
}

/** A parsed command line. */
export type ParsedCommand =
  | { command: 'help'; topic?: CommandName }
  | { command: 'version' }
  | { command: 'scan'; view: ViewFlags; hci?: number; extraHci?: number[]; fallbackReplay?: string; backend?: Backend }
  | { command: 'replay'; view: ViewFlags; file: string; speed: number; virtual: boolean }
  | { command: 'simulate'; view: ViewFlags; seed: number; beacons: number; durationMs?: number; virtual: boolean; site?: string }
  | { command: 'fleet'; mqtt: MqttFlags; embeddedBroker?: number; site?: string; survey?: string; json: boolean; durationMs?: number; http?: HttpFlags; record?: string; force?: boolean }
  | { command: 'fleet-forget'; id: string; mqtt: MqttFlags; haPrefix?: string }
  | { command: 'record'; file: string; hci?: number; json: boolean; durationMs?: number; simulate: boolean; seed: number; force: boolean }
  | { command: 'emulate'; port: number; host: string; json: boolean; email?: string; passwordFile?: string; webhookUrl?: string }
  | { command: 'broker'; port: number; host: string }
  | { command: 'webhook'; port: number; host: string; json: boolean; mqtt?: WebhookMqttFlags; handlerTimeoutMs?: number }
  | { command: 'keys-check'; key?: string; keysFile?: string; json: boolean; now?: number }
  | { command: 'site-check'; file: string }
  | ({ command: 'locate' } & LocateFlags)
  | ({ command: 'survey' } & SurveyFlags)
