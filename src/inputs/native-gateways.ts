/**
 * Which gateway ids belong to native beaconkit gateways, so that no foreign node takes one
 * (docs/fleet.md "Mixed fleets"). Foreign node ids share the gateway namespace: without this,
 * anyone allowed to write a foreign input (the `esp32` user of the shipped ACL) could name a node
 * `kitchen-pi` and have the bridge publish that gateway's status and beacons, which the ACL
 * forbids that user to write directly. An id is native when a gateway status without `via` (a
 * beaconkit gateway's own, not a bridge's) was seen under it, or when the site reserves it (a
 * site gateway not declared `foreign`, once the site declares any).
 */

import { anyGatewayStatusTopic, GATEWAY_ID } from '../mqtt/topics.js'

/** Native ids remembered at most (beyond: no more learnt; the site's reserved ids always hold). */
export const MAX_NATIVE_IDS = 4096

/** A status payload larger than this is not a gateway's (they are well under 1 KiB). */
const MAX_STATUS_BYTES = 4096

/** True for a beaconkit gateway's own status: `{"state": "online" | "offline", …}` without `via`. */
function isNativeStatus(payload: Buffer): boolean {
  if (payload.length === 0 || payload.length > MAX_STATUS_BYTES) return false
  let body: unknown
  try {
    body = JSON.parse(payload.toString('utf8'))
  } catch {
    return false
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return false
  const o = body as Record<string, unknown>
  return (o.state === 'online' || o.state === 'offline') && o.via === undefined
}

/** The native gateway ids of one topic prefix: learnt from their statuses, or reserved by the site. */
export class NativeGateways {
  private readonly seen = new Set<string>()
  private readonly filter: string[]
  private readonly nodeLevel: number

  constructor(
    prefix: string,
    /** Site gateways not declared foreign (when the site declares any): never a foreign node. */
    private reserved: ReadonlySet<string> = new Set(),
    /** Site gateways declared foreign: the site's word outweighs a status seen on the broker. */
    private declaredForeign: ReadonlySet<string> = new Set(),
  ) {
    this.filter = anyGatewayStatusTopic(prefix).split('/')
    this.nodeLevel = this.filter.indexOf('+')
  }

  /** A new site (an edited site file): the ids it reserves and those it declares foreign, from now on. */
  setSite(reserved: ReadonlySet<string> = new Set(), declaredForeign: ReadonlySet<string> = new Set()): void {
    this.reserved = reserved
    this.declaredForeign = declaredForeign
  }

  /** `<p>/gateways/+/status`: what to subscribe to, before the inputs (retained statuses arrive first). */
  get statusFilter(): string {
    return this.filter.join('/')
  }

  /** A message on a gateway status topic: remembers its gateway when the status is a native one. */
  observe(topic: string, payload: Buffer): void {
    const levels = topic.split('/')
    if (levels.length !== this.filter.length || !this.filter.every((l, i) => l === '+' || l === levels[i])) return
    const id = levels[this.nodeLevel]
    if (this.seen.has(id) || this.seen.size >= MAX_NATIVE_IDS || !GATEWAY_ID.test(id)) return
    if (!isNativeStatus(payload)) return
    this.seen.add(id)
  }

  /** Whether a foreign node may not use `id`: a native gateway's (seen or reserved), unless the site says foreign. */
  has(id: string): boolean {
    if (this.declaredForeign.has(id)) return false
    return this.reserved.has(id) || this.seen.has(id)
  }
}
