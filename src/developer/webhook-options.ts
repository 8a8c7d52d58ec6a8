/**
 * What a webhook receiver is created with and what it counts (platform docs 6.1–6.4), apart
 * from the receiver's request handling.
 */
import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http'
import { InvalidOptionError } from '../errors.js'
import type { WebhookError, WebhookErrorCode } from '../errors.js'
import type { DataMessage, TaskEvent } from './webhook-message.js'

/** What a `verify` hook gets: the request exactly as received. */
export interface WebhookRequest {
  method: string
  url: string
  headers: IncomingHttpHeaders
  /** The raw body, as the signature covers it. */
  body: string
}

/** Options of {@link createWebhookHandler}. */
export interface WebhookHandlerOptions {
  /** Takes a sensor data push (6.2). Resolve once it is safely kept: only then is the push acknowledged. */
  onData?: (message: DataMessage) => void | Promise<void>
  /** Takes a task event (6.3), as `onData`. */
  onTaskEvent?: (event: TaskEvent) => void | Promise<void>
  /**
   * Checks a push's signature (platform docs 5.3; the platform's scheme is not published: plug yours in).
   * False, or a throw, refuses the push with 401.
   */
  verify?: (request: WebhookRequest) => boolean | Promise<boolean>
  /**
   * Safe mode (6.1): turns `encryptData` into the message (its JSON text, or the object). The
   * cipher is not published: plug yours in. Without it an encrypted push is refused (501),
   * never passed on as if it were plain text.
   */
  decrypt?: (
    encryptData: string,
    envelope: Record<string, unknown>,
  ) => string | Record<string, unknown> | Promise<string | Record<string, unknown>>
  /** Told about every refused push (the platform is answered non-2xx and pushes again, 6.4). */
  onError?: (error: WebhookError) => void
  /** Largest body accepted; a longer one is answered 413. Default 1 MiB. */
  maxBodyBytes?: number
  /**
   * How many recent msgIds are remembered to drop re-pushes. Default 10,000. Each is kept as a
   * 43-character digest whatever the length of its appId and msgId, so memory stays bounded.
   */
  dedupWindow?: number
  /**
   * How long `onData` / `onTaskEvent` may take; beyond it the push is answered 503 (the platform
   * pushes it again) while the handler's promise is left to finish. Default 10000 ms.
   */
  handlerTimeoutMs?: number
}

/** Default of `handlerTimeoutMs`. */
export const DEFAULT_HANDLER_TIMEOUT_MS = 10_000

/** Counters of a receiver. */
export interface WebhookStats {
  /** Requests received. */
  requests: number
  /** Sensor data pushes taken by `onData`. */
  data: number
  /** Task events taken by `onTaskEvent`. */
  events: number
  /** Re-pushes of a message already taken (answered 2xx, handler not called again). */
  duplicates: number
  /** Valid messages with no handler of their type (acknowledged, dropped). */
  unhandled: number
  /** Refused pushes by reason. */
  refused: Record<WebhookErrorCode, number>
}

/** A request listener for `node:http` (or Express, Fastify's raw handler, …) with counters. */
export interface WebhookHandler {
  (req: IncomingMessage, res: ServerResponse): void
  /** A snapshot of the counters. */
  readonly stats: WebhookStats
}

/** A positive whole number option, or its default. @throws InvalidOptionError */
export function positiveInt(value: number | undefined, fallback: number, option: string): number {
  if (value === undefined) return fallback
  if (!Number.isSafeInteger(value) || value < 1)
    throw new InvalidOptionError('invalid_option', `${option} must be a positive whole number`, { option })
  return value
}

/** Counters of a receiver that has taken nothing yet. */
export function emptyWebhookStats(): WebhookStats {
  return {
    requests: 0,
    data: 0,
    events: 0,
    duplicates: 0,
    unhandled: 0,
    refused: {
      malformed: 0,
      too_large: 0,
      unverified: 0,
      encrypted: 0,
      decrypt_failed: 0,
      handler_failed: 0,
      method_not_allowed: 0,
      handler_timeout: 0,
      unavailable: 0,
    },
  }
}
