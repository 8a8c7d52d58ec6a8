/**
 * The foreign-input bridge: the nodes of foreign gateway firmware (the formats of the registry,
 * formats.ts: OpenMQTTGateway, Theengs Gateway, ESPresense) become fleet gateways. It listens to
 * their topics on the fleet's broker and knows no format by name: each input's format gives its
 * filters, its parser and its notes. Each foreign node gets what a beaconkit gateway has — a
 * BeaconScanner and an MqttPublisher publishing as gateway `<node>` (foreign-node.ts) — so the
 * FleetTracker fuses them with its own smoothing and gone timeout, and there is one fusion path,
 * not two. Every publisher goes through the bridge's one MQTT client.
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
import { defaultClientId, resolvePublisherOptions } from '../mqtt/publisher-options.js'
import { openLink } from '../mqtt/link-secrets.js'
import { checkTopicPrefix } from '../mqtt/topics.js'
import { copyStats, maxNodesNote, nativeNodeNote, unknownNodeNote, zeroStats } from './bridge-options.js'
import { BridgeStatus, resolveBridgeId } from './bridge-liveness.js'
import { checkGraceMs, isSweepTopic, sweepStaleNodes } from './stale-sweep.js'
import type { ForeignBridgeEvents, ForeignBridgeOptions, ForeignBridgeStats } from './bridge-options.js'
import { closeForeignNode, nodeToEvict, openForeignNode } from './foreign-node.js'
import type { ForeignNode, ForeignNodeSettings } from './foreign-node.js'
import type { ForeignMessage } from './message.js'
import type { NodeSource } from './node-source.js'
import { NativeGateways } from './native-gateways.js'
import { routeNames, routesOf } from './routes.js'
import type { Route } from './routes.js'

/**
 * The broker is asked never to send more than this (MQTT 5): a bigger payload is not even
 * received. Well above `maxPayloadBytes`, so an oversized report still arrives and is counted.
 */
