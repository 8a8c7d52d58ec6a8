/**
 * Loads noble lazily, one instance per HCI device.
 *
 * How noble 1.9.2-26 picks the adapter: lib/hci-socket/hci.js reads `options.deviceId`, else
 * the `NOBLE_HCI_DEVICE_ID` environment variable, once, when the bindings are constructed;
 * the package's main entry builds its singleton, at load time, from the environment.
 * `@abandonware/noble/with-custom-binding` instead exports a factory that builds a fresh
 * `Noble` around fresh bindings for the options given, so the adapter is chosen per instance
 * without touching `process.env`, and two sources can scan two adapters.
 *
 * Why cache per device: every noble instance opens its own raw socket, polls the adapter
 * every second (hci.js `pollIsDevUp`; control.ts ends it while no source uses the
 * instance) and installs an `exit` handler. Building one per `start()` would leak all of that;
 * one per adapter is bounded. noble's `SIGINT` handler, which calls `process.exit(1)` and so
 * skips the application's own clean shutdown, is removed right after loading.
 *
 * Why the factory call and the first `state` read sit inside try/catch: the native socket is
 * created in the factory (`new BluetoothHciSocket()` throws EAFNOSUPPORT / EPERM there) and
 * bound in `init()` (ENODEV). Reading `noble.state` runs `init()` synchronously, so its errors
 * arrive here with their errno code; letting noble init itself on the first `stateChange`
 * listener would run it in a `process.nextTick` that turns the error into a bare 'warning'.
 */

import { NobleControl } from './control.js'
import { bluetoothErrorFrom } from './errors.js'
import type { NobleFactory, NobleLike } from './types.js'

/** Kept in a variable so bundlers leave the import alone and TypeScript does not resolve it. */
const NOBLE_FACTORY_MODULE = '@abandonware/noble/with-custom-binding.js'

const instances = new Map<string, NobleLike>()

/**
 * One key per adapter: an explicit `hciDeviceId` and `NOBLE_HCI_DEVICE_ID` naming the same
 * adapter share one instance. Two instances on one adapter each begin a scan with a disable
 * that the other sees as "stopped by another program", and restart each other forever.
 */
function cacheKey(hciDeviceId: number | undefined): string {
  if (hciDeviceId !== undefined) return String(hciDeviceId)
  // noble reads the variable with parseInt (hci.js); an unset or unparsable one means "first adapter up".
  const fromEnv = Number.parseInt(process.env.NOBLE_HCI_DEVICE_ID ?? '', 10)
  return Number.isNaN(fromEnv) ? 'default' : String(fromEnv)
}

async function importFactory(hciDeviceId: number | undefined): Promise<NobleFactory> {
  let loaded: unknown
  try {
    loaded = await import(NOBLE_FACTORY_MODULE)
  } catch (error) {
    throw bluetoothErrorFrom(error, hciDeviceId)
  }
  // ESM import of a CommonJS module puts module.exports on `default`; a CJS build gets it directly.
  const candidate = typeof loaded === 'function' ? loaded : (loaded as { default?: unknown } | null)?.default
  if (typeof candidate !== 'function') {
    throw bluetoothErrorFrom(
      Object.assign(new Error(`${NOBLE_FACTORY_MODULE} does not export a factory function`), {
        code: 'MODULE_NOT_FOUND',
      }),
      hciDeviceId,
    )
  }
  return candidate as NobleFactory
}

/**
 * The noble instance for an adapter, created and initialised on first use.
 *
 * @throws BluetoothUnavailableError when noble is missing or the adapter cannot be opened.
 */
export async function loadNoble(hciDeviceId: number | undefined): Promise<NobleLike> {
  const key = cacheKey(hciDeviceId)
  const cached = instances.get(key)
  if (cached !== undefined) return cached
  const factory = await importFactory(hciDeviceId)
  const again = instances.get(key)
  if (again !== undefined) return again
  let noble: NobleLike
  try {
    noble = factory(hciDeviceId === undefined ? {} : { deviceId: hciDeviceId })
    // Before init(): the hooks must be in place when noble's first poll is scheduled.
    const control = NobleControl.install(noble)
    // The getter initialises the bindings synchronously; see the file comment.
    const _initialState: string = noble.state
    control.removeSigintHandler()
  } catch (error) {
    throw bluetoothErrorFrom(error, hciDeviceId)
  }
  instances.set(key, noble)
  return noble
}

/**
 * The cache key of another noble instance of this process that drives the same controller
 * (same BD_ADDR) as `noble`, if any: the default adapter and an explicit `hciDeviceId` can name
 * one adapter, which the cache keys cannot know before the adapter answered.
 */
export function sameAdapterElsewhere(noble: NobleLike): string | undefined {
  const address = noble.address
  if (address === undefined || address === 'unknown') return undefined
  for (const [key, other] of instances) if (other !== noble && other.address === address) return key
  return undefined
}

/** The warning for a noble instance that shares its controller with another one, if it does. */
export function sameAdapterWarning(noble: NobleLike): string | undefined {
  const other = sameAdapterElsewhere(noble)
  if (other === undefined) return undefined
  const named = other === 'default' ? 'the default adapter (no hciDeviceId)' : `hciDeviceId ${other}`
  return (
    `${named} and this source's adapter are the same controller (${noble.address}): ` +
    "two noble instances on one adapter stop each other's scans. " +
    'Name the adapter the same way everywhere (the same hciDeviceId, or none).'
  )
}
