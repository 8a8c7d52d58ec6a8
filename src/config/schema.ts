/**
 * The configuration model of a gateway and a fleet, as one zod schema: it checks a config file
 * (every problem with its path) and is the source of the JSON Schema that ships with the package
 * (`beaconkit config schema`, schema/beaconkit-config.schema.json), so an editor completes and
 * checks the file. zod 4 was chosen over TypeBox + ajv because it has no dependencies, imports in
 * about a third of the time (measured on this machine: 60–90 ms against 175–355 ms plus 45–80 ms
 * for ajv's first compile), and gives error paths as arrays and JSON Schema export built in.
 * This module loads zod, so only the configuration path imports it (lazily, from the CLI).
 *
 * Defaults are not applied here: the command line decides them (one place), and the schema
 * states them for the reader (`default` in the JSON Schema) from the same constants.
 */

import { z } from 'zod'
import { HA_GATE_DEFAULTS } from '../mqtt/ha-gate.js'
import { GATEWAY_ID } from '../mqtt/topics.js'
import { MAX_NAMED_BEACONS, MAX_NAME_LENGTH } from '../positioning/beacon-names.js'
import { closestName } from '../util/did-you-mean.js'

const text = z.string().min(1)
const path = text.max(4096)
const secret = text.max(4096)
// `[host:]port`, as --http takes it; a bare port number too.
const listen = z.union([
  z.number().int().min(0).max(65535),
  z.string().regex(/^(?:\[[^\]]+\]:|[^:[\]]+:)?\d{1,5}$/, 'expected [host:]port such as 8080 or 127.0.0.1:8080'),
])
const port = z.number().int().min(0).max(65535)

const gateway = z
  .object({
    id: z
      .string()
      .regex(GATEWAY_ID, 'expected up to 128 letters, digits, - and _ (it is a topic level)')
      .meta({ description: 'This gateway in topics (default: the host name).' }),
    room: text
      .max(64)
      .meta({ description: "The room this gateway is in: Home Assistant files the gateway's device in that area." }),
  })
  .partial()
  .strict()

const adapter = z
  .object({
    backend: z
      .enum(['noble', 'bluez'])
      .meta({ default: 'noble', description: 'noble: raw HCI socket; bluez: through bluetoothd over D-Bus.' }),
    hci: z
      .array(z.number().int().min(0).max(255))
      .min(1)
      .max(16)
      .meta({ default: [0], description: 'Adapters hci<n> to scan with.' }),
    fallbackReplay: path.meta({ description: 'A recording to replay when no Bluetooth adapter can be used.' }),
  })
  .partial()
  .strict()

const keys = z
  .object({
    file: path.meta({ description: 'File with one broadcast key per line (chmod 600).' }),
    keys: z
      .array(secret)
      .max(1000)
      .meta({ description: 'Broadcast keys in plain text: only in a file no one else can read (mode 600).' }),
  })
  .partial()
  .strict()

const irkFile = 'IRK file (keys only ever in it, chmod 600): <name> <32 hex digits> per line; phones as irk:<name>.'
const irk = z
  .object({ file: path.meta({ description: irkFile }) })
  .partial()
  .strict()

const filters = z
  .object({
    serialNumbers: z.array(text.max(64)).max(10_000),
    proximityUUIDs: z.array(text.max(64)).max(10_000),
    beaconIDs: z.array(text.max(128)).max(10_000),
    minRssi: z.number().int().min(-127).max(20),
    verifiedOnly: z.boolean(),
  })
  .partial()
  .strict()

const beacon = z
  .object({ id: text.max(256), serialNumber: text.max(64), name: z.string().min(1).max(MAX_NAME_LENGTH) })
  .partial({ id: true, serialNumber: true })
  .strict()
  .refine((b) => b.id !== undefined || b.serialNumber !== undefined, 'give the beacon an id or a serialNumber')

const homeAssistant = z
  .object({
    enabled: z.boolean().meta({ default: false }),
    dwell: z
      .number()
      .min(0)
      .max(86_400)
      .meta({
        default: HA_GATE_DEFAULTS.dwellMs / 1000,
        description: 'Seconds a beacon must be heard before it is announced.',
      }),
    expire: z
      .number()
      .positive()
      .max(366 * 86_400)
      .meta({ default: HA_GATE_DEFAULTS.expireMs / 1000, description: 'Seconds gone before its configs are removed.' }),
    beacons: z.enum(['auto', 'on', 'off']).meta({
      default: 'auto',
      description: "A gateway's per-beacon entities: auto (until a fleet tracker is seen), on, off.",
    }),
  })
  .partial()
  .strict()

