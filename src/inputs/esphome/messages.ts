/**
 * The messages of the ESPHome native API that a Bluetooth proxy client needs, with the type ids
 * and field numbers of `api.proto` (esphome/esphome esphome/components/api/api.proto, the same
 * file as esphome/aioesphomeapi aioesphomeapi/api.proto). Each decoder reads only the fields it
 * names and skips the rest, so a newer device's extra fields are harmless. Pure.
 */
import { ProtoReader, ProtoWriter, WIRE_LEN } from './protobuf.js'

/** Message type ids (`option (id)` in api.proto). */
export const MSG = {
  HelloRequest: 1,
  HelloResponse: 2,
  /** `ConnectRequest` before ESPHome 2025.8, `AuthenticationRequest` (deprecated) since. */
  ConnectRequest: 3,
  ConnectResponse: 4,
  DisconnectRequest: 5,
  DisconnectResponse: 6,
  PingRequest: 7,
  PingResponse: 8,
  DeviceInfoRequest: 9,
  DeviceInfoResponse: 10,
  GetTimeRequest: 36,
  GetTimeResponse: 37,
  SubscribeBluetoothLEAdvertisementsRequest: 66,
  BluetoothLEAdvertisementResponse: 67,
  UnsubscribeBluetoothLEAdvertisementsRequest: 87,
  BluetoothLERawAdvertisementsResponse: 93,
} as const

/** `BluetoothProxySubscriptionFlag.RAW_ADVERTISEMENTS` (aioesphomeapi model.py): batches of raw AD bytes. */
export const SUBSCRIBE_RAW_ADVERTISEMENTS = 1

/** Longest text field kept (a device name is at most 31 bytes, a model 127: api.proto max_data_length). */
const MAX_TEXT = 128

function text(r: ProtoReader): string {
  const s = r.string()
  return s.length > MAX_TEXT ? s.slice(0, MAX_TEXT) : s
}

/** HelloRequest: who the client is and which API version it speaks. */
export function encodeHelloRequest(clientInfo: string, major: number, minor: number): Uint8Array {
  return new ProtoWriter().string(1, clientInfo).uint(2, major).uint(3, minor).finish()
}

/** HelloResponse (server side): the API version, server info and the device name. */
export interface HelloResponse {
  apiVersionMajor: number
  apiVersionMinor: number
  serverInfo: string
  name: string
}

export function decodeHelloResponse(b: Uint8Array): HelloResponse {
  const out: HelloResponse = { apiVersionMajor: 0, apiVersionMinor: 0, serverInfo: '', name: '' }
  const r = new ProtoReader(b)
  while (r.more()) {
    const { field, wire } = r.tag()
    if (field === 1 && wire === 0) out.apiVersionMajor = r.varint()
    else if (field === 2 && wire === 0) out.apiVersionMinor = r.varint()
    else if (field === 3 && wire === WIRE_LEN) out.serverInfo = text(r)
    else if (field === 4 && wire === WIRE_LEN) out.name = text(r)
    else r.skip(wire)
  }
  return out
}

export function encodeHelloResponse(h: HelloResponse): Uint8Array {
  return new ProtoWriter()
    .uint(1, h.apiVersionMajor)
    .uint(2, h.apiVersionMinor)
    .string(3, h.serverInfo)
    .string(4, h.name)
    .finish()
}

/** HelloRequest as the device reads it (the fake device's side). */
export function decodeHelloRequest(b: Uint8Array): { clientInfo: string; major: number; minor: number } {
  const out = { clientInfo: '', major: 0, minor: 0 }
  const r = new ProtoReader(b)
  while (r.more()) {
    const { field, wire } = r.tag()
    if (field === 1 && wire === WIRE_LEN) out.clientInfo = text(r)
    else if (field === 2 && wire === 0) out.major = r.varint()
    else if (field === 3 && wire === 0) out.minor = r.varint()
    else r.skip(wire)
  }
  return out
}

/** ConnectRequest / AuthenticationRequest: field 1 the password. */
export function encodeConnectRequest(password: string): Uint8Array {
  return new ProtoWriter().string(1, password).finish()
}

