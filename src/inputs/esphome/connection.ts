/**
 * One connection to one ESPHome Bluetooth proxy, from TCP connect to close: the Noise handshake
 * when a key is configured, Hello, Connect where the device needs it, DeviceInfo, and the
 * advertisement subscription asking for raw batches (parsed advertisements of older proxies are
 * accepted too); then it answers pings and time requests, pings a quiet device, and ends with one
 * {@link EspHomeError} on any failure. The sequence follows aioesphomeapi connection.py
 * (`_connect_hello_login`, keepalive) and the device side of esphome api_connection.cpp.
 */
import { Socket } from 'node:net'
import type { Advertisement } from '../../advertisement.js'
import { fromParsed, fromRaw } from './advertisements.js'
import { decodeParsedAdvertisement, decodeRawBatch } from './ble-messages.js'
import { EspHomeError } from './errors.js'
import type { ConnectionHandlers, ConnectionOptions, ConnectionStats } from './connection-types.js'
import type { EspHomeErrorCode } from './errors.js'
import {
  FrameError,
  FrameReader,
  MAX_FRAME,
  noiseFrame,
  noiseMessage,
  plainFrame,
  readNoiseMessage,
} from './framing.js'
import type { Frame } from './framing.js'
import * as m from './messages.js'
import { NoiseAuthError } from './noise.js'
import type { NoiseCipher } from './noise.js'
import { NoiseClientHandshake, safeText } from './noise-client.js'
import { ProtoError } from './protobuf.js'

type Phase = 'connecting' | 'server-hello' | 'handshake' | 'hello' | 'device-info' | 'streaming' | 'closed'

/** Unsent bytes past which the device is taken to have stopped reading (a client sends pings only). */
const MAX_WRITE_BACKLOG = 64 * 1024
/** API versions: the client asks for 1.10 (raw advertisements came in 1.9). */
const API_MAJOR = 1
const API_MINOR = 10
/** Devices before ESPHome 2025.8 (API < 1.12) authenticate only on a ConnectRequest, even without a password. */
const HELLO_AUTHENTICATES_FROM_MINOR = 12

/** One connection; see the file comment. */
export class EspHomeConnection {
  readonly stats: ConnectionStats = { messages: 0, advertisements: 0, dropped: 0 }
  private phase: Phase = 'connecting'
  private readonly socket = new Socket()
  private readonly reader: FrameReader
  private handshake: NoiseClientHandshake | undefined
  private ciphers: { send: NoiseCipher; receive: NoiseCipher } | undefined
  private name = ''
  private lastRx: number
  private windowStart: number
  private windowCount = 0
  private readonly cancel: Array<() => void> = []
  private tickTimer: (() => void) | undefined
  private readonly o: Required<Omit<ConnectionOptions, 'key'>>
  /** In a #private field: util.inspect and JSON never show it. */
  readonly #key: Uint8Array | undefined

  constructor(
    options: ConnectionOptions,
    private readonly on: ConnectionHandlers,
  ) {
    const { key, ...rest } = options
    this.#key = key
    this.o = {
      clientInfo: 'beaconkit',
      setupTimeoutMs: 30_000,
      pingIntervalMs: 15_000,
      silenceMs: 45_000,
      maxMessagesPerSecond: 2000,
      maxFrame: MAX_FRAME,
      ...rest,
    }
    this.reader = new FrameReader(key === undefined ? 'plaintext' : 'noise', this.o.maxFrame)
    this.lastRx = this.windowStart = this.o.clock.now()
  }

  /** `host:port (name)`: how messages name the device. */
  get device(): string {
    const at = `${this.o.host}:${this.o.port}`
    return this.name === '' ? at : `${at} (${this.name})`
  }

