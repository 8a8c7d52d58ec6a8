/**
 * The fleet's ESPHome proxies (#38, docs/esphome.md) as two parts: the keys file, read first so a
 * file others can read (or a bad line) fails before a broker starts, and the proxies, started
 * after the foreign-input bridge so its subscription to the gateways' statuses has seen the
 * retained native ones. Each proxy online is a direct node of the bridge (a BeaconScanner with
 * the fleet's keyring and a publisher as gateway `<DeviceInfo name>`, `via` the bridge), so its
 * advertisements take the one decode and fusion path; its connection is its liveness.
 */

import type { Advertisement } from '../advertisement.js'
import type { ForeignBridge } from '../inputs/bridge.js'
import { EspHomeInputs } from '../inputs/esphome/inputs.js'
import { EspHomeKeys } from '../inputs/esphome/keys.js'
import { targetText } from '../inputs/esphome/target.js'
import type { FleetContext } from './fleet-context.js'
import type { PartFactory } from './part.js'

type Factory = PartFactory<FleetContext>

/** `fleet.esphomeKeys`: the keys of the encrypted proxies; what does not fit the inputs is a warning. */
export const esphomeKeysPart: Factory = ({ settings, log, running }) => {
  const file = settings.esphomeKeys
  if (file === undefined) return undefined
  return {
    name: 'esphome-keys',
    start: async () => {
      // Throws InvalidOptionError (config_not_private, file_not_found, invalid_option): exit 2, no key in it.
      const keys = await EspHomeKeys.fromFile(file)
      running.esphomeKeys = keys
      const inputs = new Set((settings.esphome ?? []).map((i) => targetText(i.target)))
      if (inputs.size === 0) log.warn('--esphome-keys without any --input esphome:<host>: the keys are not used')
      // Names the target only, never its key.
      else for (const t of keys.targets()) if (!inputs.has(t)) log.warn(`esphome keys: ${t} is not an --input esphome:`)
    },
    stop: async () => undefined,
  }
}

/** A proxy's node on the bridge while it is online. */
type DirectNode = NonNullable<ReturnType<ForeignBridge['directNode']>> & { offsetDb: number }

/** The `esphome:` inputs: each proxy a gateway of the fleet while it is connected. */
export const esphomePart: Factory = ({ settings, log, running }) => {
  const list = settings.esphome
  if (list === undefined) return undefined
  const offsets = new Map(list.map((i) => [targetText(i.target), i.rssiOffsetDb ?? 0]))
  const nodes = new Map<string, DirectNode>()
  let inputs: EspHomeInputs | undefined
  return {
    name: 'esphome',
    start: async () => {
      const bridge = running.inputs
      // The inputs part builds a bridge whenever there are esphome: inputs.
      if (bridge === undefined) throw new Error('startFleet: the foreign-input bridge was not started')
      const keys = running.esphomeKeys
      inputs = new EspHomeInputs({
        targets: list.map((i) => i.target),
        ...(keys === undefined ? {} : { keys }),
        isNative: (id) => bridge.isNative(id),
      })
      running.esphome = inputs
      inputs.on('online', (gateway, target, info) => {
        const node = bridge.directNode(gateway)
        if (node === undefined) {
          log.warn(`esphome: ${gateway} (${target}) online, but the fleet cannot take it as a gateway (see above)`)
          return
        }
        nodes.set(gateway, { ...node, offsetDb: offsets.get(target) ?? 0 })
        log.info(`esphome: ${gateway} (${target}, ESPHome ${info.esphomeVersion}) online`)
      })
      inputs.on('advertisement', (adv: Advertisement, gateway) => {
        const node = nodes.get(gateway)
        if (node === undefined) return
        node.source.push({ ...adv, rssi: adv.rssi + node.offsetDb, timestamp: bridge.clock.now() })
      })
      inputs.on('offline', (gateway, target, error) => {
        const node = nodes.get(gateway)
        nodes.delete(gateway)
        void node?.close()
        log.warn(`esphome: ${gateway} (${target}) offline: ${error.message}`)
      })
      // Once per change of reason (EspHomeProxy); the message names the device, never a key.
      inputs.on('error', (error) => log.warn(`esphome: ${error.message}`))
      inputs.on('quiet', (gateway, target) =>
        log.warn(
          `esphome: ${gateway} (${target}) sent no advertisement for a minute: does Home Assistant hold its ` +
            'subscription? (docs/esphome.md)',
        ),
      )
      inputs.start()
    },
    stop: async () => {
      inputs?.stop()
      const open = [...nodes.values()]
      nodes.clear()
      await Promise.all(open.map((n) => n.close()))
    },
  }
}
