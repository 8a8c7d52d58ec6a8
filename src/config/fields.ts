/**
 * Where each setting of the configuration model comes from and goes to: its path in the file,
 * the command-line option it stands for, and its environment variable. The file, the environment
 * and the flags fill the same options in that order of precedence, so every check and every
 * default stays where the command line already has it: one place decides.
 */

/** How a setting's text in the environment is read (the file's values are typed by the schema). */
export type FieldKind = 'string' | 'number' | 'boolean' | 'strings' | 'numbers' | 'listen' | 'enabled' | 'site'

/** One leaf of the model. */
export interface ConfigField {
  /** Dot path in the file, e.g. `mqtt.url`. */
  readonly path: string
  /**
   * The option it fills: a command-line flag's name, or for a setting that must not be typed on a
   * command line (a secret value; an inline site) a name only the configuration can set.
   */
  readonly option: string
  readonly kind: FieldKind
  /** A secret value: refused in a file others can read, never printed. */
  readonly secret?: boolean
  /** Not a command-line flag (see `option`). */
  readonly internal?: boolean
}

/** Every setting of the model, in the order `config example` documents them. */
export const CONFIG_FIELDS: readonly ConfigField[] = [
  { path: 'gateway.id', option: 'gateway-id', kind: 'string' },
  { path: 'gateway.room', option: 'room', kind: 'string' },
  { path: 'adapter.backend', option: 'backend', kind: 'string' },
  { path: 'adapter.hci', option: 'hci', kind: 'numbers' },
  { path: 'adapter.fallbackReplay', option: 'fallback-replay', kind: 'string' },
  { path: 'keys.file', option: 'keys-file', kind: 'string' },
  { path: 'keys.keys', option: 'key', kind: 'strings', secret: true },
  { path: 'irk.file', option: 'irk-file', kind: 'string' },
  { path: 'filters.serialNumbers', option: 'serial', kind: 'strings' },
  { path: 'filters.proximityUUIDs', option: 'uuid', kind: 'strings' },
  { path: 'filters.beaconIDs', option: 'beacon-id', kind: 'strings' },
  { path: 'filters.minRssi', option: 'min-rssi', kind: 'number' },
  { path: 'filters.verifiedOnly', option: 'verified-only', kind: 'boolean' },
  { path: 'mqtt.url', option: 'mqtt', kind: 'string' },
  { path: 'mqtt.clientId', option: 'client-id', kind: 'string' },
  { path: 'mqtt.username', option: 'mqtt-user', kind: 'string' },
  { path: 'mqtt.passwordFile', option: 'mqtt-password-file', kind: 'string' },
  { path: 'mqtt.password', option: 'mqtt-password', kind: 'string', secret: true, internal: true },
  { path: 'mqtt.prefix', option: 'mqtt-prefix', kind: 'string' },
  { path: 'mqtt.tls.caFile', option: 'mqtt-ca', kind: 'string' },
  { path: 'mqtt.tls.certFile', option: 'mqtt-cert', kind: 'string' },
  { path: 'mqtt.tls.keyFile', option: 'mqtt-key', kind: 'string' },
  { path: 'mqtt.queueDir', option: 'mqtt-queue-dir', kind: 'string' },
  { path: 'mqtt.rssiPartitions', option: 'rssi-partitions', kind: 'number' },
  { path: 'mqtt.homeAssistant.enabled', option: 'ha', kind: 'boolean' },
  { path: 'mqtt.homeAssistant.dwell', option: 'ha-dwell', kind: 'number' },
  { path: 'mqtt.homeAssistant.expire', option: 'ha-expire', kind: 'number' },
  { path: 'mqtt.homeAssistant.beacons', option: 'ha-beacons', kind: 'string' },
  { path: 'upload.enabled', option: 'upload', kind: 'boolean' },
  { path: 'upload.cloudUrl', option: 'cloud-url', kind: 'string' },
  { path: 'upload.email', option: 'email', kind: 'string' },
  { path: 'upload.passwordFile', option: 'password-file', kind: 'string' },
  { path: 'upload.password', option: 'password', kind: 'string', secret: true, internal: true },
  { path: 'upload.queueDir', option: 'queue-dir', kind: 'string' },
  { path: 'http.listen', option: 'http', kind: 'listen' },
  { path: 'http.token', option: 'http-token', kind: 'string', secret: true },
  { path: 'http.edit', option: 'edit', kind: 'boolean' },
  { path: 'metrics.listen', option: 'metrics', kind: 'listen' },
  { path: 'metrics.token', option: 'metrics-token', kind: 'string', secret: true },
  { path: 'logging.level', option: 'log-level', kind: 'string' },
  { path: 'logging.format', option: 'log-format', kind: 'string' },
  { path: 'site', option: 'site', kind: 'site' },
  { path: 'beacons', option: 'beacon-names', kind: 'site', internal: true },
  { path: 'fleet.embeddedBroker', option: 'embedded-broker', kind: 'enabled' },
  { path: 'fleet.survey', option: 'survey', kind: 'string' },
  { path: 'fleet.occupancy', option: 'occupancy', kind: 'string' },
  { path: 'fleet.record', option: 'record', kind: 'string' },
  { path: 'fleet.inputs', option: 'input', kind: 'strings' },
  { path: 'fleet.esphomeKeys', option: 'esphome-keys', kind: 'string' },
  { path: 'fleet.rooms.method', option: 'rooms', kind: 'string' },
  { path: 'fleet.away.multiple', option: 'away-multiple', kind: 'number' },
  { path: 'fleet.away.margin', option: 'away-margin', kind: 'number' },
  { path: 'fleet.fingerprints', option: 'fingerprints', kind: 'string' },
]

/**
 * `BEACONKIT_` and the path in capitals, `_` between words: `mqtt.homeAssistant.enabled` →
 * `BEACONKIT_MQTT_HOME_ASSISTANT_ENABLED`.
 */
export function envName(path: string): string {
  return `BEACONKIT_${path
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/\./g, '_')
    .toUpperCase()}`
}

/** The prefix of the environment variables the model reads. */
export const ENV_PREFIX = 'BEACONKIT_'

const BY_FLAG = new Map(CONFIG_FIELDS.filter((f) => f.internal !== true).map((f) => [f.option, f.path]))

/**
 * A command-line message in the words of a config file: each `--flag` the model has becomes its
 * setting (`--ha-dwell only takes effect with --ha` → `mqtt.homeAssistant.dwell only takes effect
 * with mqtt.homeAssistant.enabled`), so a file's problem names what to change in the file.
 */
export function inConfigTerms(message: string): string {
  return message.replace(/--([a-z][a-z-]*)(?![a-z-])/g, (flag: string, name: string) => {
    const path = BY_FLAG.get(name)
    return path === undefined ? flag : path
  })
}

const OPTION_OF = new Map(CONFIG_FIELDS.map((f) => [f.path, f.option]))

/**
 * The option a setting fills (`mqtt.homeAssistant.dwell` → `ha-dwell`); an item of a list
 * (`filters.serialNumbers[2]`) fills its list's. Undefined for a path that is no setting.
 */
export function optionOf(path: string): string | undefined {
  return OPTION_OF.get(path.replace(/\[\d+\]$/, ''))
}
