/**
 * How a message the broker will never take is recognised and reported: an MQTT 5 PUBACK with a
 * failure reason code, or a message that was the oldest unacknowledged one each time the
 * connection dropped (a poison message: Mosquitto closes the connection on a packet it cannot
 * take, and mqtt.js resends the unacknowledged messages first on every reconnect, so it would
 * loop for ever; inflight.ts counts the strikes).
 */

import { MqttError } from '../errors.js'

/**
 * Why a message was given up as one the broker will never take: its topic is not a valid
 * publish topic (`invalid_topic`, never sent), an MQTT 5 PUBACK said no (`broker_refused`:
 * reason code ≥ 0x80, e.g. 0x87 not authorized by an ACL), or the connection dropped while it
 * was the oldest unacknowledged message {@link POISON_STRIKES} times in a row (`poison`).
 */
export type MqttRefusedReason = 'invalid_topic' | 'broker_refused' | 'poison'

/**
 * Connection losses in a row with the same message oldest in flight before it is given up as
 * poison. A healthy message survives a flapping link: it is acknowledged after the reconnect.
 */
export const POISON_STRIKES = 3

/**
 * The MQTT 5 reason code of a refused PUBACK (≥ 0x80), or undefined for other errors (a closed
 * connection: retried).
 */
export function refusalCode(error: Error): number | undefined {
  const code = (error as { code?: unknown }).code
  return typeof code === 'number' && code >= 0x80 && code <= 0xff ? code : undefined
}

const WHY: Record<MqttRefusedReason, string> = {
  invalid_topic: 'its topic is not a valid MQTT publish topic (a wildcard, a control character or too long)',
  broker_refused: 'the broker refused it (MQTT 5 PUBACK reason code; an ACL?)',
  poison: `the broker closed the connection each time it was sent (${POISON_STRIKES} times)`,
}

/**
 * The warning for the first message refused for `reason` (later ones are only counted): what
 * happened and what to check. Never the topic or payload, which may be hostile.
 */
export function refusedError(reason: MqttRefusedReason, reasonCode?: number): MqttError {
  const code = reasonCode === undefined ? '' : ` (reason code 0x${reasonCode.toString(16)})`
  return new MqttError(
    'publish_refused',
    `an MQTT message was dropped: ${WHY[reason]}${code}; later ones are counted in stats; ` +
      "check the broker's ACL and the ids published",
  )
}
