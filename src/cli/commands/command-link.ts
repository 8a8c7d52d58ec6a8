/**
 * The broker connection of a one-shot fleet command (`fleet forget`, `fleet teach`): opened from
 * `--mqtt` and its credentials, its connection problems said as plain warning lines (the command
 * ends within seconds), and a bounded wait for it or for the broker's acknowledgements.
 */

import { MqttError } from '../../errors.js'
import { openBrokerLink } from '../../gateway/broker-link.js'
import { connectionConditions } from '../../gateway/connection-conditions.js'
import { textLogger } from '../../log/logger.js'
import type { MqttLink } from '../../mqtt/connection.js'
import { defaultClientId } from '../../mqtt/publisher-options.js'
import type { MqttFlags } from '../command-line.js'

/** A command's connection; `close()` ends it and its warnings. */
export interface CommandLink {
  readonly link: MqttLink
  close(): Promise<void>
}

/** Opens the connection of `fleet <name>` (client id `--client-id`, else a unique `fleet-<name>` one). */
export async function openCommandLink(
  m: MqttFlags,
  name: string,
  stderr: { write(text: string): unknown },
): Promise<CommandLink> {
  const link = await openBrokerLink(
    {
      url: m.url,
      ...(m.username === undefined ? {} : { username: m.username }),
      ...(m.passwordFile === undefined ? {} : { passwordFile: m.passwordFile }),
    },
    { gatewayId: 'fleet', clientId: m.clientId ?? defaultClientId(`fleet-${name}`) },
  )
  const problems = connectionConditions(textLogger((text) => void stderr.write(`beaconkit: warning: ${text}\n`)))
  link.on('error', (error) => problems.error(error))
  return {
    link,
    close: async () => {
      problems.close()
      await link.close()
    },
  }
}

/** `work`, or an `MqttError` (`connection`) saying `what` once `ms` have passed without it. */
export function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new MqttError('connection', what)), ms)
  })
  return Promise.race([work, late]).finally(() => clearTimeout(timer))
}

/** Resolves once `link` is connected; rejects with `what` after `ms`. */
export function connectedWithin(link: MqttLink, ms: number, what: string): Promise<void> {
  if (link.connected) return Promise.resolve()
  return within(ms, what, new Promise<void>((resolve) => link.once('connected', () => resolve())))
}