const MAX_PACKET_BYTES = 2 * 1024 * 1024

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
  #knownNodes: ReadonlySet<string> | undefined
  #node: ForeignNodeSettings

  constructor(config: ForeignBridgeOptions) {
    super()
    // No MQTT input is a bridge for direct nodes only (ESPHome proxies: directNode).
    this.#options = resolvePublisherOptions({ ...config, gatewayId: 'inputs' })
    this.clock = config.clock ?? new RealClock()
    this.bridgeId = resolveBridgeId(config.bridgeId, config.clientId)
    this.#knownNodes = config.knownNodes
    this.#node = {
      clock: this.clock,
      bridgeId: this.bridgeId,
      ...(config.keyring === undefined ? {} : { keyring: config.keyring }),
      ...(config.identities === undefined ? {} : { identities: config.identities }),
      ...(config.topicPrefix === undefined ? {} : { topicPrefix: config.topicPrefix }),
      ...(config.goneTimeoutMs === undefined ? {} : { goneTimeoutMs: config.goneTimeoutMs }),
      maxNodes: config.maxNodes ?? 256,
      onError: (e) => this.emit('error', e),
    }
    this.#status = new BridgeStatus(checkTopicPrefix(this.#options.topicPrefix), this.bridgeId, this.clock)
    this.#graceMs = checkGraceMs(config.staleGraceMs)
    const prefix = checkTopicPrefix(this.#options.topicPrefix)
    this.#natives = new NativeGateways(prefix, config.nativeNodes, config.foreignNodes)
    this.#routes = routesOf(config.inputs)
    this.#maxNodes = this.#node.maxNodes
    this.#maxPayloadBytes = config.maxPayloadBytes ?? 4096
    this.#maxDevices = config.maxDevicesPerNode ?? 4096
    this.#idleMs = config.idleMs ?? 600_000
  }

  /** Shows what it listens to, never the connection's options (they hold the password). */
  [inspect.custom](): string {
    const inputs = JSON.stringify(routeNames(this.#routes))
    return `ForeignBridge { bridgeId: '${this.bridgeId}', inputs: ${inputs}, nodes: ${this.#nodes.size} }`
  }

  /** What JSON.stringify shows: its id, the inputs and the counters; never credentials. */
  toJSON(): { bridgeId: string; inputs: string[]; stats: ForeignBridgeStats } {
    return {
      bridgeId: this.bridgeId,
      inputs: routeNames(this.#routes),
      stats: this.stats,
    }
  }

  /** Counters (a copy). */
  get stats(): ForeignBridgeStats {
    return copyStats(this.#stats, this.#nodes.size)
  }

  /** The foreign nodes publishing as gateways now. */
  nodes(): string[] {
    return [...this.#nodes.keys()]
  }

  /**
   * Connects (the bridge's status the will), says `online` and subscribes on every connection,
   * sweeps once (`swept`); resolves once the client exists.
   */
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
      this.apply(route, message)
      return
    }
    this.#stats.ignored++
  }

  private apply(route: Route, message: Exclude<ForeignMessage, { kind: 'ignored' }>): void {
    if (message.kind === 'rejected') {
      this.#stats.rejected[message.reason]++
      return
    }
    if (message.kind === 'status') {
      this.#stats.statuses++
      if (message.online) this.node(route, message.node)
      else this.retire(message.node)
      return
    }
    const node = this.node(route, message.node)
    if (node === undefined) return
    this.#stats.advertisements[message.carries]++
    // Said once per node, when the format says what a sighting without bytes lacks.
    if (message.carries !== 'raw') {
      const note = route.format.limitNote(message.node, message.carries)
      if (note !== undefined) this.noteOnce(`address:${message.node}`, note)
    }
    const adv = {
      ...message.advertisement,
      rssi: message.advertisement.rssi + (route.input.rssiOffsetDb ?? 0),
      timestamp: this.clock.now(),
    }
    // An address a key of the fleet's IRK file resolves is a phone or watch the user named: through the
    // node's scanner (its resolver names it irk:<name>; the answer is cached, so it is worked out once).
    if (message.carries !== 'address' || this.#node.identities?.resolve(adv.address, adv.addressType) !== undefined)
      node.source.push(adv)
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
  private node(route: Route, name: string): ForeignNode | undefined {
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
    const inSite = this.#knownNodes?.has(name) === true
    const node = this.admit(name, inSite)
    if (node !== undefined && this.#knownNodes !== undefined && !inSite)
      this.noteOnce(`unknown:${name}`, unknownNodeNote(route.format, name))
    return node
  }

  /** Opens node `name` within the bound (making room by the rule), or undefined: refused, counted, said once. */
  private admit(name: string, inSite: boolean): ForeignNode | undefined {
    const client = this.#link?.client
    if (this.#nodes.size >= this.#maxNodes && client !== undefined) this.makeRoom(inSite)
    if (this.#nodes.size >= this.#maxNodes || client === undefined) {
      this.#stats.nodesRefused++
      if (client !== undefined) this.noteOnce('max-nodes', maxNodesNote(this.#maxNodes))
      return undefined
    }
    const node = openForeignNode(client, name, inSite, this.#node)
    this.#nodes.set(name, node)
    return node
  }

  /**
   * A new site (an edited site file): its gateways are the known nodes, and the ids it reserves
   * or declares foreign decide which names a node may take from now on (nodes bridged keep theirs).
   */
  setSiteNodes(nodes: Pick<ForeignBridgeOptions, 'knownNodes' | 'nativeNodes' | 'foreignNodes'>): void {
    this.#knownNodes = nodes.knownNodes
    this.#natives.setSite(nodes.nativeNodes, nodes.foreignNodes)
  }

  /** Whether `id` is a native beaconkit gateway's (seen on the broker or reserved by the site): no node may take it. */
  isNative(id: string): boolean {
    return this.#natives.has(id)
  }

  /**
   * A node fed directly, not from the broker (an ESPHome proxy, #38): opened at once as gateway
   * `name` (its status `online`), within the bound; `close()` says it offline. Its liveness is its
   * connection, so it is never evicted for silence. Undefined when refused: a native id, a name
   * already a node, the table full, or the bridge not started or closed.
   */
  directNode(name: string): { source: NodeSource; close(): Promise<void> } | undefined {
    if (this.#closed || this.#nodes.has(name) || this.#natives.has(name)) return undefined
    // inSite: never the one to make room (nodeToEvict); the connection decides when it goes.
    const node = this.admit(name, true)
    if (node === undefined) return undefined
    const close = async (): Promise<void> => {
      if (this.#nodes.get(name) !== node) return
      this.#nodes.delete(name)
      await closeForeignNode(node, 5000)
    }
    return { source: node.source, close }
  }

  /** The table is full: lets a node go when the rule allows (foreign-node.ts nodeToEvict). */
  private makeRoom(forSiteNode: boolean): void {
    const name = nodeToEvict(this.#nodes, forSiteNode, this.clock.now() - this.#idleMs)
    if (name === undefined) return
    this.#stats.nodesEvicted++
    this.retire(name)
  }

  /** A node went offline: its gateway says offline too, and its beacons go with it. */
  private retire(name: string): void {
    const node = this.#nodes.get(name)
    if (node === undefined) return
    this.#nodes.delete(name)
    void closeForeignNode(node, 5000)
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
    await Promise.all(nodes.map((n) => closeForeignNode(n, timeoutMs)))
    if (this.#link !== undefined) await this.#status.offline(this.#link, timeoutMs)
    await this.#link?.close()
  }
}
