/**
 * A fake ESPHome Bluetooth proxy: a TCP server on loopback speaking the native API as the
 * firmware does (esphome/esphome esphome/components/api/api_frame_helper.cpp for the plaintext
 * and Noise framings and the handshake, api_connection.cpp for hello/connect/device info and
 * keepalive, bluetooth_proxy/bluetooth_proxy.cpp for the subscription and the advertisements).
 * test/inputs/esphome/real-client.test.ts connects a real client library to it, so it cannot
 * drift from the protocol. Misbehaviours make the failures the client must survive.
 */
import { createServer } from 'node:net'
import type { Server, Socket } from 'node:net'
import { encodeParsedAdvertisement, encodeRawBatch } from '../../src/inputs/esphome/ble-messages.js'
import type { ParsedServiceData, RawAdvertisement } from '../../src/inputs/esphome/ble-messages.js'
import {
  FrameReader,
  noiseFrame,
  noiseMessage,
  plainFrame,
  readNoiseMessage,
} from '../../src/inputs/esphome/framing.js'
import * as m from '../../src/inputs/esphome/messages.js'
import { NoiseAuthError, NoiseHandshake } from '../../src/inputs/esphome/noise.js'
import type { NoiseCipher } from '../../src/inputs/esphome/noise.js'

/** How the fake device is set up. */
export interface FakeDeviceOptions {
  name?: string
  mac?: string
  /** The 32-byte `api: encryption: key:`; absent: plaintext. */
  key?: Uint8Array
  /**
   * `raw`: batches when the client asks with the raw flag, or always from API 1.12 (2025.8);
   * `parsed`: BluetoothLEAdvertisementResponse always (a proxy older than raw batches).
   */
  advertisements?: 'raw' | 'parsed'
  /** HelloResponse minor version: below 12 a ConnectRequest is needed before subscribing (pre-2025.8 firmware). */
  apiMinor?: number
  /** The device pings a client it heard nothing from for this long (firmware: 60 s); 0: never. */
  keepaliveMs?: number
  /** Sends a GetTimeRequest once the client is authenticated (a device with `time: platform: homeassistant`). */
  askTime?: boolean
  /** `api: password:` (deprecated; removed in 2026.1): a ConnectRequest must carry it. */
  password?: string
  /** Misbehaves on every connection: see {@link Misbehaviour}. */
  misbehave?: Misbehaviour
}

/**
 * - `garbage`: random bytes instead of the API, right after accepting;
 * - `huge-frame`: a frame header claiming 16 MB after the hello;
 * - `stall`: stops reading and answering after the subscription (a hung device);
 * - `silent`: accepts and never says anything.
 */
export type Misbehaviour = 'garbage' | 'huge-frame' | 'stall' | 'silent'

/** One advertisement to send: what the radio heard. */
export interface FakeAdvertisement {
  address: string
  rssi: number
  addressType?: number
  /** AD structures (advertisement + scan response). */
  data: Uint8Array
}

interface Client {
  socket: Socket
  reader: FrameReader
  phase: 'client-hello' | 'handshake' | 'data'
  handshake?: NoiseHandshake
  ciphers?: { send: NoiseCipher; receive: NoiseCipher }
  authenticated: boolean
  clientInfo: string
  raw: boolean
}

const PROLOGUE_INIT = Buffer.from('NoiseAPIInit', 'ascii')
/** api.proto ListEntitiesRequest (11) and ListEntitiesDoneResponse (19). */
const LIST_ENTITIES_REQUEST = 11
const LIST_ENTITIES_DONE_RESPONSE = 19

/** A running fake device. */
export class FakeEspHomeDevice {
  readonly port: number
  /** Messages received, by type id, over all connections (what a test asserts on). */
  readonly received: number[] = []
  /** The client infos of connections that said hello, in order. */
  readonly hellos: string[] = []
  /** Connections accepted so far. */
  accepted = 0
  /** The connection holding the advertisement subscription (bluetooth_proxy.cpp `api_connection_`). */
  private subscriber: Client | undefined
  private readonly clients = new Set<Client>()
  private readonly opts: Required<Omit<FakeDeviceOptions, 'key' | 'misbehave' | 'password'>> &
    Pick<FakeDeviceOptions, 'key' | 'misbehave' | 'password'>

