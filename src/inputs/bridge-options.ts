/**
 * The options, counters and events of the ForeignBridge (bridge.ts), and the notes it gives the
 * user once: the bridge's vocabulary, kept apart from its workings.
 */
import type { Clock } from '../clock.js'
import type { MqttPublisherOptions } from '../mqtt/publisher-options.js'
import type { Keyring } from '../secure/keyring.js'
import type { IdentityResolver } from '../secure/identity-resolver.js'
import type { ForeignInput } from './foreign.js'
import type { InputFormat } from './format.js'
import type { ForeignRejectReason } from './message.js'
import { zeroSweepStats } from './stale-sweep.js'
import type { StaleSweepStats } from './stale-sweep.js'

/**
 * Options of {@link ForeignBridge}. Give `url`, or `client`: a connection shared with other parts
 * (a fleet's, src/gateway/broker-connection.ts), whose last will is its owner's, not the bridge's
 * status; the bridge still says `online` and `offline` there, and the stale sweep of its next
 * start corrects what a killed bridge left `online`.
 */
export interface ForeignBridgeOptions extends Pick<
  MqttPublisherOptions,
  'url' | 'client' | 'username' | 'password' | 'passwordFile' | 'tls' | 'clientId' | 'reconnect' | 'connectTimeoutMs'
> {
  /** The inputs to listen to (at least one). */
  inputs: readonly ForeignInput[]
  /** beaconkit's topic prefix the nodes publish under (default `beaconkit`). */
  topicPrefix?: string
  /** Broadcast keys: private broadcasts relayed with their bytes decrypt and verify. */
  keyring?: Keyring
  /**
   * Resolves the raw addresses nodes relay to `irk:<name>` (one resolver, one cache, shared by
   * every node of the bridge).
   */
  identities?: IdentityResolver
  /** The site's gateway ids: a node outside them is reported once (`warning`). */
  knownNodes?: ReadonlySet<string>
  /**
   * Gateway ids no foreign node may take: the site's gateways not declared `foreign` (when it
   * declares any). Ids that publish a native status on the broker are refused as well, learnt.
   */
  nativeNodes?: ReadonlySet<string>
  /** Site gateways declared `foreign`: used as nodes even when a native status was seen under the id. */
  foreignNodes?: ReadonlySet<string>
  /**
   * Most foreign nodes at once (default 256); messages of further nodes are skipped and counted,
   * but a site gateway (`knownNodes`) always gets a place (see `idleMs`).
   */
  maxNodes?: number
  /** A node outside the site silent this long gives its place to a new node when the table is full (default 10 min). */
  idleMs?: number
  /** Largest payload parsed, bytes (default 4096; a foreign report is a few hundred). */
  maxPayloadBytes?: number
  /** Most address-only devices a node tracks at once (default 4096); further ones are skipped and counted. */
  maxDevicesPerNode?: number
  /** Each node's gone timeout, as a beaconkit gateway's `--gone` (default 8000 ms). */
  goneTimeoutMs?: number
  /**
   * The bridge's id: its status topic `<p>/inputs/<bridgeId>/status` (its connection's last will)
   * and the `via` of every node's status; a topic level like a gateway id. Default: from
   * `clientId` when given, else `beaconkit-inputs-<host>` — stable across restarts, so a
   * restarted bridge finds the statuses its killed predecessor left `online`. Give two bridges on
   * one broker and prefix different ids.
   */
  bridgeId?: string
  /**
   * After start, how long a node may stay unheard before the stale sweep sets its retained status
   * `offline` when a previous run of this bridge left it `online` (default 30000 ms).
   */
  staleGraceMs?: number
  clock?: Clock
}

/** Counters of a {@link ForeignBridge}. */
export interface ForeignBridgeStats {
  /** Messages received on the inputs' topics. */
  messages: number
  /** Advertisements handed to a node's scanner, by what they carried. */
  advertisements: { raw: number; ibeacon: number; address: number }
  /** Availability messages applied. */
  statuses: number
  /** Valid messages without a sighting (tracker timeouts, sub-reports). */
  ignored: number
  /** Skipped, by reason. */
  rejected: Record<ForeignRejectReason, number>
  /** Payloads over `maxPayloadBytes`, skipped unparsed. */
  oversized: number
  /** Messages of nodes beyond `maxNodes`, skipped. */
  nodesRefused: number
  /** Address-only sightings of new devices beyond `maxDevicesPerNode`, skipped. */
  devicesRefused: number
  /**
   * Messages of nodes refused because their id is a native beaconkit gateway's (seen publishing
   * its status, or reserved by the site): a foreign node never speaks for a native gateway.
   */
  nativeRefused: number
  /** Nodes let go to make room (outside the site: for a site gateway, or silent for `idleMs`). */
  nodesEvicted: number
  /** The stale sweep after start (zeros until it has run; the `swept` event says when). */
  sweep: StaleSweepStats
  /** Nodes now. */
  nodes: number
}

/** Events of a {@link ForeignBridge}. */
export interface ForeignBridgeEvents {
  /** Something to tell the user once: a limitation of a node's format, an unknown node, the node bound reached. */
  warning: [text: string]
  /** A connection problem (retried). */
  error: [error: Error]
  /** The stale sweep after start is over: what it read, skipped and set `offline`. */
  swept: [stats: StaleSweepStats]
}

/** A foreign node refused for a native gateway's id, said once per id. */
export function nativeNodeNote(node: string): string {
  return (
    `foreign node ${node} is refused: a beaconkit gateway uses that id (its status is on the broker, or the site ` +
    'reserves it); rename the node, or declare it "foreign": true in the site if it really is that gateway'
  )
}

/** Counters at zero. */
export function zeroStats(): Omit<ForeignBridgeStats, 'nodes'> {
  return {
    messages: 0,
    advertisements: { raw: 0, ibeacon: 0, address: 0 },
    statuses: 0,
    ignored: 0,
    rejected: { malformed: 0, absurd_rssi: 0, bad_address: 0, bad_node: 0 },
    oversized: 0,
    nodesRefused: 0,
    nativeRefused: 0,
    devicesRefused: 0,
    nodesEvicted: 0,
    sweep: zeroSweepStats(),
  }
}

/** Counters as the bridge shows them: a copy, with the number of nodes now. */
export function copyStats(s: Omit<ForeignBridgeStats, 'nodes'>, nodes: number): ForeignBridgeStats {
  return {
    ...s,
    advertisements: { ...s.advertisements },
    rejected: { ...s.rejected },
    sweep: { ...s.sweep },
    nodes,
  }
}

/** The note when the node table is full, said once. */
export function maxNodesNote(maxNodes: number): string {
  return `more than ${maxNodes} foreign nodes: messages of further nodes are skipped (counted)`
}

/** The note for a node outside the site, said once. */
export function unknownNodeNote(format: InputFormat, name: string): string {
  return (
    `${format.title} ${format.nodeNoun} ${name} is not a gateway of the site: its readings give no room; ` +
    `add "${name}" under "gateways"`
  )
}
