/**
 * The one connection of a gateway or a fleet to its broker (a shared-connection.ts connection):
 * the root opens it before the parts that use it and ends it after them, last, once each has
 * flushed and said `offline` on it. `--client-id` names it. One connection has one last will,
 * so the root says whose status it is: a gateway's (its publisher's `<p>/gateways/<gw>/status`),
 * a fleet's (its tracker's `<p>/fleet/status`; the foreign-input bridge and the map's details
 * ride along, the bridge saying `offline` itself when it closes).
 */

import { defaultClientId, resolvePublisherOptions } from '../mqtt/publisher-options.js'
import { openLink } from '../mqtt/link-secrets.js'
import type { LinkSettings } from '../mqtt/link-settings.js'
import { SharedConnection } from '../mqtt/shared-connection.js'
import { brokerSettings } from './settings/mqtt.js'
import type { MqttSettings } from './settings/mqtt.js'
import { keptPart } from './part.js'
import type { Part } from './part.js'

/** Whose connection it is: `name` in the checks' messages and the default client id. */
export interface ConnectionOwner {
  name: string
  /** The last will (retained, QoS 1). */
  will: NonNullable<LinkSettings['will']>
  /** MQTT 5: the largest packet the parts on it accept (the largest any of them asks for). */
  maxPacketBytes?: number
}

/**
 * Opens the connection (it connects, and reconnects, on its own): `url` the broker (the embedded
 * one's when there is one), the credentials and TLS from `flags`.
 */
export async function openBrokerConnection(
  url: string,
  flags: MqttSettings,
  owner: ConnectionOwner,
): Promise<SharedConnection> {
  const options = resolvePublisherOptions({ url, gatewayId: owner.name, ...brokerSettings(flags) })
  const link = await openLink(options, flags.clientId ?? defaultClientId(owner.name), owner.will, owner.maxPacketBytes)
  return new SharedConnection(link, url)
}

/**
 * The part that holds the connection in `running.connection`: `open` in its start, the
 * connection ended at its stop (a part started before the parts that use it is stopped after).
 */
export function brokerConnectionPart<Context>(
  running: { connection?: SharedConnection },
  open: () => Promise<SharedConnection>,
): Part<Context> {
  return keptPart('connection', running, 'connection', open, (connection) => connection.close())
}