  private constructor(
    private readonly server: Server,
    options: FakeDeviceOptions,
  ) {
    const address = server.address()
    this.port = typeof address === 'object' && address !== null ? address.port : 0
    this.opts = {
      name: 'proxy-test',
      mac: 'AC:BC:32:89:0E:A9',
      advertisements: 'raw',
      apiMinor: 10,
      keepaliveMs: 0,
      askTime: false,
      ...options,
    }
  }

  /** Starts a fake device on 127.0.0.1 and a free port. */
  static async start(options: FakeDeviceOptions = {}): Promise<FakeEspHomeDevice> {
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const device = new FakeEspHomeDevice(server, options)
    server.on('connection', (s) => device.accept(s))
    return device
  }

  /** Changes the misbehaviour for connections accepted from now on. */
  set misbehave(kind: Misbehaviour | undefined) {
    this.opts.misbehave = kind
  }

  /** Whether a connection holds the advertisement subscription. */
  get subscribed(): boolean {
    return this.subscriber !== undefined
  }

  /** Open connections. */
  get connections(): number {
    return this.clients.size
  }

  /** Sends advertisements to the subscriber (one batch, or one parsed message each); false when none. */
  advertise(list: readonly FakeAdvertisement[]): boolean {
    const c = this.subscriber
    if (c === undefined) return false
    // Raw batches when asked for (esphome#4924, 2023.6); firmware from 2025.8 (esphome#9489, API 1.12 here)
    // dropped the parsed form and sends raw batches whatever the flags.
    if (this.opts.advertisements === 'raw' && (c.raw || this.opts.apiMinor >= 12)) {
      const raws: RawAdvertisement[] = list.map((a) => ({
        address: parseInt(a.address.replace(/:/g, ''), 16),
        rssi: a.rssi,
        addressType: a.addressType ?? 0,
        data: a.data,
      }))
      this.send(c, m.MSG.BluetoothLERawAdvertisementsResponse, encodeRawBatch(raws))
    } else for (const a of list) this.send(c, m.MSG.BluetoothLEAdvertisementResponse, parsedOf(a))
    return true
  }

  /** Says goodbye to every client (DisconnectRequest), as a device about to reboot. */
  goodbye(): void {
    for (const c of this.clients) this.send(c, m.MSG.DisconnectRequest, new Uint8Array(0))
  }

  /** Drops every connection, as a device that reboots or leaves the network. */
  drop(): void {
    for (const c of this.clients) c.socket.destroy()
  }