  /** Opens the TCP connection and starts the exchange. */
  start(): void {
    const s = this.socket
    s.setNoDelay(true)
    s.on('connect', () => this.connected())
    s.on('data', (chunk: Buffer) => this.data(chunk))
    s.on('error', (e: NodeJS.ErrnoException) =>
      this.fail('unreachable', `connection failed (${e.code ?? e.message}); is the device on and port right?`, e),
    )
    s.on('close', () => {
      // aioesphomeapi noise.py: a plaintext device drops a client whose first byte is Noise's.
      if (this.phase === 'server-hello')
        this.fail('encryption_mismatch', 'closed at the encrypted hello: the device may have no encryption key')
      else this.fail('unreachable', 'the device closed the connection')
    })
    this.cancel.push(
      this.o.clock.setTimeout(() => {
        if (this.phase !== 'streaming')
          this.fail('timeout', `no answer within ${this.o.setupTimeoutMs} ms while in ${this.phase}; is it ESPHome?`)
      }, this.o.setupTimeoutMs),
    )
    this.keepalive()
    s.connect({ host: this.o.host, port: this.o.port })
  }

  /** Ends the connection (a DisconnectRequest first when it is up); no close error is reported after. */
  close(): void {
    if (this.phase === 'closed') return
    if (this.phase === 'streaming') this.send(m.MSG.DisconnectRequest, new Uint8Array(0))
    this.finish()
    this.socket.end()
    this.socket.destroySoon()
  }

  private isOpen(): boolean {
    return this.phase !== 'closed'
  }

  private finish(): void {
    this.phase = 'closed'
    for (const c of this.cancel.splice(0)) c()
  }

  private fail(code: EspHomeErrorCode, message: string, cause?: unknown): void {
    if (this.phase === 'closed') return
    this.finish()
    // A goodbye ends cleanly, so the DisconnectResponse just written reaches the device.
    if (code === 'closed') this.socket.end()
    else this.socket.destroy()
    this.on.close(new EspHomeError(code, this.device, message, { cause }))
  }

  private keepalive(): void {
    const tick = (): void => {
      if (this.phase === 'closed') return
      const quiet = this.o.clock.now() - this.lastRx
      if (quiet >= this.o.silenceMs) return this.fail('silent', `nothing received for ${quiet} ms`)
      if (this.socket.writableLength > MAX_WRITE_BACKLOG) return this.fail('silent', 'the device stopped reading')
      if (quiet >= this.o.pingIntervalMs && this.phase === 'streaming') this.send(m.MSG.PingRequest, new Uint8Array(0))
      this.tickTimer = this.o.clock.setTimeout(tick, step)
    }
    // A third of the shorter period: a ping goes out at most a third late, silence is seen at most a third late.
    const step = Math.min(this.o.pingIntervalMs, this.o.silenceMs) / 3
    this.tickTimer = this.o.clock.setTimeout(tick, step)
    // One timer at a time, cancelled through this entry, so a long connection keeps no list of old ones.
    this.cancel.push(() => this.tickTimer?.())
  }

