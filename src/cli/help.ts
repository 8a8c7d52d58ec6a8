/** The help texts of `beaconkit` and each of its commands. */

import { POSITIONING_METHODS } from '../positioning/types.js'
import type { CommandName } from './command-line.js'

const VIEW_OPTIONS = `Output:
  --json                 one JSON object per line per event (found, gone, changed,
                         updated), also the default when standard output is not a terminal
Broadcast keys (private broadcast; keys are never printed):
  --key <key>            a broadcast key string (40 hex digits or the 90-character
                         operator form); repeatable. Prefer --keys-file: arguments are
                         visible to other users in the process list
  --keys-file <file>     one key per line, # comments and blank lines allowed; a plain
                         file (chmod 600: a warning if others can read it)
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
  --mqtt-user <name>     broker user name
  --mqtt-password-file <file>  file holding the broker password
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
                         so without it a token is generated and printed once`

const COMMON_TAIL = `  -h, --help             this help

Ctrl-C (or SIGTERM) stops cleanly: the scanner stops, queued uploads are flushed, the
terminal is restored, and the exit code is 0; so does a reader that goes away (\`| head\`).
The broker gets at most 30 s to acknowledge what is queued, less when it acknowledges
nothing for 5 s; then the rest is let go (events of --queue-dir stay on disk), a line
"stopped; N messages not acknowledged" goes to stderr and the exit code is 1. A second
Ctrl-C leaves at once; a stop still running after 60 s is forced (exit 1).
Exit codes: 0 done, 1 unexpected failure, output error (disk full) or messages the
broker did not acknowledge by the stop, 2 bad option, file (keys or password file not
a plain file, input not a recording) or key, 3 Bluetooth unavailable (also an adapter
lost mid-run), 4 cloud account error.`

// The fleet has no scanner, no uploads and no adapter: its stop and exit codes are its own.
const FLEET_TAIL = `  -h, --help             this help

Ctrl-C (or SIGTERM) stops cleanly: the tracker and the map stop, the recording is
closed, the terminal is restored, and the exit code is 0. What the tracker publishes
(presence, Home Assistant) gets at most 30 s to be acknowledged by the broker; then the
rest is let go, a line "stopped; N messages not acknowledged" goes to stderr and the
exit code is 1. A second Ctrl-C leaves at once; a stop still running after 60 s is
forced (exit 1).
Exit codes: 0 done, 1 unexpected failure or messages the broker did not acknowledge by
the stop, 2 bad option or file (site, survey, password file, an existing --record file).`

const BROKER_TAIL = `  -h, --help             this help

Ctrl-C (or SIGTERM) stops it: clients are disconnected and the exit code is 0.
Exit codes: 0 done, 1 unexpected failure (e.g. the port is taken), 2 bad option.`

