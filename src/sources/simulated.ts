/**
 * Synthetic beacons: iBeacon and vendor frames (plaintext and encrypted) with a log-distance
 * path-loss RSSI model, Gaussian noise, lost packets, walking devices and devices that come
 * and go. Deterministic for a given seed, so fixtures and benchmarks can be regenerated
 * byte for byte.
 */
import { EventEmitter } from 'eventemitter3'
import type { Advertisement } from '../advertisement.js'
import { RealClock, VirtualClock } from '../clock.js'
import type { CancelTimer, Clock } from '../clock.js'
import { InvalidOptionError } from '../errors.js'
import { gaussianFrom, seededRandom } from '../util/random.js'
import { iBeaconData, vendorServiceData } from './device-frames.js'
import type { DeviceMotion } from './device-frames.js'
import { siteScenario } from './scenario.js'
import { distanceAt, isMoving } from './simulated-device.js'
import type { SimulatedDevice } from './simulated-device.js'
import type { AdvertisementSource, AdvertisementSourceEvents } from './source.js'

export { distanceAt, representableLux } from './simulated-device.js'
export type { SimulatedDevice, SimulatedVendorFrame, Walk } from './simulated-device.js'

/** Options of {@link SimulatedSource}. */
export interface SimulatedSourceOptions {
  /**
   * The devices to simulate. Default: `siteScenario(12, seed)`, the site `beaconkit simulate`
   * shows (iBeacon tags, vendor beacons with sensors, encrypted devices, one walking away,
   * one arriving late, one leaving).
   */
  devices?: SimulatedDevice[]
  /** PRNG seed. Default 1. */
  seed?: number
  /** Run in virtual time (as fast as possible); the source then exposes `clock`. Default false. */
  virtual?: boolean
  /** Virtual mode: clock time of the start. Default 2026-01-01T00:00:00Z. */
  startTime?: number
  /** Real mode: the clock to pace with. Default real time. */
  clock?: Clock
  /** After this long the source emits `end` and stops. Default: runs until stopped. */
  durationMs?: number
  /** Standard deviation of RSSI noise, dB. Default 4. */
  noiseDb?: number
  /** Fraction of packets lost, 0–1. Default 0.1. */
  lossRate?: number
  /** Path-loss exponent (2 = free space). Default 2. */
  pathLossExponent?: number
}

interface DeviceState {
  spec: SimulatedDevice
  next: number
  frame: number
}

function siftDown(heap: DeviceState[], i: number): void {
  for (;;) {
    const l = 2 * i + 1
    const r = l + 1
    let m = i
    if (l < heap.length && heap[l].next < heap[m].next) m = l
    if (r < heap.length && heap[r].next < heap[m].next) m = r
    if (m === i) return
    ;[heap[i], heap[m]] = [heap[m], heap[i]]
    i = m
  }
}

/**
 * A source of simulated advertisements. `advertisements(fromMs, toMs)` yields them directly
 * (for fixtures and benchmarks); `start()` plays them through a clock.
 */
export class SimulatedSource extends EventEmitter<AdvertisementSourceEvents> implements AdvertisementSource {
  /** Present in virtual mode. */
  readonly clock?: VirtualClock
  private readonly opts: Required<Pick<SimulatedSourceOptions, 'noiseDb' | 'lossRate' | 'pathLossExponent'>> &
    SimulatedSourceOptions
  private readonly pace: Clock
  private readonly random: () => number
  private readonly states: DeviceState[]
  private running = false
  private cancel: CancelTimer | undefined
  private origin = 0
  private readonly gaussian: () => number

  /**
   * `new SimulatedSource()` plays the default site in real time until stopped;
   * `new SimulatedSource({ virtual: true, durationMs: 60_000 })` plays a minute of it at once.
   */
  constructor(options: SimulatedSourceOptions = {}) {
    super()
    if (
      typeof options !== 'object' ||
      options === null ||
      (options.devices !== undefined && !Array.isArray(options.devices))
    ) {
      throw new InvalidOptionError(
        'invalid_option',
        'SimulatedSource takes options such as { devices: [...] } (or none, for the default site).',
        { option: 'devices' },
      )
    }
    const check = (ok: boolean, option: string, what: string): void => {
      if (!ok) throw new InvalidOptionError('invalid_option', `${option} ${what}`, { option })
    }
    check(options.noiseDb === undefined || options.noiseDb >= 0, 'noiseDb', 'must be >= 0 dB.')
    check(
      options.lossRate === undefined || (options.lossRate >= 0 && options.lossRate < 1),
      'lossRate',
      'must be in [0, 1).',
    )
    check(options.pathLossExponent === undefined || options.pathLossExponent > 0, 'pathLossExponent', 'must be > 0.')
    check(options.durationMs === undefined || options.durationMs > 0, 'durationMs', 'must be a positive number of ms.')
    const devices = options.devices ?? siteScenario(12, options.seed ?? 1)
    for (const d of devices) {
      check(
        typeof d.address === 'string' && /^[0-9a-f]{2}(:[0-9a-f]{2}){5}$/.test(d.address),
        'devices[].address',
        'must be lower-case aa:bb:cc:dd:ee:ff.',
      )
      check(d.intervalMs === undefined || d.intervalMs >= 20, 'devices[].intervalMs', 'must be >= 20 ms (BLE minimum).')
    }
    this.opts = { noiseDb: 4, lossRate: 0.1, pathLossExponent: 2, ...options }
    this.random = seededRandom(options.seed ?? 1)
    this.gaussian = gaussianFrom(this.random)
    this.states = devices.map((spec) => ({
      spec,
      next: (spec.appearAtMs ?? 0) + this.random() * (spec.intervalMs ?? 500),
      frame: 0,
    }))
    this.pace = options.clock ?? new RealClock()
    if (options.virtual === true) this.clock = new VirtualClock(options.startTime ?? Date.UTC(2026, 0, 1))
  }

