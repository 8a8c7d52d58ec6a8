/**
 * The D-Bus connection BluezSource talks through: @homebridge/dbus-native, loaded lazily
 * (importing beaconkit never loads it) and hidden behind a small promise-based interface so
 * the rest of the source never sees the library's callback and message shapes.
 *
 * Why @homebridge/dbus-native and not dbus-next (both measured, see BENCHMARKS.md "BlueZ: update
 * rate and CPU" and docs/troubleshooting.md
 * "Choosing noble or BlueZ"): it decodes a Device1 PropertiesChanged signal in ~4.8 µs against
 * dbus-next's ~6.1 µs on this project's reference machine, it is released and maintained
 * (0.7.x in 2026) while dbus-next 0.10.2 is the last release of a dormant project, and
 * dbus-next 0.10.2 cannot even marshal an integer-keyed dictionary such as BlueZ's
 * ManufacturerData `a{qv}` (our fake BlueZ in the tests needs that).
 *
 * Why a call timeout: dbus-native waits for a reply forever, and a bluetoothd that hangs
 * (it happens while an adapter is being reset) would freeze start() without a word.
 */

import { BluetoothUnavailableError } from '../../errors.js'

/** Kept in a variable so bundlers leave the import alone and TypeScript does not resolve it. */
const DBUS_MODULE = '@homebridge/dbus-native'

/** D-Bus message types (the specification's numbers). */
const METHOD_CALL = 1
const SIGNAL = 4

/** One message as dbus-native decodes it; bodies hold dbus-native's raw value trees. */
export interface DbusMessage {
  type: number
  path?: string
  interface?: string
  member?: string
  sender?: string
  signature?: string
  body?: unknown[]
}

/** A D-Bus error reply (`org.bluez.Error.NotReady`, `org.freedesktop.DBus.Error.AccessDenied`…). */
export class DbusCallError extends Error {
  /** The D-Bus error name. */
  readonly dbusName: string

  constructor(dbusName: string, message: string) {
    super(`${dbusName}: ${message}`)
    this.dbusName = dbusName
    this.name = 'DbusCallError'
  }
}

/** What BluezSource needs of a bus connection. */
export interface DbusConnection {
  /** Calls a method; resolves with the reply's body. @throws DbusCallError */
  call(
    destination: string,
    path: string,
    iface: string,
    member: string,
    signature?: string,
    body?: unknown[],
  ): Promise<unknown[]>
  /**
   * Serves a method on an object of ours (bluetoothd calling back an advertisement monitor);
   * `fn` gets the call's arguments and returns the reply body's single value, if any.
   */
  serve(
    path: string,
    iface: string,
    member: string,
    replySignature: string | undefined,
    fn: (...args: unknown[]) => unknown,
  ): void
  /** Every signal delivered to this connection (the match rules decide which). */
  onSignal(listener: (message: DbusMessage) => void): void
  /** The connection closed or failed; called once. */
  onClose(listener: (error: Error | undefined) => void): void
  /** Closes the connection; the bus then ends our discovery session by itself. */
  close(): void
}

interface NativeBus {
  connection: NativeConnection
  setMethodCallHandler(
    path: string,
    iface: string,
    member: string,
    handler: [(...args: unknown[]) => unknown, string | undefined],
  ): void
  invoke(message: Record<string, unknown>, callback: (error: unknown, ...body: unknown[]) => void): void
}

interface NativeConnection {
  on(event: string, listener: (...args: never[]) => void): void
  end(): void
}

interface NativeModule {
  createClient(options: { busAddress: string }): NativeBus
}

/** Where the system bus listens unless `DBUS_SYSTEM_BUS_ADDRESS` says otherwise (the D-Bus specification's default). */
export function systemBusAddress(): string {
  return process.env.DBUS_SYSTEM_BUS_ADDRESS || 'unix:path=/var/run/dbus/system_bus_socket'
}

async function loadModule(): Promise<NativeModule> {
  let loaded: unknown
  try {
    loaded = await import(DBUS_MODULE)
  } catch (error) {
    throw notInstalled(error)
  }
  // ESM import of a CommonJS module puts module.exports on `default`; a CJS build gets it directly.
  for (const candidate of [loaded, (loaded as { default?: unknown } | null)?.default]) {
    if (
      candidate !== null &&
      typeof candidate === 'object' &&
      typeof (candidate as NativeModule).createClient === 'function'
    ) {
      return candidate as NativeModule
    }
  }
  throw notInstalled(new Error(`${DBUS_MODULE} does not export createClient()`))
}

