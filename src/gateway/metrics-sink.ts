/**
 * `--metrics`: Prometheus `/metrics` and `/healthz` on a server of their own (with `--http` the
 * live map serves them too). prom-client is loaded here, at start, so a broken install fails
 * before the gateway runs rather than at the first scrape. The address is printed once; a token
 * is printed only when it was generated here (the user's own is never echoed).
 */
import type { MetricsEndpoint } from '../metrics/endpoint.js'
import { startMetricsServer } from '../web/metrics-server.js'
import type { MetricsServer } from '../web/metrics-server.js'
import type { ListenSettings } from './settings/listen.js'
import { keptPart } from './part.js'
import type { Part } from './part.js'

/** What a gateway's or a fleet's context holds that the metrics server part reads and fills. */
interface MetricsContext {
  readonly settings: { readonly metrics?: ListenSettings }
  readonly hooks: { readonly stderr: { write(text: string): unknown } }
  readonly running: { metrics?: MetricsEndpoint; metricsServer?: MetricsServer }
}

/**
 * The part that serves `/metrics` and `/healthz` on a server of their own (`metrics` in the
 * configuration), the last of a gateway's or a fleet's parts: the endpoint it serves reads them all.
 */
export function metricsServerPart<Context extends MetricsContext>({
  settings,
  hooks,
  running,
}: Context): Part<Context> | undefined {
  const flags = settings.metrics
  const endpoint = running.metrics
  if (flags === undefined || endpoint === undefined) return undefined
  return keptPart(
    'metrics server',
    running,
    'metricsServer',
    () => startMetrics(flags, endpoint, hooks.stderr),
    (value) => value.close(),
  )
}

/** Starts the metrics server for `endpoint` and says where it is. */
export async function startMetrics(
  flags: ListenSettings,
  endpoint: MetricsEndpoint,
  stderr: { write(text: string): unknown },
): Promise<MetricsServer> {
  await endpoint.ready()
  const server = await startMetricsServer({
    endpoint,
    host: flags.host,
    port: flags.port,
    ...(flags.token === undefined ? {} : { token: flags.token }),
  })
  if (server.generatedToken !== undefined) {
    stderr.write(
      `beaconkit: metrics at ${server.url} and /healthz; a generated access token (send it as ` +
        `Authorization: Bearer <token>): ${server.generatedToken}\n`,
    )
  } else if (server.tokenRequired) {
    stderr.write(
      `beaconkit: metrics at ${server.url} and /healthz (send the --metrics-token as Authorization: Bearer <token>)\n`,
    )
  } else {
    stderr.write(`beaconkit: metrics at ${server.url} and /healthz\n`)
  }
  return server
}