const mqtt = z
  .object({
    url: text.max(2048).meta({ description: 'The broker, e.g. mqtt://127.0.0.1:1883 or mqtts://broker:8883.' }),
    clientId: z.string().max(256).meta({ description: 'MQTT client id (default: unique per process).' }),
    username: text.max(256),
    passwordFile: path.meta({ description: 'File whose first line is the broker password.' }),
    password: secret.meta({
      description:
        'The broker password in plain text: only in a file no one else can read (mode 600); prefer ' +
        'passwordFile or BEACONKIT_MQTT_PASSWORD.',
    }),
    prefix: text.max(256).meta({ default: 'beaconkit' }),
    tls: z.object({ caFile: path, certFile: path, keyFile: path }).partial().strict(),
    queueDir: path.meta({ description: 'Keep outgoing events on disk here until the broker has them.' }),
    rssiPartitions: z.number().int().min(1).max(1024).meta({ default: 1 }),
    homeAssistant,
  })
  .partial()
  .strict()

const upload = z
  .object({
    enabled: z.boolean().meta({ default: false }),
    cloudUrl: text.max(2048),
    email: text.max(320),
    passwordFile: path,
    password: secret.meta({
      description: 'The account password in plain text: only in a file no one else can read (mode 600).',
    }),
    queueDir: path,
  })
  .partial()
  .strict()

const server = (what: string) =>
  z
    .object({
      listen: listen.meta({ description: `${what}: [host:]port (host default 127.0.0.1).` }),
      token: z
        .string()
        .regex(/^[A-Za-z0-9._~-]{16,256}$/, 'expected 16 to 256 characters of A-Z a-z 0-9 . _ ~ -')
        .meta({
          description:
            'Access token; required off loopback (generated when absent). A secret: mode 600 or BEACONKIT_*_TOKEN.',
        }),
    })
    .partial()
    .strict()

const logging = z
  .object({
    level: z.enum(['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent']).meta({ default: 'info' }),
    format: z
      .enum(['auto', 'json', 'pretty'])
      .meta({ default: 'auto', description: 'auto: human lines on a terminal, JSON lines otherwise.' }),
  })
  .partial()
  .strict()

const fleet = z
  .object({
    embeddedBroker: z
      .union([z.boolean(), port])
      .meta({ description: 'Run an MQTT broker in the fleet process: true (port 1883) or a port.' }),
    survey: path.meta({ description: 'Calibration survey for positions (needs site).' }),
    occupancy: path.meta({ description: 'Occupancy grid (walkable cells) for positions (needs site).' }),
    record: path.meta({ description: 'Record the fused view to this file.' }),
    inputs: z
      .array(z.string().max(256))
      // A site may have dozens of ESPHome proxies (EspHomeInputs takes 256 at most).
      .max(256)
      .meta({
        description:
          'Foreign inputs fed in as gateways (docs/fleet.md "Mixed fleets"): espresense, omg[:<base>], ' +
          'theengs[:<base>], esphome:<host>[:<port>] (docs/esphome.md), each optionally @<RSSI offset dB>.',
      }),
    esphomeKeys: path.meta({
      description:
        'ESPHome keys file: lines <host>:<port> <base64 key> for encrypted proxies; mode 600 (docs/esphome.md).',
    }),
    rooms: z
      .object({
        method: z.enum(['strongest', 'plan']).meta({
          description:
            'How rooms are decided (needs site): plan (floors, the plan, learnt offsets, taught rooms) or ' +
            'strongest (the strongest gateway); default plan when every site gateway is placed.',
        }),
      })
      .partial()
      .strict(),
    away: z
      .object({
        multiple: z
          .number()
          .min(1)
          .max(100)
          .meta({ default: 3, description: "A device is away after this many of its advertising intervals' silence." }),
        margin: z.number().min(0).max(600).meta({ default: 1, description: 'Seconds added to them.' }),
      })
      .partial()
      .strict(),
    fingerprints: path.meta({
      description: 'Rooms taught with beaconkit fleet teach and learnt gateway offsets are kept here (needs site).',
    }),
  })
  .partial()
  .strict()

