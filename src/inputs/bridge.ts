/**
 * The foreign-input bridge: OpenMQTTGateway, Theengs Gateway and ESPresense nodes become fleet
 * gateways. It listens to their topics on the fleet's broker; each foreign node gets what a
 * beaconkit gateway has — a BeaconScanner (with the fleet's keyring, so a relayed 0x81E7 frame
 * decrypts and verifies as from a local adapter) and an MqttPublisher publishing as gateway
 * `<node>` — so the FleetTracker fuses them with its own smoothing and gone timeout, and there
 * is one fusion path, not two. Every publisher goes through the bridge's one MQTT client.
 *
 * Bounded against hostile input: at most `maxNodes` nodes (beyond: skipped, counted), payloads
 * over `maxPayloadBytes` skipped before parsing, absurd RSSI and malformed JSON skipped and counted.
 *
 * One connection has one last will: the bridge's own status (`<p>/inputs/<bridgeId>/status`,
 * bridge-liveness.ts); each node's status names it with `via`, and a restarted bridge sets
 * `offline` what its killed predecessor left `online` (stale-sweep.ts).
 */
import { EventEmitter } from 'eventemitter3'
import { inspect } from 'node:util'
import { RealClock } from '../clock.js'
import type { Clock } from '../clock.js'
import type { MqttLink } from '../mqtt/connection.js'
import { MqttPublisher } from '../mqtt/publisher.js'
import { defaultClientId, openLink, resolvePublisherOptions } from '../mqtt/publisher-options.js'
import { checkTopicPrefix } from '../mqtt/topics.js'
import { BeaconScanner } from '../scanner/scanner.js'
import { espresenseFilters, espresenseParser } from './espresense.js'
import { addressOnlyNote, nativeNodeNote, unknownNodeNote, zeroStats } from './bridge-options.js'
import { BridgeStatus, resolveBridgeId } from './bridge-liveness.js'
import { checkGraceMs, isSweepTopic, sweepStaleNodes } from './stale-sweep.js'
import type { ForeignBridgeEvents, ForeignBridgeOptions, ForeignBridgeStats } from './bridge-options.js'
import type { ForeignInput, ForeignMessage, ForeignParser } from './foreign.js'
import { NativeGateways } from './native-gateways.js'
import { NodeBeacons } from './node-beacons.js'
import { NodeSource } from './node-source.js'
import { omgFilters, omgParser } from './omg.js'

export type { ForeignBridgeEvents, ForeignBridgeOptions, ForeignBridgeStats } from './bridge-options.js'
export type { StaleSweepStats } from './stale-sweep.js'

interface Route {
  input: ForeignInput
  parse: ForeignParser
  filters: string[]
}

interface ForeignNode {
  /** Clock time of its latest message: the least recently heard node makes room first. */
  heard: number
  /** A gateway of the site: never made room for an unknown node. */
  inSite: boolean
  source: NodeSource
  beacons: NodeBeacons
  publisher: MqttPublisher
}

/**
 * The broker is asked never to send more than this (MQTT 5): a bigger payload is not even
 * received. Well above `maxPayloadBytes`, so an oversized report still arrives and is counted.
 */
const MAX_PACKET_BYTES = 2 * 1024 * 1024

function routeOf(input: ForeignInput): Route {
  return input.format === 'espresense'
    ? { input, parse: espresenseParser(input.base), filters: espresenseFilters(input.base) }
    : { input, parse: omgParser(input.base), filters: omgFilters(input.base) }
}

/** Feeds foreign nodes' reports into the fleet as gateways (see the file comment). */
export class ForeignBridge extends EventEmitter<ForeignBridgeEvents> {
  readonly clock: Clock
  /** The id its nodes' statuses name as `via`, and of its own status `<p>/inputs/<bridgeId>/status`. */
  readonly bridgeId: string
  #status: BridgeStatus
  #graceMs: number
  /** Aborts the stale sweep when the bridge closes. */
  #stopping = new AbortController()
  #options: ReturnType<typeof resolvePublisherOptions>
  #routes: Route[]
  #nodes = new Map<string, ForeignNode>()
  #noted = new Set<string>()
  /** Ids of native gateways: never a foreign node's (native-gateways.ts). */
  #natives: NativeGateways
  #link: MqttLink | undefined
  #closed = false
  #maxNodes: number
  #maxPayloadBytes: number
  #maxDevices: number
  #idleMs: number
  readonly #stats: Omit<ForeignBridgeStats, 'nodes'> = zeroStats()

