/**
 * What the tracker does with each message it receives: forget commands, the gateways' beacon
 * states, RSSI batches and statuses into the fused state, retained states for the readers and
 * scale-out. Anything oversized, malformed or out of place is counted and skipped, never thrown:
 * the broker may hold anything anyone published.
 */
import type { Clock } from '../clock.js'
import type { SafeEmitter } from '../range/safe-emitter.js'
import type { Site } from '../positioning/site.js'
import { readForgetCommand } from './forget-command.js'
import { readGatewayMessage, statusState, statusTime } from './gateway-messages.js'
import type { TrackerParts } from './tracker-parts.js'
import type { FleetTrackerEvents } from './tracker-types.js'
import { UnknownGateways } from './unknown-gateways.js'

/** Messages the inbox skipped or took as commands (FleetTrackerStats). */
export interface InboxCounters {
  unparsable: number
  oversized: number
  invalidIds: number
  forgetCommands: number
  invalidForgetCommands: number
  retainedBatches: number
}

/** What the inbox needs of the tracker. */
export interface InboxHost {
  readonly clock: Clock
  readonly topicPrefix: string
  readonly maxPayloadBytes: number
  readonly forgetTopic: string
  readonly site: Site | undefined
  emit: SafeEmitter<FleetTrackerEvents>['emit']
  forget(id: string): void
}

/** Routes the tracker's messages (see the file comment). */
export class TrackerInbox {
  readonly counters: InboxCounters = {
    unparsable: 0,
    oversized: 0,
    invalidIds: 0,
    forgetCommands: 0,
    invalidForgetCommands: 0,
    retainedBatches: 0,
  }
  private readonly unknownGateways: UnknownGateways

  constructor(
    private readonly parts: TrackerParts,
    private readonly host: InboxHost,
  ) {
    this.unknownGateways = new UnknownGateways(host.site)
  }

  /** A new site (FleetTracker.setSite): the gateways it declares are no longer unknown. */
  setSite(site: Site | undefined): void {
    this.unknownGateways.setSite(site)
  }

  /** One message, `retained` when the broker kept it. */
  onMessage(topic: string, payload: Buffer, retained = false): void {
    const { parts, host } = this
    // Checked before anything is parsed: the broker may hold anything anyone published.
    if (payload.length > host.maxPayloadBytes) {
      this.counters.oversized++
      return
    }
    if (topic === host.forgetTopic) {
      // A command is sent once; a retained one would forget the beacon again on every connection.
      const id = retained ? undefined : readForgetCommand(payload)
      if (id === undefined) this.counters.invalidForgetCommands++
      else {
        this.counters.forgetCommands++
        host.forget(id)
      }
      return
    }
    // The gateways' own beacon states: names' serial numbers and the fused values.
    if (parts.facts.onMessage(host.topicPrefix, topic, payload, host.clock.now())) return
    const m = readGatewayMessage(`${host.topicPrefix}/gateways/`, topic, payload, parts.scaleOut !== undefined)
    if (m === 'unparsable') this.counters.unparsable++
    if (m === 'invalid_id') this.counters.invalidIds++
    if (typeof m === 'string') {
      if (m === 'ignore' && !parts.reader.onMessage(topic, payload)) parts.scaleOut?.onMessage(topic, payload)
      return
    }
    const now = host.clock.now()
    if (m.kind === 'rssi') {
      // Never retained by a gateway: a retained one is an earlier run's, its readings and stamp stale.
      if (retained) this.counters.retainedBatches++
      // Only a batch the fleet took says a gateway is there (not one it refused: malformed, clock).
      else if (parts.state.ingest(m.body, now, m.gateway) && this.unknownGateways.firstSight(m.gateway)) {
        host.emit('unknownGateway', { gateway: m.gateway, time: now })
      }
      return
    }
    const state = statusState(m.body)
    if (state === undefined) this.counters.unparsable++
    else if (parts.state.gatewayStatus(m.gateway, state, now, statusTime(m.body))) {
      host.emit('gateway', { gateway: m.gateway, state, time: now })
    }
  }
}
