/**
 * The options every command that shows beacons takes (scan, replay, simulate): output, broadcast
 * keys, filters, upload, MQTT, the live map and the metrics, with their help; and the end of those commands'
 * help (how they stop and their exit codes), which record, emulate and webhook share.
 */

import type { OptionSpecs } from './command.js'

/** `--log-level` and `--log-format`: every command that runs takes them (docs/logging.md). */
export const LOG_OPTION_SPECS: OptionSpecs = {
  'log-level': { type: 'string' },
  'log-format': { type: 'string' },
}

/** The help of {@link LOG_OPTION_SPECS}. */
export const LOG_OPTIONS = `Logs (on standard error; docs/logging.md):
  --log-level <level>    trace, debug, info (default), warn, error, fatal or silent
  --log-format <format>  auto (default: pretty on a terminal, JSON lines otherwise),
                         json (one JSON object per line: level, time, msg) or pretty`

/** How a command reaches the broker and Home Assistant: the options a gateway and a fleet share. */
export const BROKER_OPTION_SPECS: OptionSpecs = {
  mqtt: { type: 'string' },
  'mqtt-prefix': { type: 'string' },
  ha: { type: 'boolean' },
  'ha-dwell': { type: 'string' },
  'ha-expire': { type: 'string' },
  'mqtt-user': { type: 'string' },
  'mqtt-password-file': { type: 'string' },
  'mqtt-ca': { type: 'string' },
  'mqtt-cert': { type: 'string' },
  'mqtt-key': { type: 'string' },
  'client-id': { type: 'string' },
}

/** The view options, as `util.parseArgs` takes them. */
export const VIEW_OPTION_SPECS: OptionSpecs = {
  config: { type: 'string' },
  json: { type: 'boolean' },
  key: { type: 'string', multiple: true },
  'keys-file': { type: 'string' },
  'irk-file': { type: 'string' },
  serial: { type: 'string', multiple: true },
  uuid: { type: 'string', multiple: true },
  'beacon-id': { type: 'string', multiple: true },
  'min-rssi': { type: 'string' },
  'verified-only': { type: 'boolean' },
  upload: { type: 'boolean' },
  'cloud-url': { type: 'string' },
  email: { type: 'string' },
  'password-file': { type: 'string' },
  'queue-dir': { type: 'string' },
  ...BROKER_OPTION_SPECS,
  'gateway-id': { type: 'string' },
  room: { type: 'string' },
  'ha-beacons': { type: 'string' },
  http: { type: 'string' },
  'http-token': { type: 'string' },
  metrics: { type: 'string' },
  'metrics-token': { type: 'string' },
  'mqtt-queue-dir': { type: 'string' },
  'rssi-partitions': { type: 'string' },
  ...LOG_OPTION_SPECS,
}

