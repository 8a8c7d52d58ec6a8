/**
 * The parts of a gateway, in the order {@link startGateway} starts them: upload (its account is
 * checked first, so a refused account fails fast), the source when it starts first, MQTT (waits a
 * bounded time for the first connection), the metrics endpoint, the live map, the caller's sinks
 * (attached, then started), then the metrics server (it loads prom-client first). Each decides
 * from the configuration whether it is there, and leaves what it started in `context.running`.
 */

import { MetricsEndpoint } from '../metrics/endpoint.js'
import type { ScannerSink } from '../scanner/sink.js'
import type { GatewayContext } from './gateway-context.js'
import { metricsServerPart } from './metrics-sink.js'
import { brokerConnectionPart, openBrokerConnection } from './broker-connection.js'
import { gatewayConnectionOwner, startMqtt } from './mqtt-sink.js'
import { keptPart } from './part.js'
import type { PartFactory } from './part.js'
import { startUpload } from './upload-sink.js'
import { startWeb } from './web-sink.js'

type Factory = PartFactory<GatewayContext>

/** `upload`: the account checked, then an Uploader on the scanner. */
const upload: Factory = ({ settings, scanner, log, hooks, running }) => {
  const flags = settings.upload
  if (flags === undefined) return undefined
  return keptPart(
    'upload',
    running,
    'upload',
    () => startUpload(flags, scanner, log.child({ component: 'upload' }), hooks.onUploadRefused),
    (value) => value.close(),
  )
}

/** `sourceFirst`: the source started before MQTT connects (a dead adapter fails before `online`). */
const sourceFirst: Factory = ({ runtime, source }) => {
  if (runtime.sourceFirst !== true) return undefined
  return { name: 'source', start: () => source.start(), stop: () => source.stop() }
}

/** With `mqtt`: the one broker connection, its will the gateway's status; ended after the publisher. */
const connection: Factory = ({ settings, scanner, running }) => {
  const flags = settings.mqtt
  if (flags === undefined) return undefined
  return brokerConnectionPart(running, () =>
    openBrokerConnection(flags.url, flags, gatewayConnectionOwner(flags, scanner.clock)),
  )
}

/** `mqtt`: the publisher on the scanner; its stop keeps what the broker had not acknowledged. */
const mqtt: Factory = ({ settings, scanner, log, running }) => {
  const flags = settings.mqtt
  if (flags === undefined) return undefined
  return keptPart(
    'mqtt',
    running,
    'mqtt',
    () => startMqtt(flags, scanner, log.child({ component: 'mqtt' }), running.connection),
    async (value) => {
      running.mqttResult = await value.close()
    },
  )
}

/**
 * The metrics and health, with the map or the metrics server: built once the sinks it reads
 * exist; it only listens to state changes until scraped.
 */
const metrics: Factory = ({ settings, scanner, source, running }) => {
  if (settings.http === undefined && settings.metrics === undefined) return undefined
  return keptPart(
    'metrics',
    running,
    'metrics',
    async () =>
      new MetricsEndpoint({
        scanner,
        source,
        ...(running.mqtt === undefined ? {} : { mqtt: running.mqtt.publisher }),
        ...(running.upload === undefined ? {} : { uploader: running.upload.uploader }),
      }),
    async (value) => value.close(),
  )
}

/** `http`: the live map of the scanner. */
const map: Factory = ({ settings, scanner, hooks, running }) => {
  const flags = settings.http
  if (flags === undefined) return undefined
  return keptPart(
    'map',
    running,
    'web',
    () => startWeb(flags, { scanner }, hooks.stderr, undefined, running.metrics),
    (value) => value.close(),
  )
}

/**
 * A sink the caller built: attached, then started. From the moment it is attached the root owns
 * it, so a sink whose start fails is closed too.
 */
function callerSink(sink: ScannerSink): Factory {
  return ({ scanner }) => {
    let detach: (() => void) | undefined
    return {
      name: 'sink',
      start: async () => {
        detach = sink.attach(scanner)
        await sink.start?.()
      },
      stop: async () => {
        // An attach that threw left nothing of the root's to close: the sink stays the caller's.
        if (detach === undefined) return
        try {
          await sink.close()
        } finally {
          detach()
        }
      },
    }
  }
}

/** `metrics`: `/metrics` and `/healthz` on a server of their own, started after every sink. */
const metricsServer: Factory = (context) => metricsServerPart(context)

/** The gateway's parts in their order of start, the caller's sinks among them. */
export function gatewayParts(sinks: readonly ScannerSink[] = []): Factory[] {
  return [upload, sourceFirst, connection, mqtt, metrics, map, ...sinks.map(callerSink), metricsServer]
}
