/**
 * A user-space stand-in for @abandonware/bluetooth-hci-socket, so noble's real HCI and GAP
 * code runs in tests without Bluetooth hardware or kernel support.
 *
 * It implements the API noble's lib/hci-socket/hci.js uses (constructor, bindRaw/bindUser/
 * bindControl, setFilter, start, stop, write, isDevUp, getDeviceList, 'data'/'error' events)
 * and plays a Bluetooth 5.0 controller: every command gets a successful Command Complete with
 * plausible return parameters, asynchronously as from a real socket. Tests drive a
 * `FakeHciDevice`: inject advertising reports, power the adapter off and on, stall the scan,
 * or act as another program on the same adapter; and read back the commands noble sent.
 */

import { EventEmitter } from 'node:events'
import {
  HCI_COMMAND_PKT,
  OP,
  addressBytes,
  commandComplete,
  commandPacket,
  leAdvertisingReport,
} from './hci-packets.js'
import type { AdvertisingReport } from './hci-packets.js'

/** One command noble wrote. */
export interface RecordedCommand {
  opcode: number
  params: Buffer
}

/** An operating-system error as the native module throws it. */
function osError(code: string, errno: number, message: string, syscall: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}, ${message}`), { code, errno, syscall })
}

/** One simulated adapter (hciN). */
export class FakeHciDevice {
  /** Whether the interface is up (what `hciconfig hciN up/down` toggles). */
  up = true
  /** HCI version in Read Local Version; noble calls anything below 0x06 (BT 4.0) 'unsupported'. */
  hciVersion = 0x09
  /** When false, commands are swallowed: a controller that hangs. */
  responsive = true
  /** While true, advertising reports are dropped until scanning is re-enabled (a silent stall). */
  stalled = false
  scanEnabled = false
  filterDuplicates = false
  readonly commands: RecordedCommand[] = []
  readonly sockets = new Set<FakeBluetoothHciSocket>()

  constructor(
    readonly id: number,
    readonly address = `00:1a:7d:da:71:${id.toString(16).padStart(2, '0')}`,
  ) {}

  /** Takes the interface down: noble's 1 s poll of isDevUp() reports 'poweredOff'. */
  powerOff(): void {
    this.up = false
    this.scanEnabled = false
  }

  /** Brings the interface back: noble re-initialises and reports 'poweredOn'. */
  powerOn(): void {
    this.up = true
  }

  /** Stops delivering reports, silently, until the next LE Set Scan Enable (enable). */
  stall(): void {
    this.stalled = true
  }

  /** The LE Set Scan Enable commands received so far. */
  scanEnableCommands(): { enable: boolean; filterDuplicates: boolean }[] {
    return this.commands
      .filter((c) => c.opcode === OP.LE_SET_SCAN_ENABLE)
      .map((c) => ({ enable: c.params[0] === 1, filterDuplicates: c.params[1] === 1 }))
  }

  /** Delivers one advertising report as the controller would; false when it would not arrive. */
  inject(report: AdvertisingReport): boolean {
    if (!this.up || !this.scanEnabled || this.stalled) return false
    return this.deliver(leAdvertisingReport(report))
  }

  /**
   * What a raw socket sees when another program (bluetoothd, hcitool) sends a command to the
   * same adapter: the kernel copies it to every other raw socket.
   */
  foreignCommand(op: number, params: number[]): void {
    if (op === OP.LE_SET_SCAN_ENABLE) this.scanEnabled = params[0] === 1
    this.deliver(commandPacket(op, params))
  }

  /** Sends a packet to every started socket bound to this device. */
  deliver(packet: Buffer): boolean {
    let delivered = false
    for (const socket of this.sockets) {
      if (socket.started) {
        socket.emit('data', packet)
        delivered = true
      }
    }
    return delivered
  }

  /** Handles a command from a socket and answers it like a controller. */
  receive(packet: Buffer): void {
    if (packet[0] !== HCI_COMMAND_PKT) return
    const op = packet.readUInt16LE(1)
    const params = Buffer.from(packet.subarray(4, 4 + packet[3]))
    this.commands.push({ opcode: op, params })
    if (!this.responsive) return
    if (op === OP.LE_SET_SCAN_ENABLE) {
      this.scanEnabled = params[0] === 1
      this.filterDuplicates = params[1] === 1
      if (this.scanEnabled) this.stalled = false
    }
    const reply = commandComplete(op, 0, this.returnParameters(op))
    setImmediate(() => {
      if (this.up) this.deliver(reply)
    })
  }

  private returnParameters(op: number): Buffer {
    switch (op) {
      case OP.READ_LOCAL_VERSION: {
        const b = Buffer.alloc(8)
        b[0] = this.hciVersion
        b.writeUInt16LE(0x0100, 1) // HCI revision
        b[3] = this.hciVersion // LMP version
        b.writeUInt16LE(0x000f, 4) // manufacturer: Broadcom
        b.writeUInt16LE(0x2209, 6) // LMP subversion
        return b
      }
      case OP.READ_BD_ADDR:
        return addressBytes(this.address)
      case OP.READ_LE_HOST_SUPPORTED:
        return Buffer.from([1, 0])
      case OP.LE_READ_BUFFER_SIZE:
        return Buffer.from([0xfb, 0x00, 8]) // 251-byte ACL packets, 8 of them
      case OP.READ_BUFFER_SIZE:
        return Buffer.from([0xfd, 0x03, 0x40, 0x08, 0x00, 0x00, 0x00])
      default:
        return Buffer.alloc(0)
    }
  }
}

/** Registry of fake adapters and failure switches, shared by every fake socket of the process. */
export const fakeHci = {
  devices: new Map<number, FakeHciDevice>(),
  /** Adapter numbers that do not exist: bindRaw throws ENODEV. */
  missing: new Set<number>(),
  /** When set, constructing a socket throws this errno code (e.g. 'EPERM', 'EAFNOSUPPORT'). */
  constructError: undefined as string | undefined,

  /** The device for hciN, created on first use. */
  device(id: number): FakeHciDevice {
    let device = this.devices.get(id)
    if (device === undefined) {
      device = new FakeHciDevice(id)
      this.devices.set(id, device)
    }
    return device
  },
}

const ERRNO: Record<string, [number, string]> = {
  EPERM: [1, 'Operation not permitted'],
  EACCES: [13, 'Permission denied'],
  EAFNOSUPPORT: [97, 'Address family not supported by protocol'],
}

/** The class noble constructs instead of the native BluetoothHciSocket. */
export class FakeBluetoothHciSocket extends EventEmitter {
  started = false
  filter: Buffer | undefined
  private device: FakeHciDevice | undefined

  constructor() {
    super()
    const code = fakeHci.constructError
    if (code !== undefined) {
      const [errno, message] = ERRNO[code] ?? [0, 'Unknown error']
      throw osError(code, errno, message, 'socket')
    }
  }

  bindRaw(devId?: number): number {
    const id = devId ?? 0
    if (fakeHci.missing.has(id)) throw osError('ENODEV', 19, 'No such device', 'bind')
    this.device?.sockets.delete(this)
    this.device = fakeHci.device(id)
    this.device.sockets.add(this)
    return id
  }

  bindUser(devId?: number): number {
    return this.bindRaw(devId)
  }

  bindControl(): number {
    return 0
  }

  getDeviceList(): { devId: number; devUp: boolean; idVendor: null; idProduct: null; busNumber: null; deviceAddress: null }[] {
    return [...fakeHci.devices.values()].map((d) => ({
      devId: d.id,
      devUp: d.up,
      idVendor: null,
      idProduct: null,
      busNumber: null,
      deviceAddress: null,
    }))
  }

  isDevUp(): boolean {
    return this.device?.up ?? false
  }

  setFilter(filter: Buffer): void {
    this.filter = Buffer.from(filter)
  }

  start(): void {
    this.started = true
  }

  stop(): void {
    this.started = false
  }

  reset(): void {}

  cleanup(): void {}

  write(data: Buffer): void {
    const device = this.device
    if (device === undefined) return
    if (!device.up) {
      // The kernel refuses writes to a downed interface; noble ignores exactly this message.
      const error = Object.assign(new Error('Network is down'), { code: 'ENETDOWN', errno: 100, syscall: 'write' })
      setImmediate(() => this.emit('error', error))
      return
    }
    device.receive(Buffer.from(data))
  }
}