  async close(): Promise<void> {
    this.drop()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private accept(socket: Socket): void {
    this.accepted++
    const c: Client = {
      socket,
      reader: new FrameReader(this.opts.key === undefined ? 'plaintext' : 'noise'),
      phase: this.opts.key === undefined ? 'data' : 'client-hello',
      authenticated: false,
      clientInfo: '',
      raw: false,
    }
    this.clients.add(c)
    socket.on('error', () => undefined)
    socket.on('close', () => {
      this.clients.delete(c)
      // api_connection.cpp: a closing connection unsubscribes (bluetooth_proxy.cpp unsubscribe_api_connection).
      if (this.subscriber === c) this.subscriber = undefined
    })
    if (this.opts.misbehave === 'garbage')
      socket.write(Buffer.from('HTTP/1.1 400 Bad Request\r\n\r\n\xff\xfe', 'latin1'))
    if (this.opts.misbehave === 'silent') return
    let last = Date.now()
    if (this.opts.keepaliveMs > 0) {
      const timer = setInterval(() => {
        if (c.phase === 'data' && Date.now() - last >= this.opts.keepaliveMs)
          this.send(c, m.MSG.PingRequest, new Uint8Array(0))
      }, this.opts.keepaliveMs / 2)
      socket.on('close', () => clearInterval(timer))
    }
    socket.on('data', (chunk: Buffer) => {
      last = Date.now()
      c.reader.push(chunk)
      try {
        for (let f = c.reader.next(); f !== undefined; f = c.reader.next()) this.frame(c, f.type, f.payload)
      } catch {
        // api_frame_helper.cpp: a bad indicator on a Noise device is answered with an explicit reject, then closed.
        if (this.opts.key !== undefined && c.phase !== 'data') socket.write(noiseFrame(reject('Bad indicator byte')))
        socket.destroySoon()
      }
    })
  }

  private frame(c: Client, type: number, payload: Buffer): void {
    if (c.phase === 'client-hello') {
      // The client hello's contents are ignored but go into the prologue with their 2-byte length.
      const prologue = Buffer.concat([
        PROLOGUE_INIT,
        Buffer.from([payload.length >> 8, payload.length & 0xff]),
        payload,
      ])
      c.socket.write(
        noiseFrame(Buffer.concat([Buffer.from([0x01]), Buffer.from(`${this.opts.name}\0${this.opts.mac}\0`)])),
      )
      c.handshake = new NoiseHandshake('responder', this.opts.key as Uint8Array, prologue)
      c.phase = 'handshake'
      return
    }
    if (c.phase === 'handshake') {
      const hs = c.handshake as NoiseHandshake
      if (payload.length === 0 || payload[0] !== 0x00) return this.refuse(c, 'Bad handshake error byte')
      try {
        hs.readMessage(payload.subarray(1))
      } catch (e) {
        if (e instanceof NoiseAuthError) return this.refuse(c, 'Handshake MAC failure')
        throw e
      }
      c.socket.write(noiseFrame(Buffer.concat([Buffer.from([0x00]), hs.writeMessage()])))
      c.ciphers = hs.split()
      c.phase = 'data'
      return
    }
    const msg = c.ciphers === undefined ? { type, payload } : readNoiseMessage(c.ciphers.receive.decrypt(payload))
    if (this.opts.misbehave === 'stall' && this.subscriber === c) {
      c.socket.pause()
      return
    }
    this.message(c, msg.type, msg.payload)
  }

  private refuse(c: Client, reason: string): void {
    c.socket.write(noiseFrame(reject(reason)))
    c.socket.destroySoon()
  }

  private message(c: Client, type: number, payload: Buffer): void {
    this.received.push(type)
    switch (type) {
      case m.MSG.HelloRequest: {
        c.clientInfo = m.decodeHelloRequest(payload).clientInfo
        this.hellos.push(c.clientInfo)
        const hello = {
          apiVersionMajor: 1,
          apiVersionMinor: this.opts.apiMinor,
          serverInfo: `${this.opts.name} (esphome v2024.10.0)`,
          name: this.opts.name,
        }
        this.send(c, m.MSG.HelloResponse, m.encodeHelloResponse(hello))
        // esphome#9445 (2025.8, API 1.12 here): hello authenticates a device that has no password.
        if (this.opts.apiMinor >= 12 && this.opts.password === undefined) this.authenticated(c)
        if (this.opts.misbehave === 'huge-frame') c.socket.write(Buffer.from([0x00, 0x80, 0x80, 0x80, 0x08, 0x5d]))
        return
      }
      case m.MSG.ConnectRequest: {
        // api_connection.cpp connect(): invalid_password unless the password matches (none configured: '').
        const ok = m.decodeConnectRequest(payload) === (this.opts.password ?? '')
        this.send(c, m.MSG.ConnectResponse, m.encodeConnectResponse(!ok))
        return ok ? this.authenticated(c) : undefined
      }
      case m.MSG.DeviceInfoRequest:
        return this.send(c, m.MSG.DeviceInfoResponse, m.encodeDeviceInfoResponse(this.info()))
      case m.MSG.PingRequest:
        return this.send(c, m.MSG.PingResponse, new Uint8Array(0))
      case m.MSG.DisconnectRequest:
        this.send(c, m.MSG.DisconnectResponse, new Uint8Array(0))
        c.socket.destroySoon()
        return
      case m.MSG.SubscribeBluetoothLEAdvertisementsRequest:
        // api_pb2_service.cpp: subscribing needs an authenticated connection, else on_unauthenticated_access closes it.
        if (!c.authenticated) return void c.socket.destroy()
        // bluetooth_proxy.cpp subscribe_api_connection: the first subscriber keeps it; a later one is only logged.
        if (this.subscriber !== undefined) return
        this.subscriber = c
        c.raw = (m.decodeSubscribeAdvertisements(payload) & m.SUBSCRIBE_RAW_ADVERTISEMENTS) !== 0
        return
      case LIST_ENTITIES_REQUEST:
        // A proxy with no entities: only the end of the list (clients that list entities wait for it).
        return this.send(c, LIST_ENTITIES_DONE_RESPONSE, new Uint8Array(0))
      case m.MSG.UnsubscribeBluetoothLEAdvertisementsRequest:
        if (this.subscriber === c) this.subscriber = undefined
        return
    }
  }

  private authenticated(c: Client): void {
    if (c.authenticated) return
    c.authenticated = true
    if (this.opts.askTime) this.send(c, m.MSG.GetTimeRequest, new Uint8Array(0))
  }

  private info(): m.DeviceInfo {
    return {
      name: this.opts.name,
      macAddress: this.opts.mac,
      esphomeVersion: '2024.10.0',
      model: 'esp32dev',
      manufacturer: 'Espressif',
      friendlyName: '',
      // PASSIVE_SCAN | ACTIVE_CONNECTIONS | REMOTE_CACHING | PAIRING | CACHE_CLEARING | RAW_ADVERTISEMENTS
      bluetoothProxyFeatureFlags: this.opts.advertisements === 'raw' ? 0x3f : 0x1f,
      legacyBluetoothProxyVersion: 0,
    }
  }

  private send(c: Client, type: number, payload: Uint8Array): void {
    if (c.socket.destroyed) return
    if (c.ciphers === undefined) c.socket.write(plainFrame(type, payload))
    else c.socket.write(noiseFrame(c.ciphers.send.encrypt(noiseMessage(type, payload))))
  }
}

function reject(reason: string): Buffer {
  return Buffer.concat([Buffer.from([0x01]), Buffer.from(reason, 'ascii')])
}

/** The parsed message an older proxy sends for these AD bytes (bluetooth_proxy.cpp send_api_packet_). */
function parsedOf(a: FakeAdvertisement): Uint8Array {
  const serviceData: ParsedServiceData[] = []
  const manufacturerData: ParsedServiceData[] = []
  let name = new Uint8Array(0)
  for (let i = 0; i + 1 < a.data.length && a.data[i] > 0; i += 1 + a.data[i]) {
    const body = a.data.subarray(i + 2, i + 1 + a.data[i])
    const type = a.data[i + 1]
    const uuid16 = (lo: number, hi: number): string =>
      `0x${((hi << 8) | lo).toString(16).toUpperCase().padStart(4, '0')}`
    if (type === 0x09 || type === 0x08) name = Uint8Array.from(body)
    else if (type === 0x16) serviceData.push({ uuid: uuid16(body[0], body[1]), data: body.subarray(2) })
    else if (type === 0xff) manufacturerData.push({ uuid: uuid16(body[0], body[1]), data: body.subarray(2) })
  }
  const address = parseInt(a.address.replace(/:/g, ''), 16)
  return encodeParsedAdvertisement({
    address,
    name,
    rssi: a.rssi,
    addressType: a.addressType ?? 0,
    serviceData,
    manufacturerData,
  })
}