export function decodeConnectRequest(b: Uint8Array): string {
  const r = new ProtoReader(b)
  let password = ''
  while (r.more()) {
    const { field, wire } = r.tag()
    if (field === 1 && wire === WIRE_LEN) password = r.string()
    else r.skip(wire)
  }
  return password
}

/** ConnectResponse / AuthenticationResponse: field 1 `invalid_password`. */
export function decodeConnectResponse(b: Uint8Array): { invalidPassword: boolean } {
  const r = new ProtoReader(b)
  let invalidPassword = false
  while (r.more()) {
    const { field, wire } = r.tag()
    if (field === 1 && wire === 0) invalidPassword = r.varint() !== 0
    else r.skip(wire)
  }
  return { invalidPassword }
}

export function encodeConnectResponse(invalidPassword: boolean): Uint8Array {
  return new ProtoWriter().bool(1, invalidPassword).finish()
}

/** The DeviceInfoResponse fields beaconkit uses. */
export interface DeviceInfo {
  /** `App.get_name()`: the device hostname, the proxy's gateway id. */
  name: string
  /** `AC:BC:32:89:0E:A9`. */
  macAddress: string
  esphomeVersion: string
  model: string
  manufacturer: string
  friendlyName: string
  /** `BluetoothProxyFeature` bits (bit 5: raw advertisements). */
  bluetoothProxyFeatureFlags: number
  /** `legacy_bluetooth_proxy_version` (field 11) of devices before API 1.9. */
  legacyBluetoothProxyVersion: number
}

export function decodeDeviceInfoResponse(b: Uint8Array): DeviceInfo {
  const out: DeviceInfo = {
    name: '',
    macAddress: '',
    esphomeVersion: '',
    model: '',
    manufacturer: '',
    friendlyName: '',
    bluetoothProxyFeatureFlags: 0,
    legacyBluetoothProxyVersion: 0,
  }
  const r = new ProtoReader(b)
  while (r.more()) {
    const { field, wire } = r.tag()
    if (wire === WIRE_LEN && field === 2) out.name = text(r)
    else if (wire === WIRE_LEN && field === 3) out.macAddress = text(r)
    else if (wire === WIRE_LEN && field === 4) out.esphomeVersion = text(r)
    else if (wire === WIRE_LEN && field === 6) out.model = text(r)
    else if (wire === WIRE_LEN && field === 12) out.manufacturer = text(r)
    else if (wire === WIRE_LEN && field === 13) out.friendlyName = text(r)
    else if (wire === 0 && field === 11) out.legacyBluetoothProxyVersion = r.varint()
    else if (wire === 0 && field === 15) out.bluetoothProxyFeatureFlags = r.varint()
    else r.skip(wire)
  }
  return out
}

export function encodeDeviceInfoResponse(d: DeviceInfo): Uint8Array {
  return new ProtoWriter()
    .string(2, d.name)
    .string(3, d.macAddress)
    .string(4, d.esphomeVersion)
    .string(6, d.model)
    .uint(11, d.legacyBluetoothProxyVersion)
    .string(12, d.manufacturer)
    .string(13, d.friendlyName)
    .uint(15, d.bluetoothProxyFeatureFlags)
    .finish()
}

/** SubscribeBluetoothLEAdvertisementsRequest: field 1 `flags`. */
export function encodeSubscribeAdvertisements(flags: number): Uint8Array {
  return new ProtoWriter().uint(1, flags).finish()
}

export function decodeSubscribeAdvertisements(b: Uint8Array): number {
  const r = new ProtoReader(b)
  let flags = 0
  while (r.more()) {
    const { field, wire } = r.tag()
    if (field === 1 && wire === 0) flags = r.varint()
    else r.skip(wire)
  }
  return flags
}

/** GetTimeResponse: field 1 `epoch_seconds` (fixed32). */
export function encodeGetTimeResponse(epochSeconds: number): Uint8Array {
  return new ProtoWriter().fixed32(1, epochSeconds).finish()
}
