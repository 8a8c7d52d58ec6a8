/**
 * The commented examples `beaconkit config example` prints: a gateway's and a fleet's. Each
 * passes `beaconkit config check` as it is (a test holds them to that) and works on one machine
 * with a broker on 127.0.0.1:1883 (`beaconkit broker` or Mosquitto).
 */

/** A gateway: scan (or replay), publish to MQTT with Home Assistant, metrics and health on loopback. */
export const GATEWAY_EXAMPLE = `# beaconkit gateway configuration (beaconkit scan --config gateway.yaml)
# Checked by: beaconkit config check gateway.yaml   Schema: beaconkit config schema
# Every setting can also come from the environment (BEACONKIT_MQTT_URL, ...) or a flag;
# flags win over the environment, which wins over this file.
# Editors: point a YAML language server at beaconkit's schema/beaconkit-config.schema.json.

gateway:
  id: hall                      # this gateway in MQTT topics (default: the host name)

adapter:
  backend: noble                # noble (raw HCI socket) or bluez (through bluetoothd)
  hci: [0]                      # adapters to scan with: hci0 (add 1 for hci1 as well)

# keys:
#   file: /etc/beaconkit/keys   # broadcast keys, one per line (chmod 600)

# irk:
#   file: /etc/beaconkit/irk    # phones and watches: <name> <32 hex digits> per line (chmod 600)

# filters:
#   minRssi: -90                # ignore beacons heard weaker than this (dBm)
#   verifiedOnly: false

mqtt:
  url: mqtt://127.0.0.1:1883
  prefix: beaconkit
  # username: gateway
  # passwordFile: /etc/beaconkit/mqtt-password   # or BEACONKIT_MQTT_PASSWORD
  # queueDir: /var/lib/beaconkit/mqtt-queue      # keep events on disk while the broker is away
  homeAssistant:
    enabled: true
    dwell: 30                   # seconds heard before a beacon is announced
    beacons: auto               # per-beacon entities until a fleet tracker takes over

# upload:
#   enabled: true
#   cloudUrl: https://account.example.com
#   email: me@example.com
#   passwordFile: /etc/beaconkit/account-password
#   queueDir: /var/lib/beaconkit/upload-queue

# http:
#   listen: 127.0.0.1:8080      # the live map

metrics:
  listen: 127.0.0.1:9464        # Prometheus /metrics and /healthz

logging:
  level: info                   # trace, debug, info, warn, error, fatal, silent
  format: auto                  # human lines on a terminal, JSON lines otherwise
`

/** A fleet: fuse the gateways on a broker into rooms, announce to Home Assistant, serve the map. */
export const FLEET_EXAMPLE = `# beaconkit fleet configuration (beaconkit fleet --config fleet.yaml)
# Checked by: beaconkit config check fleet.yaml   Schema: beaconkit config schema
# Flags win over BEACONKIT_* environment variables, which win over this file.

mqtt:
  url: mqtt://127.0.0.1:1883
  prefix: beaconkit
  # username: fleet
  # passwordFile: /etc/beaconkit/mqtt-password
  homeAssistant:
    enabled: true

# The site: a path to a site file (docs/fleet.md), or the site written here.
site:
  gateways:                     # by their gateway id (gateway.id of each gateway)
    hall: {}
    kitchen: {}
  rooms:                        # room name -> the gateways in it
    Hall: [hall]
    Kitchen: [kitchen]

# Names for beacons (by id or serialNumber); with a list, only these go to Home Assistant.
# beacons:
#   - serialNumber: "0123456789ab"
#     name: Kettle

# fleet:
#   record: /var/lib/beaconkit/fleet.jsonl   # the fused view, for beaconkit replay --http
#   inputs: [espresense, "omg:home"]        # ESP32 nodes as gateways (docs/fleet.md "Mixed fleets")

# http:
#   listen: 127.0.0.1:8080      # the live map of the site

metrics:
  listen: 127.0.0.1:9465

logging:
  level: info
`
