/**
 * One adapter inside a {@link CombinedSource}: its source, where it stands, and the translation
 * of its events into the combined source's (advertisements tagged with the adapter, errors and
 * warnings named after it).
 */
import type { Advertisement } from '../advertisement.js'
import type { CancelTimer } from '../clock.js'
import { AdapterError } from '../errors.js'
import type { AdapterStatus, AdapterWarning } from './combined-options.js'
import type { AdapterState, AdvertisementSource } from './source.js'

/** When no adapter is on, the combined state is the first of these that some adapter is in. */
const STATE_ORDER: readonly AdapterState[] = ['resetting', 'poweredOff', 'unauthorized', 'unsupported', 'unknown']

/** An unknown rejection reason as an Error. */
export function asError(reason: unknown): Error {
  return reason instanceof Error ? reason : new Error(String(reason))
}

/** Where a member's translated events go. */
export interface MemberListener {
  advertisement(adv: Advertisement): void
  /** The member's state changed (already stored); `was` is the one before. */
  stateChanged(member: Member, was: AdapterState | undefined): void
  error(error: AdapterError): void
  warning(warning: AdapterWarning): void
  ended(member: Member): void
}

/** One adapter of a combined source. */
export class Member {
  status: AdapterStatus['status'] = 'stopped'
  state: AdapterState | undefined = undefined
  cancelRetry: CancelTimer | undefined = undefined
  retryDelay = 0
  private detach: (() => void) | undefined = undefined

  constructor(
    readonly name: string,
    readonly source: AdvertisementSource,
  ) {}

  /** Listens to the source's events, translated, until {@link Member.release}. */
  attach(to: MemberListener): void {
    const src = this.source
    const name = this.name
    // A copy: the source's object may be shared with its other listeners.
    const onAdv = (adv: Advertisement): void => {
      to.advertisement(
        typeof adv === 'object' && adv !== null && adv.adapter === undefined ? { ...adv, adapter: name } : adv,
      )
    }
    const onState = (state: AdapterState): void => {
      const was = this.state
      this.state = state
      to.stateChanged(this, was)
    }
    const onError = (error: Error): void => {
      to.error(
        new AdapterError('adapter_failed', `${name}: ${asError(error).message}`, { adapter: name, cause: error }),
      )
    }
    const onWarning = (w: string | { code?: unknown; message?: unknown }): void => {
      if (typeof w === 'string') to.warning({ code: 'source_warning', message: `${name}: ${w}`, adapter: name })
      else if (typeof w === 'object' && w !== null) {
        const line = (w as { line?: unknown }).line
        to.warning({
          code: typeof w.code === 'string' ? w.code : 'source_warning',
          message: `${name}: ${String(w.message)}`,
          adapter: name,
          ...(typeof line === 'number' ? { line } : {}),
        })
      }
    }
    const onEnd = (): void => {
      this.status = 'ended'
      to.ended(this)
    }
    src.on('advertisement', onAdv)
    src.on('state', onState)
    src.on('error', onError)
    // Replays report malformed lines as structured warnings; the interface types them as strings.
    src.on('warning', onWarning as (w: string) => void)
    src.on('end', onEnd)
    this.detach = () => {
      src.off('advertisement', onAdv)
      src.off('state', onState)
      src.off('error', onError)
      src.off('warning', onWarning as (w: string) => void)
      src.off('end', onEnd)
    }
  }

  /** Stops listening to the source; safe to call when not attached. */
  release(): void {
    this.detach?.()
    this.detach = undefined
  }
}

/** The combined state: `poweredOn` while any adapter is, else the first of STATE_ORDER some adapter is in. */
export function combinedStateOf(members: readonly Member[]): AdapterState | undefined {
  if (members.some((m) => m.state === 'poweredOn')) return 'poweredOn'
  return STATE_ORDER.find((s) => members.some((m) => m.state === s))
}

/** The adapters scanning now (running, and on or silent about their state), for messages. */
export function workingAdapters(members: readonly Member[]): string {
  const on = members.filter((m) => m.status === 'running' && (m.state === undefined || m.state === 'poweredOn'))
  return on.length === 0 ? 'no adapter on at the moment' : on.map((m) => m.name).join(', ')
}
