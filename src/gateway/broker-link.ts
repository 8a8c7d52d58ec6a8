/**
 * The one function that opens a connection of the process to its broker for a command that
 * talks to the broker itself rather than through a publisher or a tracker (`webhook --mqtt`,
 * `survey`, `fleet forget`): the broker settings come from the run's configuration, checked the
 * way the publisher checks them, and the password is read from its file here.
 */

import type { MqttLink } from '../mqtt/connection.js'
import { resolvePublisherOptions } from '../mqtt/publisher-options.js'
import { openLink } from '../mqtt/link-secrets.js'

/** The broker settings such a command uses (these commands take no TLS files). */
export interface BrokerLinkSettings {
  url: string
  /** Checked as a topic prefix when given. */
  topicPrefix?: string
  username?: string
  passwordFile?: string
}

/**
 * Opens the link (it connects, and reconnects, on its own); `gatewayId` names the command in the
 * checks' messages, `clientId` is the MQTT client id.
 */
export async function openBrokerLink(
  broker: BrokerLinkSettings,
  who: { gatewayId: string; clientId: string },
): Promise<MqttLink> {
  const options = resolvePublisherOptions({
    url: broker.url,
    gatewayId: who.gatewayId,
    ...(broker.topicPrefix === undefined ? {} : { topicPrefix: broker.topicPrefix }),
    ...(broker.username === undefined ? {} : { username: broker.username }),
    ...(broker.passwordFile === undefined ? {} : { passwordFile: broker.passwordFile }),
  })
  return openLink(options, who.clientId, undefined)
}
