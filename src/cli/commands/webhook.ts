/**
 * `beaconkit webhook`: a webhook receiver (platform docs 6) that prints each push as a JSON line (or a
 * short line on a terminal) and, with `--mqtt`, forwards it to the broker. A push is
 * acknowledged only once it is printed and, with `--mqtt`, the broker has acknowledged it
 * (QoS 1): while the broker is away the platform gets a non-2xx answer and pushes again
 * (platform docs 6.4).
 */

import { InvalidOptionError, TemporaryFailureError } from '../../errors.js'
import { DEFAULT_TOPIC_PREFIX } from '../../mqtt/topics.js'
import { startWebhookServer } from '../../developer/webhook-server.js'
import type { WebhookServer } from '../../developer/webhook-server.js'
import type { WebhookMessage } from '../../developer/webhook-message.js'
import { EXIT } from '../exit.js'
import { forceAfter, handleSignals } from '../../gateway/shutdown.js'
import { RepeatedWarnings, formatCount } from '../../util/repeated-warnings.js'
import { connectionConditions } from '../../gateway/connection-conditions.js'
import { ConditionLog } from '../../log/condition-log.js'
import type { LogFlags } from '../command-line.js'
import { openLog } from '../log-setup.js'
import { bool, fail, number, parseLog, positionals, str, tcpPort } from '../arg-values.js'
import { defineCommand, optional } from './command.js'
import { COMMON_TAIL, LOG_OPTION_SPECS } from './view-options.js'
import { connect, Forwarder, webhookTopic } from './webhook-forward.js'
import type { WebhookMqttFlags } from './webhook-forward.js'

/** Options of {@link runWebhook}, as parsed from the command line. */
export interface WebhookCommandOptions {
  port: number
  host: string
  json: boolean
  mqtt?: WebhookMqttFlags
  /** `--handler-timeout`: how long one push may take before it is answered 503 (ms). */
  handlerTimeoutMs?: number
  /** `--log-level`, `--log-format`. */
  log?: LogFlags
}

/** One line of output per push. */
function line(message: WebhookMessage, json: boolean): string {
  if (json)
    return `${JSON.stringify({ event: message.type === 'text' ? 'data' : 'task', time: Date.now(), message })}\n`
  if (message.type === 'text') return `data ${message.sn} ${message.deviceType} ${JSON.stringify(message.data)}\n`
  return `task ${message.taskId} ${message.data.resultCode === 0 ? 'success' : 'fail'}\n`
}