/** The whole model: every section optional; unknown keys are errors (a typo must not pass silently). */
export const configSchema = z
  .object({
    $schema: z.string().max(4096),
    gateway,
    adapter,
    keys,
    irk,
    filters,
    beacons: z.array(beacon).max(MAX_NAMED_BEACONS).meta({
      description:
        'Names of beacons by id or serial number; with a list, only listed beacons are announced to Home Assistant.',
    }),
    mqtt,
    upload,
    http: server('The live map')
      .extend({
        edit: z.boolean().meta({
          default: false,
          description:
            'Fleet: serve the site editor on the live map (needs listen): floor plans, rooms, gateways and ' +
            'beacon names, saved to the site file (./site.json when site is not given).',
        }),
      })
      .partial()
      .strict(),
    metrics: server('Prometheus /metrics and /healthz'),
    logging,
    site: z
      .union([path, z.record(z.string(), z.unknown())])
      .meta({ description: 'The site (fleet): a path to a site file, or the site itself.' }),
    fleet,
  })
  .partial()
  .strict()

/** A configuration as the file holds it, checked. */
export type ConfigModel = z.infer<typeof configSchema>

/** One problem found in a configuration: where, and what is wrong. */
export interface ConfigProblem {
  /** Dot path (`mqtt.url`), `beacons[2].name`, or an environment variable's name. */
  readonly path: string
  readonly message: string
}

/** Checks a parsed file (or the environment's settings); every problem with its path. */
export function checkModel(data: unknown): { model?: ConfigModel; problems: ConfigProblem[] } {
  const result = configSchema.safeParse(data)
  if (result.success) return { model: result.data, problems: [] }
  return {
    problems: result.error.issues.flatMap((issue): ConfigProblem[] => {
      const at = formatPath(issue.path)
      if (issue.code === 'unrecognized_keys') return unknownKeys(at, issue.keys, keysAt(issue.path))
      return [{ path: at === '' ? '(file)' : at, message: issue.message }]
    }),
  }
}

/**
 * A key a setting could be named by: letters, digits, `_` and `-`, up to 64. Only such a key is
 * ever printed: a file that is no config file at all (a symlink to /etc/shadow) has its content
 * in its "keys", and the check promises never to print a value.
 */
export const SETTING_NAME = /^\$?[A-Za-z][A-Za-z0-9_-]{0,63}$/

const SCHEMA_HINT = '(see `beaconkit config schema`)'

/**
 * One problem per unknown key that could be a setting's name (with the setting it may be a typo
 * of); one for the rest, counted.
 */
function unknownKeys(at: string, keys: readonly string[], known: readonly string[]): ConfigProblem[] {
  const named = keys.filter((k) => SETTING_NAME.test(k))
  const problems: ConfigProblem[] = named.map((key) => {
    const close = closestName(key, known)
    const where = (k: string): string => (at === '' ? k : `${at}.${k}`)
    const hint = close === undefined ? '' : `; did you mean ${where(close)}?`
    return { path: where(key), message: `unknown key${hint} ${SCHEMA_HINT}` }
  })
  const hidden = keys.length - named.length
  if (hidden > 0) {
    const what = `${hidden} unknown key${hidden === 1 ? ' that is' : 's that are'} no setting's name`
    problems.push({ path: at === '' ? '(file)' : at, message: `${what} (not shown) ${SCHEMA_HINT}` })
  }
  return problems
}

/** The keys the schema allows in the object at `path` (for "did you mean"). */
function keysAt(path: readonly PropertyKey[]): string[] {
  let at: unknown = configSchema
  for (const key of [...path, undefined]) {
    // Through the wrappers zod puts around a value (optional, a union of a path and an object).
    for (;;) {
      if (at instanceof z.ZodOptional) at = at.unwrap()
      else if (at instanceof z.ZodUnion) at = (at.options as unknown[]).find((o) => o instanceof z.ZodObject)
      else break
    }
    if (key === undefined) break
    if (at instanceof z.ZodArray && typeof key === 'number') at = at.element
    else if (at instanceof z.ZodObject && typeof key === 'string') at = (at.shape as Record<string, unknown>)[key]
    else return []
  }
  return at instanceof z.ZodObject ? Object.keys(at.shape as Record<string, unknown>) : []
}

/** `["mqtt", "url"]` → `mqtt.url`; `["beacons", 2, "name"]` → `beacons[2].name`. */
export function formatPath(path: readonly PropertyKey[]): string {
  let out = ''
  for (const key of path) out += typeof key === 'number' ? `[${key}]` : out === '' ? String(key) : `.${String(key)}`
  return out
}

/** The JSON Schema of a config file (zod's `input` side: a setting with a default may be left out). */
export function configJsonSchema(): Record<string, unknown> {
  return {
    ...z.toJSONSchema(configSchema, { io: 'input' }),
    title: 'beaconkit configuration (gateway and fleet)',
  }
}