  private connected(): void {
    if (this.#key === undefined) return this.sendHello()
    this.handshake = new NoiseClientHandshake(this.#key)
    this.socket.write(this.handshake.start())
    this.phase = 'server-hello'
  }

  private sendHello(): void {
    this.phase = 'hello'
    this.send(m.MSG.HelloRequest, m.encodeHelloRequest(this.o.clientInfo, API_MAJOR, API_MINOR))
  }

  private send(type: number, payload: Uint8Array): void {
    if (this.socket.destroyed) return
    if (this.ciphers === undefined) this.socket.write(plainFrame(type, payload))
    else this.socket.write(noiseFrame(this.ciphers.send.encrypt(noiseMessage(type, payload))))
  }

  private data(chunk: Buffer): void {
    if (this.phase === 'closed') return
    this.lastRx = this.o.clock.now()
    this.reader.push(chunk)
    try {
      for (let f = this.reader.next(); f !== undefined && this.isOpen(); f = this.reader.next()) this.frame(f)
    } catch (e) {
      if (e instanceof FrameError) return this.fail(e.code, e.message)
      if (e instanceof ProtoError) return this.fail('protocol', `a message that does not decode (${e.message})`)
      if (e instanceof NoiseAuthError) return this.fail('protocol', `an encrypted frame does not authenticate`)
      throw e
    }
  }

  private frame(f: Frame): void {
    if (this.handshake !== undefined) return this.handshakeFrame(this.handshake, f.payload)
    const msg = this.ciphers === undefined ? f : readNoiseMessage(this.ciphers.receive.decrypt(f.payload))
    this.message(msg.type, msg.payload)
  }

  private handshakeFrame(hs: NoiseClientHandshake, body: Buffer): void {
    const step = hs.frame(body)
    if (step.kind === 'failed') return this.fail(step.code, step.message)
    if (step.kind === 'name') {
      if (step.name !== undefined) this.name = step.name
      this.phase = 'handshake'
      return
    }
    this.ciphers = step.ciphers
    this.handshake = undefined
    this.sendHello()
  }

  private overRate(): boolean {
    const now = this.o.clock.now()
    if (now - this.windowStart >= 1000) {
      this.windowStart = now
      this.windowCount = 0
    }
    return ++this.windowCount > this.o.maxMessagesPerSecond
  }

  private message(type: number, payload: Buffer): void {
    this.stats.messages++
    if (type === m.MSG.PingRequest) return this.send(m.MSG.PingResponse, new Uint8Array(0))
    if (type === m.MSG.GetTimeRequest)
      return this.send(m.MSG.GetTimeResponse, m.encodeGetTimeResponse(Math.floor(this.o.clock.now() / 1000)))
    if (type === m.MSG.DisconnectRequest) {
      this.send(m.MSG.DisconnectResponse, new Uint8Array(0))
      return this.fail('closed', 'the device asked to disconnect (rebooting or shutting down)')
    }
    if (type === m.MSG.DisconnectResponse) return this.fail('closed', 'the device acknowledged a disconnect')
    if (type === m.MSG.HelloResponse && this.phase === 'hello') return this.helloResponse(payload)
    if (type === m.MSG.ConnectResponse && m.decodeConnectResponse(payload).invalidPassword)
      return this.fail('password_required', 'the device asks for an API password; use "api: encryption: key:" instead')
    if (type === m.MSG.DeviceInfoResponse && this.phase === 'device-info') return this.deviceInfo(payload)
    if (this.phase !== 'streaming') return
    const isRaw = type === m.MSG.BluetoothLERawAdvertisementsResponse
    if (!isRaw && type !== m.MSG.BluetoothLEAdvertisementResponse) return
    if (this.overRate()) {
      this.stats.dropped++
      return
    }
    const now = this.o.clock.now()
    if (!isRaw) return this.emit(fromParsed(decodeParsedAdvertisement(payload), now))
    const batch = decodeRawBatch(payload)
    this.stats.dropped += batch.dropped
    for (const a of batch.advertisements) this.emit(fromRaw(a, now))
  }

  private emit(adv: Advertisement | undefined): void {
    if (adv === undefined) {
      this.stats.dropped++
      return
    }
    this.stats.advertisements++
    this.on.advertisement(adv)
  }

  private helloResponse(payload: Buffer): void {
    const hello = m.decodeHelloResponse(payload)
    if (hello.apiVersionMajor !== API_MAJOR)
      return this.fail(
        'protocol',
        `API version ${hello.apiVersionMajor}.${hello.apiVersionMinor} is not one this client speaks`,
      )
    if (hello.name !== '') this.name = safeText(Buffer.from(hello.name))
    // Sent without waiting: a device that needs no password answers nothing (esphome#9445, aioesphomeapi#1369).
    if (hello.apiVersionMinor < HELLO_AUTHENTICATES_FROM_MINOR)
      this.send(m.MSG.ConnectRequest, m.encodeConnectRequest(''))
    this.phase = 'device-info'
    this.send(m.MSG.DeviceInfoRequest, new Uint8Array(0))
  }

  private deviceInfo(payload: Buffer): void {
    const info = m.decodeDeviceInfoResponse(payload)
    if (info.name === '') info.name = this.name
    this.name = safeText(Buffer.from(info.name))
    this.phase = 'streaming'
    this.subscribe()
    this.on.ready(info)
  }

  /**
   * Asks for the advertisements (raw batches). Sent again by the proxy while none arrive: the
   * firmware ignores a subscription while another client holds it, and takes the next one after.
   */
  subscribe(): void {
    if (this.phase !== 'streaming') return
    const flags = m.encodeSubscribeAdvertisements(m.SUBSCRIBE_RAW_ADVERTISEMENTS)
    this.send(m.MSG.SubscribeBluetoothLEAdvertisementsRequest, flags)
  }
}