const TOPICS: Record<CommandName, string> = {
  scan: `Usage: beaconkit scan [options]

Scans for beacons with the Bluetooth adapter (noble) and shows them: a live table
refreshed every second on a terminal, JSON lines otherwise.

Adapter:
  --hci <n>              use adapter hci<n> (default: the first one, hci0); repeat
                         it to scan with several adapters at once (--hci 0 --hci 1):
                         each beacon then lists the adapters hearing it
  --backend <noble|bluez>
                         noble: raw HCI socket (default); bluez: through bluetoothd
                         over D-Bus (needs @homebridge/dbus-native; bluetoothd keeps
                         running for other programs)
  --fallback-replay <file.jsonl>
                         when no Bluetooth adapter can be used, say why and replay
                         this recording instead (what \`npm run demo\` does)
${VIEW_OPTIONS}
${COMMON_TAIL}

Scanning needs Bluetooth: on Linux, @abandonware/noble with its native module, and
either root or \`sudo setcap cap_net_raw+eip $(eval readlink -f $(which node))\`.`,

  replay: `Usage: beaconkit replay <file.jsonl> [options]
       beaconkit replay --demo [options]
       beaconkit replay - [options]          (reads the recording from standard input)

Replays a recording (made with \`beaconkit record\` or AdvertisementRecorder) through
the same views as \`scan\`. The file may be a FIFO. At the end of the input the beacons
age out (8 s without adverts), then the command exits 0. Timers run on the recording's
clock at any speed, and event times are recording times. Malformed lines are skipped
with a warning naming the line; an input without a single advertisement line (empty,
not JSONL) exits 2.

A fleet recording (\`beaconkit fleet --record <file>\`) is served with --http instead:
the live map with a time slider to scrub through the run, until Ctrl-C
(\`beaconkit replay day.jsonl --virtual --http 8080\`).

Replay:
  --demo                 replay the recording bundled with beaconkit (90 s of a small
                         site) instead of a file
  --speed <factor>       replay faster (10) or slower (0.5) than recorded; default 1;
                         the same events at the same times as --virtual
  --virtual              run in virtual time, as fast as possible (for tests and CI)
${VIEW_OPTIONS}
${COMMON_TAIL}

Example: beaconkit replay --demo --virtual --json | head`,

  record: `Usage: beaconkit record <file.jsonl> [options]

Records every advertisement the adapter hears into a JSONL file (one advertisement per
line) that \`beaconkit replay\` and ReplaySource play back. Shows a live counter on a
terminal; stops on Ctrl-C or after --duration. An existing file is never replaced
unless --force is given.

  --hci <n>              use adapter hci<n> (default hci0)
  --duration <seconds>   stop after this long
  --simulate             record the simulator instead of the adapter (to try it out)
  --seed <n>             the simulator's seed (with --simulate), default 1
  --json                 print the counter as JSON lines instead
  --force                overwrite <file.jsonl> if it exists (default: refuse, exit 2)
${COMMON_TAIL}`,

  simulate: `Usage: beaconkit simulate [options]

Runs the beacon simulator (synthetic iBeacon and vendor frames, plain and encrypted,
with noise, walking devices, devices coming and going) through the same views as
\`scan\`. Runs until Ctrl-C or --duration.

Simulation:
  --beacons <n>          how many simulated devices (default 12)
  --seed <n>             random seed: the same seed gives the same run (default 1)
  --duration <seconds>   stop after this much (simulated) time
  --virtual              run in virtual time, as fast as possible (needs --duration);
                         at the end the beacons age out, then the command exits
  --site <site.json>     simulate a whole site instead: every gateway of the file
                         hears its beacons (walls, walks, noise) and publishes to
                         --mqtt under its own gateway id (docs/fleet.md); try
                         --site fixtures/site-demo.json. It shows nothing itself
                         (no --json, no --http): watch it with beaconkit fleet

Every fourth device is encrypted with the public sample key of the protocol
documentation; add --key 7b4b5ff594fdaf8f9fc7f2b494e400016f461205 to verify them.
${VIEW_OPTIONS}
${COMMON_TAIL}`,

  emulate: `Usage: beaconkit emulate [options]

Starts a local emulator of the cloud account interface, for trying \`--upload\` and
AccountClient without a real account, and of the developer interface (paths under
/developers, for DeveloperClient; docs/developer-interface.md). Runs until Ctrl-C.

  --port <port>          TCP port (default 8080; 0 picks a free one)
  --host <host>          address to listen on (default 127.0.0.1)
  --email <address>      the emulated account (default demo@example.com)
  --password-file <file> its password (default: demo-password)
  --json                 print the listening address as a JSON line
  --webhook-url <url>    push task events of the developer interface to this
                         receiver (e.g. \`beaconkit webhook\`'s URL)
${COMMON_TAIL}`,

  broker: `Usage: beaconkit broker [options]

Starts an MQTT broker (aedes, MQTT 3.1.1, retained messages in memory) for a
one-machine setup or a demo, so \`--mqtt\` can be tried without installing
Mosquitto. Runs until Ctrl-C. For a lasting setup use Mosquitto (docs/mqtt.md).

  --port <port>          TCP port (default 1883; 0 picks a free one)
  --host <host>          address to listen on (default 127.0.0.1)
${BROKER_TAIL}`,

  webhook: `Usage: beaconkit webhook [options]

Receives the platform's webhook pushes (sensor data and task events) and prints
each as a JSON line: {"event": "data" | "task", "time", "message"}. A push is
answered 2xx once it is printed (and, with --mqtt, accepted by the broker); otherwise
the platform pushes it again, three times in all. Re-pushes of a message already taken
are dropped by msgId. Safe-mode (encrypted) pushes are refused: decrypting needs a
decrypt hook (createWebhookHandler; docs/developer-interface.md). Runs until Ctrl-C.

  --port <port>          TCP port (default 8080; 0 picks a free one)
  --host <host>          address to listen on (default 127.0.0.1; put an https proxy in
                         front before opening it to the platform)
  --json                 JSON lines (the default when standard output is not a terminal)
  --mqtt <url>           forward each push to this broker, QoS 1, not retained:
                         <p>/webhook/data/<sn> and <p>/webhook/tasks/<taskId>
  --mqtt-prefix <p>      topic prefix (default beaconkit)
  --mqtt-user <name>     broker user name
  --mqtt-password-file <file>  file holding the broker password
  --handler-timeout <s>  a push not printed and forwarded within this many seconds
                         is answered 503 and pushed again (default 10); pushes beyond
                         100 (or 16 MiB) not yet acknowledged by the broker get 503 at once
${COMMON_TAIL}`,

  fleet: `Usage: beaconkit fleet --mqtt <url> [options]
       beaconkit fleet --embedded-broker [port] [options]
       beaconkit fleet forget <id> --mqtt <url> [--mqtt-prefix <p>] [--ha-prefix <h>]

One view of many gateways: listens to every gateway's status and RSSI batches on the
broker and shows each beacon once — its room (with hysteresis), position (with a site
plan), the gateways hearing it, the best RSSI and its age. A beacon goes only when no
gateway has heard it for 30 s. Runs until Ctrl-C or --duration.

  --mqtt <url>           the broker the gateways publish to, e.g. mqtt://127.0.0.1:1883
  --embedded-broker [port]  run an MQTT broker (aedes) in this process on 127.0.0.1
                         (default port 1883; 0 picks a free one) and listen to it;
                         gateways publish with --mqtt mqtt://127.0.0.1:<port>
  --site <site.json>     gateways, rooms (and positions) of the site (docs/fleet.md)
  --survey <file.csv>    calibration survey for positions (x,y,anchor,rssi; needs --site)
  --ha                   Home Assistant: per beacon a device_tracker (home or
                         not_home), a Room sensor and its values (docs/fleet.md)
  --ha-dwell <seconds>   announce a beacon only once heard over this long (default 30)
  --ha-expire <seconds>  remove the config of a beacon gone this long (default 604800)
  --mqtt-prefix <p>      topic prefix (default beaconkit)
  --mqtt-user <name>     broker user name
  --mqtt-password-file <file>  file holding the broker password
  --client-id <id>       MQTT client id (default beaconkit-fleet-<host>-<random>,
                         unique per process)
  --json                 print events as JSON lines (found, gone, room, moved,
                         gateway, updated) instead of the live table
  --duration <seconds>   stop after this long
  --http [host:]port     the live map in a browser: floor plan, rooms, gateways,
                         beacons and their details (docs/web-map.md); host default
                         127.0.0.1, the address is printed once
  --http-token <token>   access token for the map; off loopback one is required
                         and generated when not given
  --record <file>        record the fused view of the run; review it with
                         beaconkit replay <file> --http 8080
  --force                let --record replace an existing file (default: refuse, exit 2)

beaconkit fleet forget <id> empties the beacon's retained fleet state, presence and
Home Assistant configs (under --ha-prefix, default homeassistant) and tells running
trackers to forget it; heard again, it is announced again after the dwell. It
waits for the broker's acknowledgements (at most 10 s each for the connection and
for them), prints one line and exits 0; 2 for a bad id, 1 when the broker is
unreachable. --mqtt-user, --mqtt-password-file and --client-id apply as above.
${FLEET_TAIL}`,

  keys: `Usage: beaconkit keys check <key>
       beaconkit keys check -                (reads the key from standard input)
       beaconkit keys check --keys-file <file>

Checks broadcast keys without printing them: valid, corrupted (digest mismatch or
malformed) or expired, with the key id and the expiry date.

  --keys-file <file>     check every key of a keys file (one per line)
  --now <date>           check the expiry against this date instead of today
  --json                 one JSON object per key
  -h, --help             this help

Exit codes: 0 every key is valid, 2 a key is malformed, corrupted or expired.`,

  site: `Usage: beaconkit site check <site.json>

Checks a site file before a fleet runs on it, and prints every problem with where it
is in the file (rooms[2].gateways[1]: …):
  error    the file cannot be read as a site; a room names a gateway the file does not
           declare; a gateway id no gateway can publish under; an image (floor plan)
           that is not a readable file
  warning  some gateways placed (x, y) and some not: positions are off
\`beaconkit fleet --site\` and \`beaconkit simulate --site\` print the same problems as
warnings when they start; the fleet also warns, once per gateway, when a gateway the
site does not declare publishes RSSI batches (a typo in its --gateway-id).

  -h, --help             this help
Exit codes: 0 no error (warnings may be printed), 2 errors found, or the file is
missing or not JSON.`,

  locate: `Usage: beaconkit locate --site <site.json> [options] <recording>

Positions the beacons of a recording on the site's plan, offline, and writes one
JSON line per beacon per second: {"time","beacon","x","y","accuracy","room"}
(time in ms since the epoch, x/y/accuracy in metres). See docs/positioning.md.

Recording formats (told apart by the first line):
  fleet recording        beaconkit fleet --record: each beacon's gateways and RSSI
  advertisement recording
                         beaconkit record: one scanner, the site anchor --gateway
                         (default: the site's only one); beacons by address
  survey                 beaconkit survey (x,y,anchor,rssi): each point a beacon "x,y",
                         rows 100 ms apart: where the engine puts the surveyed points
  CSV   timestamp,receiver,beacon,rssi[,...]  (timestamp in seconds; the tetam tracks)
  JSONL {"time": ms or ISO 8601, "gateway": "...", "id": "...", "rssi": -70}
A file of none of these, or without a single reading, exits 2 (not_a_recording).
Options:
  --site <file>          the site: anchor positions (required)
  --survey <file>        calibration survey, CSV (.gz allowed): x,y,anchor,rssi
                         (what \`beaconkit survey\` writes); or x,y,anchor,count,mean,sd;
                         or the tetam fingerprints set,x,y,z,timestamp,sensor,beacon,rssi.
                         Without it the engine uses default physics (metres of error)
  --occupancy <file>     walkable grid (the tetam occupancy format)
  --method <name>        ${POSITIONING_METHODS.join(', ')} (default filter)
  --every <ms>           one estimate per beacon this often (default 1000)
  --tag-height <m>       height of the moving tag (default: the survey's, else 1.2)
  --gateway <id>         the site anchor an advertisement recording was made at
                         (default: the site's only anchor)
  -h, --help             this help
Exit codes: 0 done, 2 bad option or file.`,

  survey: `Usage: beaconkit survey --mqtt <url> --beacon <id> [options] <samples.csv>

Records a calibration walk from a live fleet of gateways. Carry the beacon to each
marked point; at each, press Enter and stand still: every gateway's RSSI of that
beacon is recorded for --seconds, then appended to <samples.csv> as x,y,anchor,rssi
(what beaconkit locate --survey and RadioMap.fromSurvey read). See docs/positioning.md.

  --mqtt <url>           the broker the gateways publish to (required)
  --mqtt-prefix <p>      their topic prefix (default beaconkit)
  --mqtt-user <name>     broker user name
  --mqtt-password-file <file>
                         file whose first line is the broker password
  --beacon <id>          the carried beacon's id as the gateways publish it (required)
  --points <file>        CSV name,x,y (metres): the points in order; without it the
                         command asks for x,y at each point (an empty line ends)
  --seconds <n>          seconds recorded per point (default 10; 60 is better)
  --site <site.json>     the site (gateway positions): at the end, print the survey's
                         quality, its leave-one-point-out error in dB (above ~5 dB the
                         survey is too sparse or a gateway moved)
  -h, --help             this help
Exit codes: 0 done, 2 bad option or file.`,
}

