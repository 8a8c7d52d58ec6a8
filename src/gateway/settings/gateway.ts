/**
 * The model as the settings of a gateway's parts: the upload, MQTT and Home Assistant, the
 * live map, the metrics server and the scanner's filter, each decided by its own module of this
 * folder; every problem of them all in one ConfigError.
 */

import type { BeaconkitConfig } from '../../config/load-config.js'
import type { BeaconFilter } from '../../range/filter.js'
import { filterSettings } from './filter.js'
import { listenSettings } from './listen.js'
import type { ListenSettings } from './listen.js'
import { mqttSettings } from './mqtt.js'
import type { MqttSettings } from './mqtt.js'
import { SettingProblems } from './problems.js'
import { uploadSettings } from './upload.js'
import type { UploadSettings } from './upload.js'

/** What a gateway runs, every default decided. */
export interface GatewaySettings {
  filter: BeaconFilter
  upload?: UploadSettings
  mqtt?: MqttSettings
  http?: ListenSettings
  metrics?: ListenSettings
}

/**
 * The gateway's settings.
 * @throws ConfigError (`invalid_config`) naming every bad setting by its path
 */
export function gatewaySettings(model: BeaconkitConfig): GatewaySettings {
  const problems = new SettingProblems()
  const settings = decideGateway(model, problems)
  problems.throwIfAny()
  return settings
}

/** The gateway's settings, every problem added to `problems` (in the order a command reports them). */
export function decideGateway(model: BeaconkitConfig, problems: SettingProblems): GatewaySettings {
  const filter = filterSettings(model, problems)
  const upload = uploadSettings(model, problems)
  const mqtt = mqttSettings(model, problems)
  const http = listenSettings(model, 'http', problems)
  const metrics = listenSettings(model, 'metrics', problems)
  return {
    filter,
    ...(upload === undefined ? {} : { upload }),
    ...(mqtt === undefined ? {} : { mqtt }),
    ...(http === undefined ? {} : { http }),
    ...(metrics === undefined ? {} : { metrics }),
  }
}