function notInstalled(cause: unknown): BluetoothUnavailableError {
  const why = cause instanceof Error ? cause.message : String(cause)
  return new BluetoothUnavailableError(
    'not_installed',
    `BluezSource needs the optional peer dependency ${DBUS_MODULE}, which could not be loaded (${why}). ` +
      `Install it: \`npm install ${DBUS_MODULE}\` (pure JavaScript, no build tools needed), or scan with ` +
      `NobleSource instead.`,
    { cause },
  )
}

function replyError(error: unknown): DbusCallError {
  const e = error as { name?: unknown; message?: unknown } | null
  const name = typeof e?.name === 'string' ? e.name : 'org.freedesktop.DBus.Error.Failed'
  const message = typeof e?.message === 'string' ? e.message : String(error)
  return new DbusCallError(name, message)
}

/**
 * Loads the D-Bus library and connects to the bus at `address`; resolves once the
 * authentication handshake is done.
 *
 * @throws BluetoothUnavailableError `not_installed` when the library is missing; the raw
 *   socket or handshake error (with its errno `code`) otherwise, for bluezErrorFrom to map.
 */
export async function connectBus(address: string, callTimeoutMs: number): Promise<DbusConnection> {
  const lib = await loadModule()
  const bus = lib.createClient({ busAddress: address })
  const connection = bus.connection
  const signalListeners: ((message: DbusMessage) => void)[] = []
  let closeListener: ((error: Error | undefined) => void) | undefined
  let closed = false
  let connected = false
  const pending = new Set<(error: Error) => void>()

  const finish = (error: Error | undefined): void => {
    if (closed) return
    closed = true
    for (const fail of pending)
      fail(error ?? new DbusCallError('org.freedesktop.DBus.Error.Disconnected', 'the bus connection closed'))
    pending.clear()
    closeListener?.(error)
  }

  await new Promise<void>((resolve, reject) => {
    // Something listening on the socket that never completes the handshake must not hang start().
    const timer = setTimeout(() => {
      reject(Object.assign(new Error(`no D-Bus handshake within ${callTimeoutMs} ms`), { code: 'ETIMEDOUT' }))
      finish(undefined)
      connection.end()
    }, callTimeoutMs)
    connection.on('connect', () => {
      clearTimeout(timer)
      connected = true
      resolve()
    })
    connection.on('error', (error: Error) => {
      clearTimeout(timer)
      if (!connected) reject(error)
      finish(error)
    })
    connection.on('end', () => {
      clearTimeout(timer)
      if (!connected)
        reject(Object.assign(new Error('the bus closed the connection during the handshake'), { code: 'ECONNRESET' }))
      finish(undefined)
    })
  })

  connection.on('message', (message: DbusMessage) => {
    if (closed || message.type !== SIGNAL) return
    for (const listener of signalListeners) listener(message)
  })

  return {
    call(destination, path, iface, member, signature, body) {
      if (closed)
        return Promise.reject(
          new DbusCallError('org.freedesktop.DBus.Error.Disconnected', 'the bus connection is closed'),
        )
      return new Promise<unknown[]>((resolve, reject) => {
        let done = false
        const fail = (error: Error): void => {
          if (done) return
          done = true
          clearTimeout(timer)
          pending.delete(fail)
          reject(error)
        }
        const timer = setTimeout(
          () =>
            fail(
              new DbusCallError(
                'org.freedesktop.DBus.Error.NoReply',
                `${iface}.${member} got no reply within ${callTimeoutMs} ms`,
              ),
            ),
          callTimeoutMs,
        )
        pending.add(fail)
        const message: Record<string, unknown> = { type: METHOD_CALL, destination, path, interface: iface, member }
        if (signature !== undefined) {
          message.signature = signature
          message.body = body ?? []
        }
        bus.invoke(message, (error, ...reply) => {
          if (done) return
          if (error !== null && error !== undefined) return fail(replyError(error))
          done = true
          clearTimeout(timer)
          pending.delete(fail)
          resolve(reply)
        })
      })
    },
    serve(path, iface, member, replySignature, fn) {
      // dbus-native passes the message itself as a last argument: keep it from `fn`.
      bus.setMethodCallHandler(path, iface, member, [(...args: unknown[]) => fn(...args.slice(0, -1)), replySignature])
    },
    onSignal(listener) {
      signalListeners.push(listener)
    },
    onClose(listener) {
      closeListener = listener
    },
    close() {
      if (closed) return
      finish(undefined)
      try {
        connection.end()
      } catch {
        // Already gone.
      }
    },
  }
}