  /**
   * Advertisements up to `toMs` (ms after the start, exclusive), in time order, with
   * timestamps `origin + t`. Consumes the PRNG: call it once per source.
   */
  *advertisements(toMs: number, origin = this.opts.startTime ?? Date.UTC(2026, 0, 1)): Generator<Advertisement> {
    // A min-heap on next send time: 10,000 devices must not cost a linear scan per packet.
    const heap = this.states.filter((s) => s.next < toMs).sort((a, b) => a.next - b.next)
    while (heap.length > 0) {
      const best = heap[0]
      const t = Math.round(best.next)
      yield* this.packets(best, t, origin)
      best.next += (best.spec.intervalMs ?? 500) + this.random() * 10
      if (best.spec.leaveAtMs !== undefined && best.next >= best.spec.leaveAtMs) best.next = Infinity
      if (best.next >= toMs) {
        const last = heap.pop() as DeviceState
        if (heap.length === 0) break
        heap[0] = last
      }
      siftDown(heap, 0)
    }
  }

  async start(): Promise<void> {
    if (this.running) return
    this.running = true
    this.origin = this.clock?.now() ?? this.pace.now()
    const end = this.opts.durationMs ?? Infinity
    const gen = this.advertisements(end, this.origin)
    if (this.clock !== undefined) {
      const clock = this.clock
      setImmediate(() => void this.pumpVirtual(gen, clock))
    } else {
      this.scheduleReal(gen, end)
    }
  }

  async stop(): Promise<void> {
    this.running = false
    this.cancel?.()
    this.cancel = undefined
  }

  private async pumpVirtual(gen: Generator<Advertisement>, clock: VirtualClock): Promise<void> {
    let n = 0
    try {
      for (const adv of gen) {
        if (!this.running) return
        clock.advanceTo(adv.timestamp)
        this.emit('advertisement', adv)
        if (++n % 2000 === 0) await new Promise((r) => setImmediate(r))
      }
    } catch (err) {
      // A device description the encoders refuse: report it rather than die silently.
      this.running = false
      this.emit('error', err instanceof Error ? err : new Error(String(err)))
      return
    }
    if (this.running && this.opts.durationMs !== undefined) {
      clock.advanceTo(this.origin + this.opts.durationMs)
      this.running = false
      this.emit('end')
    }
  }

  private scheduleReal(gen: Generator<Advertisement>, end: number): void {
    let pending: IteratorResult<Advertisement>
    try {
      pending = gen.next()
    } catch (err) {
      this.running = false
      this.emit('error', err instanceof Error ? err : new Error(String(err)))
      return
    }
    const step = (): void => {
      try {
        advance()
      } catch (err) {
        this.running = false
        this.emit('error', err instanceof Error ? err : new Error(String(err)))
      }
    }
    const advance = (): void => {
      this.cancel = undefined
      const now = this.pace.now()
      while (this.running && pending.done !== true && pending.value.timestamp <= now) {
        this.emit('advertisement', pending.value)
        pending = gen.next()
      }
      if (!this.running) return
      if (pending.done === true) {
        if (end !== Infinity) {
          this.running = false
          this.emit('end')
        }
        return
      }
      this.cancel = this.pace.setTimeout(step, pending.value.timestamp - now)
    }
    step()
  }

  private rssiAt(spec: SimulatedDevice, t: number): number {
    const d = Math.max(0.05, distanceAt(spec.distance, t))
    const power = spec.measuredPower ?? -59
    const rssi = power - 10 * this.opts.pathLossExponent * Math.log10(d) + this.gaussian() * this.opts.noiseDb
    return Math.max(-127, Math.min(0, Math.round(rssi)))
  }

  private *packets(s: DeviceState, t: number, origin: number): Generator<Advertisement> {
    const spec = s.spec
    if (spec.ibeacon !== undefined && this.random() >= this.opts.lossRate) {
      yield {
        address: spec.address,
        addressType: 'public',
        rssi: this.rssiAt(spec, t),
        timestamp: origin + t,
        connectable: false,
        manufacturerData: iBeaconData({ ...spec, ibeacon: spec.ibeacon }, t),
      }
    }
    const vendor = spec.vendor
    if (vendor === undefined || vendor.length === 0) return
    const frame = vendor[s.frame++ % vendor.length]
    if (this.random() < this.opts.lossRate) return
    // RSSI before the frame: the order of PRNG draws keeps recordings byte for byte what they were.
    const rssi = this.rssiAt(spec, t + 1)
    const serviceData = vendorServiceData(spec, frame, motionAt(spec.distance, t), this.random)
    yield {
      address: spec.address,
      addressType: 'public',
      rssi,
      timestamp: origin + t + 1,
      connectable: false,
      serviceData: [serviceData],
    }
  }
}

/** A walking device's accelerometer counts about two steps a second. */
function motionAt(d: SimulatedDevice['distance'], t: number): DeviceMotion {
  const walk = typeof d === 'number' ? undefined : d
  const steps =
    walk === undefined ? 0 : Math.floor(Math.max(0, Math.min(t, walk.startMs + walk.durationMs) - walk.startMs) / 500)
  return { moving: isMoving(d, t), steps }
}
