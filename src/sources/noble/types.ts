/**
 * The small structural slice of @abandonware/noble 1.9.2 that beaconkit touches. Declared
 * here, not imported, so noble's types never reach the public .d.ts and a noble build with
 * other private fields still typechecks. Every field is optional where noble may lack it on
 * some platform (the macOS and Windows bindings have no GAP layer).
 */
import type { AdapterState } from '../source.js'

/** Service data as noble's GAP layer parses it (`uuid` already byte-swapped to `"81e7"`). */
export interface NobleServiceData {
  uuid: string
  data: Uint8Array
}

/** `peripheral.advertisement` of a noble `discover` event. */
export interface NobleAdvertisementLike {
  localName?: string
  txPowerLevel?: number
  manufacturerData?: Uint8Array
  serviceData?: NobleServiceData[]
  serviceUuids?: string[]
}

/** A noble `Peripheral`, as far as a snapshot needs it. */
export interface NoblePeripheralLike {
  id?: string
  address?: string
  addressType?: string
  connectable?: boolean
  rssi?: number
  state?: string
  advertisement?: NobleAdvertisementLike
}

/** One entry of the GAP layer's `_discoveries` map (keyed by `aa:bb:..`). */
export interface NobleGapDiscovery {
  count?: number
}

/** The slice of a Node EventEmitter the hooks use (noble's internals are Node emitters). */
export interface NodeEmitterLike {
  on(event: string, listener: (...args: never[]) => void): unknown
  prependListener(event: string, listener: (...args: never[]) => void): unknown
  removeListener(event: string, listener: (...args: never[]) => void): unknown
}

/** noble's native HCI socket (@abandonware/bluetooth-hci-socket). */
export interface NobleHciSocketLike {
  start(): void
  stop(): void
}

/** noble's HCI layer (lib/hci-socket/hci.js); the methods are replaced per instance by control.ts. */
export interface NobleHciLike extends NodeEmitterLike {
  _socket?: NobleHciSocketLike
  pollIsDevUp: () => void
  onSocketError: (error: NodeJS.ErrnoException) => void
  processCmdCompleteEvent: (cmd: number, status: number, result: Buffer) => void
  processCmdStatusEvent: (cmd: number, status: number) => void
  setScanEnabled: (enabled: boolean, filterDuplicates: boolean) => void
}

/** One report as gap.js keeps it per address (a fresh object per packet). */
export interface NobleGapEntry extends NobleGapDiscovery {
  address: string
  addressType: string
  connectable: boolean
  advertisement: NobleAdvertisementLike
  rssi: number
  hasScanResponse: boolean
}

/** noble's GAP layer (lib/hci-socket/gap.js). */
export interface NobleGapLike extends NodeEmitterLike {
  _discoveries?: Record<string, NobleGapDiscovery>
}

/** noble's HCI bindings (lib/hci-socket/bindings.js): per-address maps keyed by peripheral id. */
export interface NobleHciBindingsLike {
  _addresses?: Record<string, unknown>
  _addresseTypes?: Record<string, unknown>
  _connectable?: Record<string, unknown>
  scannable?: Record<string, unknown>
  _handles?: Record<string, unknown>
  _pendingConnectionUuid?: string | null
  _gap?: NobleGapLike
  _hci?: NobleHciLike
  /** The process SIGINT listener bindings.js installs (it calls process.exit(1)). */
  onSigIntBinded?: () => void
  onDiscover?: (
    status: number,
    address: string,
    addressType: string,
    connectable: boolean,
    advertisement: NobleAdvertisementLike,
    rssi: number,
    scannable: boolean,
  ) => void
}

/** Listener signatures of the noble events beaconkit uses. */
export interface NobleEventMap {
  stateChange: (state: string) => void
  discover: (peripheral: NoblePeripheralLike) => void
  scanStart: (filterDuplicates?: boolean) => void
  scanStop: () => void
  warning: (message: string) => void
}

/** A noble instance (lib/noble.js). */
export interface NobleLike {
  readonly state: string
  /** The controller's BD_ADDR once read ('unknown' before). */
  address?: string
  startScanning(serviceUuids: string[], allowDuplicates: boolean, callback?: (error?: Error | null) => void): void
  stopScanning(callback?: () => void): void
  on<E extends keyof NobleEventMap>(event: E, listener: NobleEventMap[E]): unknown
  removeListener<E extends keyof NobleEventMap>(event: E, listener: NobleEventMap[E]): unknown
  _peripherals?: Record<string, NoblePeripheralLike>
  _services?: Record<string, unknown>
  _characteristics?: Record<string, unknown>
  _descriptors?: Record<string, unknown>
  _discoveredPeripheralUUids?: Record<string, unknown>
  _bindings?: NobleHciBindingsLike
}

/** `require('@abandonware/noble/with-custom-binding')`: builds a fresh noble for the given options. */
export type NobleFactory = (options: { deviceId?: number; extended?: boolean }) => NobleLike

/** The states noble reports; anything else is taken as `unknown`. */
const ADAPTER_STATES: readonly string[] = [
  'unknown',
  'resetting',
  'unsupported',
  'unauthorized',
  'poweredOff',
  'poweredOn',
]
/** noble's `state` string as an {@link AdapterState}. */
export function adapterStateOf(raw: string): AdapterState {
  return (ADAPTER_STATES.includes(raw) ? raw : 'unknown') as AdapterState
}