/** Starts the receiver, prints where it listens, and runs until SIGINT/SIGTERM. */
export async function runWebhook(
  options: WebhookCommandOptions,
  out: { write(text: string): unknown } = process.stdout,
  err: { write(text: string): unknown } = process.stderr,
): Promise<number> {
  const log = await openLog(options.log, err)
  const conditions = new ConditionLog(log)
  const problems = connectionConditions(log, conditions)
  const json = options.json || process.stdout.isTTY !== true
  const prefix = options.mqtt?.topicPrefix ?? DEFAULT_TOPIC_PREFIX
  const link = options.mqtt === undefined ? undefined : await connect(options.mqtt, log, problems)
  // Refused pushes are the sender's doing, not a condition here: the first of a kind, then a sum per interval.
  const refusals = new RepeatedWarnings((text) => log.warn(text))
  const forwarder = link === undefined ? undefined : new Forwarder(link, conditions)
  let server: WebhookServer
  try {
    server = await startWebhookServer({
      port: options.port,
      host: options.host,
      onData: (m) => take(m),
      onTaskEvent: (e) => take(e),
      // A sender can push thousands of bad messages: counted per reason, a line per interval.
      onError: (e) =>
        refusals.add(e.code, 1, (n) =>
          n === 1 ? `push refused (${e.code}): ${e.message}` : `${formatCount(n)} pushes refused (${e.code})`,
        ),
      ...(options.handlerTimeoutMs === undefined ? {} : { handlerTimeoutMs: options.handlerTimeoutMs }),
    })
  } catch (error) {
    await link?.close()
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'EADDRINUSE') {
      const where = `port ${options.port} on ${options.host}`
      throw new TemporaryFailureError(
        'port_in_use',
        `${where} is in use; choose another with --port (0 picks a free one)`,
        { cause: error },
      )
    }
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES') {
      throw new InvalidOptionError(
        'invalid_option',
        `cannot listen on ${options.host}:${options.port} (${code}); check --host and --port`,
        { option: 'host', cause: error },
      )
    }
    throw error
  }
  async function take(message: WebhookMessage): Promise<void> {
    if (forwarder !== undefined) await forwarder.publish(webhookTopic(prefix, message), JSON.stringify(message))
    out.write(line(message, json))
  }
  // Listen for Ctrl-C before saying we listen: whoever reads that line may signal at once.
  const stopped = new Promise<void>((resolve) => {
    const remove = handleSignals(() => {
      remove()
      resolve()
    })
  })
  if (json)
    out.write(
      `${JSON.stringify({
        event: 'listening',
        url: server.url,
        port: server.port,
        ...(options.mqtt === undefined ? {} : { mqtt: `${prefix}/webhook/#` }),
      })}\n`,
    )
  else
    out.write(
      `webhook receiver listening on ` +
        `${server.url}` +
        `${options.mqtt === undefined ? '' : `, forwarding to ${prefix}/webhook/# on ${options.mqtt.url}`}` +
        `\nCtrl-C stops it.\n`,
    )
  await stopped
  const disarm = forceAfter()
  await server.close()
  refusals.close()
  forwarder?.withdrawAll()
  problems.close()
  await link?.close()
  disarm()
  const s = server.stats
  if (json) out.write(`${JSON.stringify({ event: 'stopped', stats: s })}\n`)
  else out.write(`webhook receiver stopped: ${s.data} data, ${s.events} task events, ${s.duplicates} duplicates\n`)
  return EXIT.ok
}

/** What `beaconkit webhook` parses to. */
export type WebhookCommand = { command: 'webhook' } & WebhookCommandOptions

/** `beaconkit webhook`: its options, help, parser and runner (registered in registry.ts). */
export const webhookCommand = defineCommand({
  name: 'webhook',
  overview: [['webhook', "receive the platform's webhook pushes; JSON lines or MQTT"]],
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    json: { type: 'boolean' },
    mqtt: { type: 'string' },
    'mqtt-prefix': { type: 'string' },
    'mqtt-user': { type: 'string' },
    'mqtt-password-file': { type: 'string' },
    'handler-timeout': { type: 'string' },
    ...LOG_OPTION_SPECS,
  },
  help: `Usage: beaconkit webhook [options]

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
  parse(values, pos): WebhookCommand {
    const command = 'webhook'
    positionals(
      pos,
      0,
      'beaconkit webhook [--port 8080] [--host 127.0.0.1] [--json] [--mqtt <url>] [--handler-timeout <s>]',
      command,
    )
    const port = tcpPort(values, 'port', command) ?? 8080
    const url = str(values, 'mqtt')
    for (const companion of ['mqtt-prefix', 'mqtt-user', 'mqtt-password-file']) {
      if (url === undefined && str(values, companion) !== undefined)
        fail(companion, `--${companion} needs --mqtt <url>`, command)
    }
    const mqtt =
      url === undefined
        ? undefined
        : {
            url,
            ...optional('topicPrefix', str(values, 'mqtt-prefix')),
            ...optional('username', str(values, 'mqtt-user')),
            ...optional('passwordFile', str(values, 'mqtt-password-file')),
          }
    const timeout = number(values, 'handler-timeout', command, {
      positive: true,
      max: 3600,
      what: 'a number of seconds above 0 (at most 3600)',
    })
    const handlerTimeoutMs = timeout === undefined ? undefined : Math.max(1, Math.round(timeout * 1000))
    return {
      command,
      port,
      host: str(values, 'host') ?? '127.0.0.1',
      json: bool(values, 'json'),
      ...optional('mqtt', mqtt),
      ...optional('handlerTimeoutMs', handlerTimeoutMs),
      ...optional('log', parseLog(values, command)),
    }
  },
  run: (parsed) => runWebhook(parsed),
})