  // The options without the connection's secrets (a password must never be a property).
  #node: Pick<ForeignBridgeOptions, 'keyring' | 'knownNodes' | 'topicPrefix' | 'goneTimeoutMs'>

  constructor(config: ForeignBridgeOptions) {
    super()
    this.#node = {
      keyring: config.keyring,
      knownNodes: config.knownNodes,
      topicPrefix: config.topicPrefix,
      goneTimeoutMs: config.goneTimeoutMs,
    }
    if (config.inputs.length === 0) throw new TypeError('ForeignBridge needs at least one input')
    this.#options = resolvePublisherOptions({ ...config, gatewayId: 'inputs' })
    this.clock = config.clock ?? new RealClock()
    this.bridgeId = resolveBridgeId(config.bridgeId, config.clientId)
    this.#status = new BridgeStatus(checkTopicPrefix(this.#options.topicPrefix), this.bridgeId, this.clock)
    this.#graceMs = checkGraceMs(config.staleGraceMs)
    const prefix = checkTopicPrefix(this.#options.topicPrefix)
    this.#natives = new NativeGateways(prefix, config.nativeNodes, config.foreignNodes)
    // OMG and Theengs under one base are one set of topics: listen once.
    const seen = new Set<string>()
    this.#routes = config.inputs.map(routeOf).filter((r) => {
      const key = r.filters.join(' ')
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
    this.#maxNodes = config.maxNodes ?? 256
    this.#maxPayloadBytes = config.maxPayloadBytes ?? 4096
    this.#maxDevices = config.maxDevicesPerNode ?? 4096
    this.#idleMs = config.idleMs ?? 600_000
  }

  /** Shows what it listens to, never the connection's options (they hold the password). */
  [inspect.custom](): string {
    return `ForeignBridge { bridgeId: '${this.bridgeId}', inputs: ${JSON.stringify(this.#routes.map((r) => `${r.input.format}:${r.input.base}`))}, nodes: ${this.#nodes.size} }`
  }

  /** What JSON.stringify shows: its id, the inputs and the counters; never credentials. */
  toJSON(): { bridgeId: string; inputs: string[]; stats: ForeignBridgeStats } {
    return {
      bridgeId: this.bridgeId,
      inputs: this.#routes.map((r) => `${r.input.format}:${r.input.base}`),
      stats: this.stats,
    }
  }

  /** Counters (a copy). */
  get stats(): ForeignBridgeStats {
    const s = this.#stats
    return {
      ...s,
      advertisements: { ...s.advertisements },
      rejected: { ...s.rejected },
      sweep: { ...s.sweep },
      nodes: this.#nodes.size,
    }
  }

