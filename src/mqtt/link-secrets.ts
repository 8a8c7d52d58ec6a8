/**
 * The connection of checked broker options (a publisher's, a tracker's, a bridge's, a root's):
 * the password and TLS files are read when it opens, handed to the mqtt.js client and kept
 * nowhere else; or the caller's own client wrapped.
 */

import { readFile } from 'node:fs/promises'
import { InvalidOptionError } from '../errors.js'
import { readPasswordFile } from '../password-file.js'
import type { ReconnectDelays } from './backoff.js'
import type { MqttClientLike } from './client.js'
import { MqttLink } from './connection.js'
import type { LinkSettings, MqttTlsOptions } from './link-settings.js'

/** The secrets of a connection, read from their files. */
export interface LinkSecrets {
  password?: string
  tls: { ca?: string | Buffer; cert?: string | Buffer; key?: string | Buffer; rejectUnauthorized?: boolean }
}

async function readPem(path: string, option: string): Promise<Buffer> {
  try {
    return await readFile(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new InvalidOptionError(
      code === 'ENOENT' ? 'file_not_found' : 'unreadable_file',
      `${option} ${path} cannot be read (${code ?? 'error'}); check the path and its permissions`,
      { option, cause: error },
    )
  }
}

/** Reads the password and TLS files now, for the connection only. */
export async function readLinkSecrets(
  options: { password?: string; passwordFile?: string },
  tls: MqttTlsOptions,
): Promise<LinkSecrets> {
  const password =
    options.passwordFile === undefined
      ? options.password
      : await readPasswordFile(options.passwordFile, 'mqtt-password-file')
  const out: LinkSecrets['tls'] = {}
  const ca = tls.ca ?? (tls.caFile === undefined ? undefined : await readPem(tls.caFile, 'tls.caFile'))
  const cert = tls.cert ?? (tls.certFile === undefined ? undefined : await readPem(tls.certFile, 'tls.certFile'))
  const key = tls.key ?? (tls.keyFile === undefined ? undefined : await readPem(tls.keyFile, 'tls.keyFile'))
  if (ca !== undefined) out.ca = ca
  if (cert !== undefined) out.cert = cert
  if (key !== undefined) out.key = key
  if (tls.rejectUnauthorized !== undefined) out.rejectUnauthorized = tls.rejectUnauthorized
  return password === undefined ? { tls: out } : { password, tls: out }
}

/** What {@link openLink} reads of checked options (resolvePublisherOptions' answer). */
export interface LinkOptions {
  url?: string | undefined
  client?: MqttClientLike | undefined
  username?: string | undefined
  reconnect: ReconnectDelays
  connectTimeoutMs: number
  readSecrets(): Promise<LinkSecrets>
}

/**
 * The link for checked options: the caller's own client wrapped, else a client made from the
 * options (password and TLS files read now, not kept). Shared by the publisher and the fleet
 * tracker, which differ only in client id and last will (and, for the tracker, which listens, the
 * largest packet it accepts: `maxPacketBytes`, MQTT 5 only).
 */
export async function openLink(
  o: LinkOptions,
  clientId: string,
  will: LinkSettings['will'],
  maxPacketBytes?: number,
): Promise<MqttLink> {
  if (o.client !== undefined) return MqttLink.wrap(o.client)
  const secrets = await o.readSecrets()
  return MqttLink.open({
    url: o.url as string,
    clientId,
    ...(o.username === undefined ? {} : { username: o.username }),
    ...(secrets.password === undefined ? {} : { password: secrets.password }),
    tls: secrets.tls,
    will,
    reconnect: o.reconnect,
    connectTimeoutMs: o.connectTimeoutMs,
    ...(maxPacketBytes === undefined ? {} : { maxPacketBytes }),
  })
}