/** Help of one command, or the overview when `topic` is absent. */
export function helpText(topic?: CommandName): string {
  if (topic !== undefined) return TOPICS[topic]
  return `beaconkit — scan, decode, track and verify the beacons of the device cloud platform

Usage: beaconkit <command> [options]

Commands:
  scan                   scan with the Bluetooth adapter; live table or JSON lines
  replay <file.jsonl>    replay a recording through the same views
  record <file.jsonl>    record advertisements to a file
  simulate               run the beacon simulator through the same views
  emulate                start a local emulator of the cloud account interface
  broker                 start a local MQTT broker for --mqtt (aedes)
  webhook                receive the platform's webhook pushes; JSON lines or MQTT
  fleet                  one view of many gateways through a broker
  fleet forget <id>      clear a beacon's fleet topics and Home Assistant entities
  site check <site.json> check a site file: rooms, gateways, floor plan
  keys check <key>       check a broadcast key (never prints it)
  locate <recording>     position the beacons of a recording on the site plan
  survey <samples.csv>   record a calibration walk from the gateways on a broker

Run \`beaconkit <command> --help\` for the options of a command.
  -h, --help             this help
  -v, --version          the version

Try it: beaconkit replay --demo          (a recorded site; Ctrl-C stops it)
        beaconkit simulate               (simulated beacons, until Ctrl-C)`
}
