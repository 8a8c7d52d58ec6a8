/**
 * The ESPHome inputs of one fleet: a proxy per `--input esphome:<host>[:<port>]`, each with its
 * key from the keys file (none: plaintext), started a few per second so a site of many proxies
 * does not open them all in the same instant, and each allowed a gateway id only when the id is
 * usable (`GATEWAY_ID`), not a native beaconkit gateway's (the caller's `isNative`, e.g.
 * NativeGateways.has) and not held by another proxy. What reaches the fleet: advertisements with
 * their gateway id, and one online / offline per change of a proxy's connection.
 */
import { EventEmitter } from 'eventemitter3'
import type { Advertisement } from '../../advertisement.js'
import { RealClock } from '../../clock.js'
import type { CancelTimer, Clock } from '../../clock.js'
import { GATEWAY_ID } from '../../mqtt/topics.js'
import type { EspHomeError } from './errors.js'
import type { EspHomeKeys } from './keys.js'
import type { DeviceInfo } from './messages.js'
import { EspHomeProxy } from './proxy.js'
import type { EspHomeProxyOptions } from './proxy.js'
import { targetText } from './target.js'
import type { EspHomeTarget } from './target.js'

/** Proxies one fleet takes at most: more is a configuration mistake, not a site. */
export const MAX_PROXIES = 256

/** What the inputs tell the fleet. */
export interface EspHomeInputsEvents {
  advertisement: (adv: Advertisement, gateway: string) => void
  /** A proxy is connected and subscribed as `gateway`. */
  online: (gateway: string, target: string, info: DeviceInfo) => void
  /** A proxy that was online lost its connection. */
  offline: (gateway: string, target: string, error: EspHomeError) => void
  /** A proxy could not be used; once per change of reason (never carries a key). */
  error: (error: Error, target: string) => void
  /** A connected proxy sent nothing for a minute (another client holds its subscription?). */
  quiet: (gateway: string, target: string) => void
}

/** Options of the ESPHome inputs. */
export interface EspHomeInputsOptions {
  targets: readonly EspHomeTarget[]
  keys?: EspHomeKeys
  clock?: Clock
  /** True for the id of a native beaconkit gateway, which no proxy may take. */
  isNative?: (id: string) => boolean
  /** New connections started per second at most (default 10). */
  startsPerSecond?: number
  /** Passed to every proxy (timeouts, bounds, backoff). */
  proxy?: Omit<EspHomeProxyOptions, 'host' | 'port' | 'key' | 'clock'>
}

/** The ESPHome inputs of a fleet; see the file comment. */
export class EspHomeInputs extends EventEmitter<EspHomeInputsEvents> {
  readonly proxies: ReadonlyMap<string, EspHomeProxy>
  /** Gateway id → target holding it. */
  private readonly holders = new Map<string, string>()
  private readonly timers: CancelTimer[] = []
  private readonly clock: Clock

  /** @throws RangeError for more than {@link MAX_PROXIES} targets. */
  constructor(private readonly options: EspHomeInputsOptions) {
    super()
    if (options.targets.length > MAX_PROXIES)
      throw new RangeError(`${options.targets.length} ESPHome proxies: at most ${MAX_PROXIES} per fleet`)
    this.clock = options.clock ?? new RealClock()
    const proxies = new Map<string, EspHomeProxy>()
    for (const t of options.targets) {
      const at = targetText(t)
      if (proxies.has(at)) continue // the same proxy named twice is one input
      proxies.set(at, this.wire(at, t))
    }
    this.proxies = proxies
  }

  private wire(at: string, t: EspHomeTarget): EspHomeProxy {
    const p = new EspHomeProxy({
      ...this.options.proxy,
      host: t.host,
      port: t.port,
      key: this.options.keys?.get(t),
      clock: this.clock,
    })
    let gateway: string | undefined
    p.on('connected', (info) => {
      const refusal = this.refusal(info.name, at)
      if (refusal !== undefined) {
        this.emit('error', new Error(`ESPHome device ${at} (${info.name}): ${refusal}`), at)
        // Retried like any failure: the name may be fixed (or the other proxy gone) later.
        p.stop()
        this.timers.push(this.clock.setTimeout(() => p.start(), 60_000))
        return
      }
      gateway = info.name
      this.holders.set(gateway, at)
      this.emit('online', gateway, at, info)
    })
    p.on('advertisement', (adv) => {
      if (gateway !== undefined) this.emit('advertisement', adv, gateway)
    })
    p.on('disconnected', (error) => {
      if (gateway === undefined) return
      this.holders.delete(gateway)
      const was = gateway
      gateway = undefined
      this.emit('offline', was, at, error)
    })
    p.on('error', (error) => this.emit('error', error, at))
    p.on('quiet', (info) => this.emit('quiet', info.name, at))
    return p
  }

  /** Why `name` cannot be this proxy's gateway id, or undefined when it can. */
  private refusal(name: string, at: string): string | undefined {
    if (!GATEWAY_ID.test(name))
      return `its name ${JSON.stringify(name)} cannot be a gateway id (letters, digits, - and _)`
    if (this.options.isNative?.(name) === true)
      return `its name ${name} is a beaconkit gateway's; rename the proxy (esphome: name:)`
    const holder = this.holders.get(name)
    if (holder !== undefined && holder !== at) return `its name ${name} is already the proxy ${holder}'s; rename one`
    return undefined
  }

  /** Starts the proxies, `startsPerSecond` at a time. */
  start(): void {
    const perSecond = Math.max(1, this.options.startsPerSecond ?? 10)
    let i = 0
    for (const p of this.proxies.values()) {
      const delay = Math.floor(i++ / perSecond) * 1000
      if (delay === 0) p.start()
      else this.timers.push(this.clock.setTimeout(() => p.start(), delay))
    }
  }

  /** Stops every proxy; the ones online go offline without an event (the fleet is closing). */
  stop(): void {
    for (const cancel of this.timers.splice(0)) cancel()
    for (const p of this.proxies.values()) p.stop()
    this.holders.clear()
  }
}
