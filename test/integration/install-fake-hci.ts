/**
 * Makes noble load the fake HCI socket instead of the native module. Must run before anything
 * requires noble's lib/hci-socket/hci.js in this process (vitest gives each test file its own).
 *
 * How: noble's hci.js does `require('@abandonware/bluetooth-hci-socket')`. Resolving that
 * name from hci.js's own directory gives the exact file Node will load; a finished Module with
 * our class as `exports` placed in the CommonJS cache under that filename is returned by
 * `require` without touching the native .node file. The ESM `import()` of noble in
 * NobleSource goes through the same CommonJS loader for noble's CJS files, so it sees the
 * same cache.
 */

import Module, { createRequire } from 'node:module'
import { FakeBluetoothHciSocket, fakeHci } from './fake-hci-socket.js'

const require = createRequire(import.meta.url)

/** Installs the fake; returns the registry tests drive. Idempotent. */
export function installFakeHciSocket(): typeof fakeHci {
  const hciJs = require.resolve('@abandonware/noble/lib/hci-socket/hci.js')
  if (require.cache[hciJs] !== undefined && !isFakeInstalled()) {
    throw new Error('noble was loaded before the fake HCI socket was installed; install it first')
  }
  const socketPath = createRequire(hciJs).resolve('@abandonware/bluetooth-hci-socket')
  const fake = new Module(socketPath)
  fake.filename = socketPath
  fake.loaded = true
  fake.exports = FakeBluetoothHciSocket
  require.cache[socketPath] = fake
  return fakeHci
}

function isFakeInstalled(): boolean {
  const hciJs = require.resolve('@abandonware/noble/lib/hci-socket/hci.js')
  const socketPath = createRequire(hciJs).resolve('@abandonware/bluetooth-hci-socket')
  return require.cache[socketPath]?.exports === FakeBluetoothHciSocket
}
