/**
 * One foreign node as a fleet gateway: a push source, a BeaconScanner over it (with the fleet's
 * keyring, so a relayed 0x81E7 frame decrypts and verifies as from a local adapter), its
 * address-only devices beside it, and an MqttPublisher publishing as gateway `<node>` through
 * the bridge's one client. Built when the bridge first hears the node, closed when it goes.
 */
import type { Clock } from '../clock.js'
import type { MqttClientLike } from '../mqtt/client.js'
import { MqttPublisher } from '../mqtt/publisher.js'
import { BeaconScanner } from '../scanner/scanner.js'
import type { Keyring } from '../secure/keyring.js'
import type { IdentityResolver } from '../secure/identity-resolver.js'
import { NodeBeacons } from './node-beacons.js'
import { NodeSource } from './node-source.js'

/** A node the bridge publishes as a gateway. */
export interface ForeignNode {
  /** Clock time of its latest message: the least recently heard node makes room first. */
  heard: number
  /** A gateway of the site: never made room for an unknown node. */
  inSite: boolean
  source: NodeSource
  beacons: NodeBeacons
  publisher: MqttPublisher
}

/** What every node of one bridge shares. */
export interface ForeignNodeSettings {
  clock: Clock
  /** The bridge's id: the `via` of the node's status. */
  bridgeId: string
  keyring?: Keyring
  /** The bridge's one resolver of private addresses (its cache is shared by every node). */
  identities?: IdentityResolver
  topicPrefix?: string
  goneTimeoutMs?: number
  /** The bridge's bound on nodes: each node's publisher listens to the shared client. */
  maxNodes: number
  /** Errors of the node's scanner and publisher. */
  onError(error: Error): void
}

/** Builds and starts the node `name`, publishing through `client`. */
export function openForeignNode(
  client: MqttClientLike,
  name: string,
  inSite: boolean,
  s: ForeignNodeSettings,
): ForeignNode {
  // Each node's publisher watches the shared client (five listeners): not a leak, a bounded table.
  const listening = client as typeof client & { setMaxListeners?(n: number): unknown; getMaxListeners?(): number }
  if ((listening.getMaxListeners?.() ?? Infinity) < 8 * s.maxNodes + 32)
    listening.setMaxListeners?.(8 * s.maxNodes + 32)
  const source = new NodeSource(s.clock)
  const gone = s.goneTimeoutMs
  const scanner = new BeaconScanner({
    source,
    clock: s.clock,
    ...(s.keyring === undefined ? {} : { keys: s.keyring }),
    ...(s.identities === undefined ? {} : { identities: s.identities }),
    ...(gone === undefined ? {} : { goneTimeoutMs: gone }),
  })
  const beacons = new NodeBeacons(scanner, gone)
  const publisher = new MqttPublisher({
    client,
    gatewayId: name,
    statusFields: { via: s.bridgeId },
    ...(s.topicPrefix === undefined ? {} : { topicPrefix: s.topicPrefix }),
  })
  publisher.on('error', (e) => s.onError(e))
  scanner.on('error', (e) => s.onError(e))
  publisher.attach(beacons)
  // Both subscribe synchronously; their promises settle at once (a push source, a shared client).
  void beacons.start()
  publisher.connect().catch((e: unknown) => s.onError(e instanceof Error ? e : new Error(String(e))))
  return { heard: s.clock.now(), inSite, source, beacons, publisher }
}

/** Stops the node's scanner and says it offline (the publisher's clean close). */
export async function closeForeignNode(node: ForeignNode, timeoutMs: number): Promise<void> {
  await node.beacons.stop()
  await node.publisher.close(timeoutMs).catch(() => undefined)
}

/**
 * The node to let go when the table is full, or undefined: a site gateway takes the place of the
 * least recently heard node outside the site, so fake node names (anyone on the broker can
 * publish some) never lock a real node out; any node takes the place of one outside the site
 * not heard since `idleSince` (now − `idleMs`).
 */
export function nodeToEvict(
  nodes: ReadonlyMap<string, Pick<ForeignNode, 'heard' | 'inSite'>>,
  forSiteNode: boolean,
  idleSince: number,
): string | undefined {
  let oldest: [string, Pick<ForeignNode, 'heard' | 'inSite'>] | undefined
  for (const entry of nodes)
    if (!entry[1].inSite && (oldest === undefined || entry[1].heard < oldest[1].heard)) oldest = entry
  if (oldest === undefined) return undefined
  return forSiteNode || oldest[1].heard <= idleSince ? oldest[0] : undefined
}
