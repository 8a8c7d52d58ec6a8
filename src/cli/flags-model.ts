/**
 * A parsed command line (its settings already decided by the composition root's mapping, at
 * parse time), back as the partial configuration model startGateway / startFleet take. The
 * parsed shape is what the command line's parser promises (test/cli/args.test.ts), so the
 * model is made from it rather than kept beside it.
 */

import type { BeaconkitConfig } from '../config/load-config.js'
import { listenText } from '../gateway/settings/listen.js'
import type { FilterFlags, HttpFlags, MqttFlags, UploadFlags, ViewFlags } from './command-line.js'

type Model = BeaconkitConfig

/** `--mqtt` and its companions (the beacons' names with them) as the model's `mqtt`, `gateway` and `beacons`. */
export function mqttSettingsModel(flags: MqttFlags): Model {
  const seconds = (ms: number | undefined): number | undefined => (ms === undefined ? undefined : ms / 1000)
  const dwell = seconds(flags.haDwellMs)
  const expire = seconds(flags.haExpireMs)
  const beacons =
    flags.haBeacons === undefined ? undefined : flags.haBeacons === 'auto' ? 'auto' : flags.haBeacons ? 'on' : 'off'
  return {
    ...(flags.gatewayId === undefined ? {} : { gateway: { id: flags.gatewayId } }),
    ...(flags.beaconNames === undefined ? {} : { beacons: flags.beaconNames.map((b) => ({ ...b })) }),
    mqtt: {
      url: flags.url,
      ...(flags.clientId === undefined ? {} : { clientId: flags.clientId }),
      ...(flags.username === undefined ? {} : { username: flags.username }),
      ...(flags.passwordFile === undefined ? {} : { passwordFile: flags.passwordFile }),
      ...(flags.password === undefined ? {} : { password: flags.password }),
      ...(flags.topicPrefix === undefined ? {} : { prefix: flags.topicPrefix }),
      ...(flags.tls === undefined ? {} : { tls: flags.tls }),
      ...(flags.queueDir === undefined ? {} : { queueDir: flags.queueDir }),
      ...(flags.rssiPartitions === undefined ? {} : { rssiPartitions: flags.rssiPartitions }),
      homeAssistant: {
        enabled: flags.homeAssistant,
        ...(dwell === undefined ? {} : { dwell }),
        ...(expire === undefined ? {} : { expire }),
        ...(beacons === undefined ? {} : { beacons }),
      },
    },
  }
}

/** `--http` / `--metrics` and the token as the model's `http` / `metrics`. */
export function listenSettingsModel(flags: HttpFlags): NonNullable<Model['http']> {
  return { listen: listenText(flags.host, flags.port), ...(flags.token === undefined ? {} : { token: flags.token }) }
}

/** `--upload` and its companions as the model's `upload`. */
function uploadSettingsModel(flags: UploadFlags): NonNullable<Model['upload']> {
  return {
    enabled: true,
    cloudUrl: flags.cloudUrl,
    email: flags.email,
    ...(flags.passwordFile === undefined ? {} : { passwordFile: flags.passwordFile }),
    ...(flags.password === undefined ? {} : { password: flags.password }),
    ...(flags.queueDir === undefined ? {} : { queueDir: flags.queueDir }),
  }
}

/** The view's filters as the model's `filters`. */
function filterModel(filter: FilterFlags): NonNullable<Model['filters']> {
  return { ...filter }
}

/** The view commands' flags (`scan`, `replay`, `simulate`) as the gateway's model (keys are read by the command). */
export function viewModel(view: ViewFlags): Model {
  return {
    filters: filterModel(view.filter),
    ...(view.irkFile === undefined ? {} : { irk: { file: view.irkFile } }),
    ...(view.mqtt === undefined ? {} : mqttSettingsModel(view.mqtt)),
    ...(view.upload === undefined ? {} : { upload: uploadSettingsModel(view.upload) }),
    ...(view.http === undefined ? {} : { http: listenSettingsModel(view.http) }),
    ...(view.metrics === undefined ? {} : { metrics: listenSettingsModel(view.metrics) }),
  }
}