/** The help of {@link VIEW_OPTION_SPECS}. */
export const VIEW_OPTIONS = `Configuration (docs/configuration.md):
  --config <file>        a config file (YAML or JSON; beaconkit config example);
                         BEACONKIT_* environment variables override it, and the
                         flags given here override both
Output:
  --json                 one JSON object per line per event (found, gone, changed,
                         updated), also the default when standard output is not a terminal
Broadcast keys (private broadcast; keys are never printed):
  --key <key>            a broadcast key string (40 hex digits or the 90-character
                         operator form); repeatable. Prefer --keys-file: arguments are
                         visible to other users in the process list
  --keys-file <file>     one key per line, # comments and blank lines allowed; a plain
                         file (chmod 600: a warning if others can read it)
Phones and watches (docs/phones.md; keys are never printed):
  --irk-file <file>      identity resolving keys, <name> <32 hex digits> per line:
                         phones and watches as irk:<name> across their private
                         addresses; a private file (chmod 600, refused otherwise)
Filters:
  --serial <serial>      only this serial number (12 hex digits); repeatable
  --uuid <uuid>          only this proximity UUID; repeatable
  --beacon-id <id>       only this UUID|major|minor; repeatable
  --min-rssi <dBm>       only beacons heard at least this strongly, e.g. -80
  --verified-only        only beacons verified with a broadcast key
Upload (off unless --upload is given):
  --upload               send sensor data to the account interface; the account
                         is checked first, and a refused account (at start or
                         later) ends the command with exit code 4
  --cloud-url <url>      the account interface, e.g. http://127.0.0.1:8080
  --email <address>      account e-mail
  --password-file <file> file holding the account password
  --queue-dir <dir>      keep unsent records on disk here (survives restarts)
MQTT (off unless --mqtt is given; topics in docs/mqtt.md):
  --mqtt <url>           publish to this broker, e.g. mqtt://127.0.0.1:1883
  --gateway-id <id>      this gateway in topics (letters, digits, - and _;
                         default: the host name)
  --mqtt-prefix <p>      topic prefix (default beaconkit)
  --ha                   announce beacons to Home Assistant (MQTT discovery)
  --ha-dwell <seconds>   announce a beacon only once heard over this long
                         (default 30; never a device known only by its address)
  --ha-expire <seconds>  remove the configs of a beacon gone this long
                         (default 604800, 7 days)
  --ha-beacons auto|on|off  per-beacon entities from this gateway: on, off (a
                         fleet tracker announces the beacons; only this
                         gateway's device), auto (default: on until a fleet
                         tracker's status is seen on the broker)
  --room <name>          the room this gateway is in: with --ha its device is filed
                         in that Home Assistant area (suggested_area)
  --mqtt-user <name>     broker user name
  --mqtt-password-file <file>  file holding the broker password
  --mqtt-ca <file>       CA certificate (PEM) of an mqtts:// broker
  --mqtt-cert <file>     client certificate (PEM), for brokers that want one
  --mqtt-key <file>      the client certificate's key (PEM; a secret, chmod 600)
  --client-id <id>       MQTT client id (default beaconkit-<gateway>-<host>-<random>,
                         unique per process; two clients with one id throw
                         each other off the broker)
  --mqtt-queue-dir <dir> keep outgoing events on disk here until the broker
                         has them (survives broker outages and restarts)
  --rssi-partitions <n>  split the RSSI batch into n partitions for several
                         fleet trackers (docs/fleet.md, Scaling out)
Live map in a browser (off unless --http is given; docs/web-map.md):
  --http [host:]port     serve the range table with sparklines and the found/gone
                         log, e.g. --http 8080 (host default 127.0.0.1); the address
                         is printed once on standard error
  --http-token <token>   access token the page must show (16+ characters of
                         A-Z a-z 0-9 . _ ~ -); any host but loopback requires one,
                         so without it a token is generated and printed once
Metrics (docs/metrics.md; with --http also served beside the map):
  --metrics [host:]port  Prometheus /metrics and /healthz on a server of their own,
                         e.g. --metrics 9464 (host default 127.0.0.1); the address
                         is printed once on standard error
  --metrics-token <token>  access token Prometheus sends (Authorization: Bearer);
                         any host but loopback requires one, so without it a
                         token is generated and printed once`

/**
 * The end of the help of the commands that scan, show or serve: the log options, `--help`, the stop and the
 * exit codes.
 */
export const COMMON_TAIL = `${LOG_OPTIONS}
  -h, --help             this help

Ctrl-C (or SIGTERM) stops cleanly: the scanner stops, queued uploads are flushed, the
terminal is restored, and the exit code is 0; so does a reader that goes away (\`| head\`).
The broker gets at most 30 s to acknowledge what is queued, less when it acknowledges
nothing for 5 s; then the rest is let go (events of --queue-dir stay on disk), a line
"stopped; N messages not acknowledged" goes to stderr and the exit code is 1. A second
Ctrl-C leaves at once; a stop still running after 60 s is forced (exit 1).
Exit codes: 0 done, 1 unexpected failure, output error (disk full) or messages the
broker did not acknowledge by the stop, 2 bad option, file (keys or password file not
a plain file, input not a recording) or key, 3 Bluetooth unavailable (also an adapter
lost mid-run), 4 cloud account error, 75 a transient failure (a port in use): a later
try may succeed, so a service manager should restart it.`

/**
 * Settings only a config file or the environment can give a view command (secret values: no flag, so never
 * in the process list).
 */
export const VIEW_CONFIG_ONLY: readonly string[] = ['mqtt-password', 'password', 'beacon-names-json']