  /** The foreign nodes publishing as gateways now. */
  nodes(): string[] {
    return [...this.#nodes.keys()]
  }

  /** Connects (the bridge's status the will), says `online` and subscribes on every connection, sweeps once (`swept`); resolves once the client exists. */
  async start(): Promise<void> {
    const o = this.#options
    // The grace runs from start, not from the connection: a node heard since then is alive.
    const graceEnds = Date.now() + this.#graceMs
    const link = await openLink(o, o.clientId ?? defaultClientId('inputs'), this.#status.will(), MAX_PACKET_BYTES)
    if (this.#closed) {
      await link.close()
      return
    }
    this.#link = link
    const filters = this.#routes.flatMap((r) => r.filters)
    // The sweep runs once; again on a later connection only if the connection went during it.
    let sweep: 'due' | 'running' | 'done' = 'due'
    const connected = (): void => {
      // In this order on the wire: the online status is the sweep's marker (stale-sweep.ts), and
      // the inputs' retained availability creates the live nodes before the sweep decides.
      void this.#status.online(link)
      // Foreign nodes publish at QoS 0: a sighting lost is replaced by the next one. The gateway
      // statuses first, so the retained ones tell the native ids before any retained node input.
      link.subscribe([this.#natives.statusFilter, ...filters], 0).catch((e: unknown) => {
        if (!this.#closed) this.emit('error', e instanceof Error ? e : new Error(String(e)))
      })
      if (sweep !== 'due') return
      sweep = 'running'
      void this.sweep(link, graceEnds).then((complete) => (sweep = complete ? 'done' : 'due'))
    }
    link.on('connected', connected)
    link.on('error', (e) => this.emit('error', e))
    // Gateway statuses (the sweep's, and the nodes' own echoes meanwhile) are not foreign input.
    link.on('message', (topic, payload) => {
      if (isSweepTopic(this.#options.topicPrefix, this.#status.topic, topic)) this.#natives.observe(topic, payload)
      else this.onMessage(topic, payload)
    })
    if (link.connected) connected()
  }

  private async sweep(link: MqttLink, graceEnds: number): Promise<boolean> {
    const prefix = this.#options.topicPrefix
    const live = (node: string): boolean => this.#nodes.has(node)
    const result = await sweepStaleNodes(link, {
      prefix,
      bridgeId: this.bridgeId,
      markerTopic: this.#status.topic,
      maxNodes: this.#maxNodes,
      graceEnds,
      clock: this.clock,
      live,
      signal: this.#stopping.signal,
    })
    this.#stats.sweep = result.stats
    if (!this.#closed && result.complete) this.emit('swept', { ...result.stats })
    return result.complete
  }

  /** Handles one message of the inputs' topics; public for benchmarks and tests that feed it directly. */
  onMessage(topic: string, payload: Buffer): void {
    if (this.#closed) return
    this.#stats.messages++
    if (payload.length > this.#maxPayloadBytes) {
      this.#stats.oversized++
      return
    }
    const text = payload.toString('utf8')
    for (const route of this.#routes) {
      const message = route.parse(topic, text)
      if (message.kind === 'ignored') continue
      this.apply(route.input, message)
      return
    }
    this.#stats.ignored++
  }

  private apply(input: ForeignInput, message: Exclude<ForeignMessage, { kind: 'ignored' }>): void {
    if (message.kind === 'rejected') {
      this.#stats.rejected[message.reason]++
      return
    }
    if (message.kind === 'status') {
      this.#stats.statuses++
      if (message.online) this.node(input, message.node)
      else this.retire(message.node)
      return
    }
    const node = this.node(input, message.node)
    if (node === undefined) return
    this.#stats.advertisements[message.carries]++
    // Said once per node: OMG/Theengs without raw data (even for the iBeacons rebuilt from decoded
    // keys: no vendor frames, sensors or private broadcasts); ESPresense for its non-iBeacon ids.
    if (message.carries === 'address' || (message.carries === 'ibeacon' && input.format !== 'espresense'))
      this.noteOnce(`address:${message.node}`, addressOnlyNote(input, message.node))
    const adv = {
      ...message.advertisement,
      rssi: message.advertisement.rssi + (input.rssiOffsetDb ?? 0),
      timestamp: this.clock.now(),
    }
    if (message.carries !== 'address') node.source.push(adv)
    else if (node.beacons.addresses.size < this.#maxDevices) node.beacons.addresses.ingest(adv)
    else this.#stats.devicesRefused++
  }

  private noteOnce(key: string, text: string): void {
    if (this.#noted.has(key)) return
    // Bounded with the nodes: one note per node and kind, and the node table is bounded.
    if (this.#noted.size >= 4 * this.#maxNodes) return
    this.#noted.add(key)
    this.emit('warning', text)
  }

  /** The node, created on first sight (within the bound). */
  private node(input: ForeignInput, name: string): ForeignNode | undefined {
    const known = this.#nodes.get(name)
    if (known !== undefined) {
      known.heard = this.clock.now()
      return known
    }
    // A native gateway's id: the node would speak for that gateway (status, beacons), which the
    // broker's ACL forbids the node's own user. Refused, counted, said once.
    if (this.#natives.has(name)) {
      this.#stats.nativeRefused++
      this.noteOnce(`native:${name}`, nativeNodeNote(name))
      return undefined
    }
    const client = this.#link?.client
    const inSite = this.#node.knownNodes?.has(name) === true
    if (this.#nodes.size >= this.#maxNodes && client !== undefined) this.makeRoom(inSite)
    if (this.#nodes.size >= this.#maxNodes || client === undefined) {
      this.#stats.nodesRefused++
      if (client !== undefined)
        this.noteOnce(
          'max-nodes',
          `more than ${this.#maxNodes} foreign nodes: messages of further nodes are skipped (counted)`,
        )
      return undefined
    }
    if (this.#node.knownNodes !== undefined && !inSite) {
      this.noteOnce(`unknown:${name}`, unknownNodeNote(input, name))
    }
    // Each node's publisher watches the shared client (five listeners): not a leak, a bounded table.
    const listening = client as typeof client & { setMaxListeners?(n: number): unknown; getMaxListeners?(): number }
    if ((listening.getMaxListeners?.() ?? Infinity) < 8 * this.#maxNodes + 32)
      listening.setMaxListeners?.(8 * this.#maxNodes + 32)
    const source = new NodeSource(this.clock)
    const gone = this.#node.goneTimeoutMs
    const scanner = new BeaconScanner({
      source,
      clock: this.clock,
      ...(this.#node.keyring === undefined ? {} : { keys: this.#node.keyring }),
      ...(gone === undefined ? {} : { goneTimeoutMs: gone }),
    })
    const beacons = new NodeBeacons(scanner, gone)
    const publisher = new MqttPublisher({
      client,
      gatewayId: name,
      statusFields: { via: this.bridgeId },
      ...(this.#node.topicPrefix === undefined ? {} : { topicPrefix: this.#node.topicPrefix }),
    })
    publisher.on('error', (e) => this.emit('error', e))
    scanner.on('error', (e) => this.emit('error', e))
    publisher.attach(beacons)
    const node = { heard: this.clock.now(), inSite, source, beacons, publisher }
    this.#nodes.set(name, node)
    // Both subscribe synchronously; their promises settle at once (a push source, a shared client).
    void beacons.start()
    publisher.connect().catch((e: unknown) => this.emit('error', e instanceof Error ? e : new Error(String(e))))
    return node
  }

  /**
   * The table is full: a site gateway takes the place of the least recently heard node outside
   * the site, so fake node names (anyone on the broker can publish some) never lock a real node
   * out; any node takes the place of one outside the site silent for `idleMs`.
   */
  private makeRoom(forSiteNode: boolean): void {
    let oldest: [string, ForeignNode] | undefined
    for (const entry of this.#nodes)
      if (!entry[1].inSite && (oldest === undefined || entry[1].heard < oldest[1].heard)) oldest = entry
    if (oldest === undefined) return
    if (!forSiteNode && this.clock.now() - oldest[1].heard < this.#idleMs) return
    this.#stats.nodesEvicted++
    this.retire(oldest[0])
  }

  /** A node went offline: its gateway says offline too, and its beacons go with it. */
  private retire(name: string): void {
    const node = this.#nodes.get(name)
    if (node === undefined) return
    this.#nodes.delete(name)
    void this.closeNode(node, 5000)
  }

  private async closeNode(node: ForeignNode, timeoutMs: number): Promise<void> {
    await node.beacons.stop()
    await node.publisher.close(timeoutMs).catch(() => undefined)
  }

  /**
   * Says every node offline, stops their scanners, says the bridge offline (a clean disconnect
   * sends no will) and closes the connection; safe to call twice.
   */
  async close(timeoutMs = 5000): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#stopping.abort()
    const nodes = [...this.#nodes.values()]
    this.#nodes.clear()
    await Promise.all(nodes.map((n) => this.closeNode(n, timeoutMs)))
    if (this.#link !== undefined) await this.#status.offline(this.#link, timeoutMs)
    await this.#link?.close()
  }
}
