/**
 * A user-space stand-in for @abandonware/bluetooth-hci-socket, so noble's real HCI and GAP
 * code runs in tests without Bluetooth hardware or kernel support.
 *
 * It implements the API noble's lib/hci-socket/hci.js uses (constructor, bindRaw/bindUser/
 * bindControl, setFilter, start, stop, write, isDevUp, getDeviceList, 'data'/'error' events)
 * and plays a Bluetooth 5.0 controller behind the Linux kernel: every command gets a Command
 * Complete with plausible return parameters, asynchronously as from a real socket. What the
 * kernel and the native module do that noble depends on is reproduced too, because the
 * failures worth testing live there:
 *
 * - a started socket holds the event loop open (the native module's uv_poll handle), a
 *   stopped one does not;
 * - write errors are emitted synchronously, from inside `write()`, with the native module's
 *   message format (`'ENETDOWN, Network is down'`);
 * - a command written on one raw socket is copied to every other raw socket of the adapter
 *   (that is how noble sees another program's LE Set Scan Enable), and so are the commands the
 *   kernel sends itself while bringing the adapter up (HCI Reset);
 * - unplugging detaches the sockets bound to the adapter for good: writes then fail with
 *   EBADFD, even after a device with the same number comes back;
 * - the controller honours the duplicate-filter flag of LE Set Scan Enable.
 *
 * Tests drive a `FakeHciDevice`: inject advertising reports (several per event if asked),
 * power the adapter off and on, reset or unplug it, stall the scan, make commands fail, or act
 * as another program on the same adapter; and read back the commands noble sent.
 */

import { EventEmitter } from 'node:events'
import {
  HCI_COMMAND_PKT,
  OP,
  addressBytes,
  commandComplete,
  commandPacket,
  commandStatus,
  leAdvertisingReports,
} from './hci-packets.js'
import type { AdvertisingReport } from './hci-packets.js'

/** One command noble wrote. */
export interface RecordedCommand {
  opcode: number
  params: Buffer
}

/** How the controller should refuse a command. */
export interface CommandFailure {
  /** HCI error code, e.g. 0x0c Command Disallowed. */
  status: number
  /**
   * 'complete': Command Complete with the status (what most controllers do); 'status': a
   * Command Status event; 'silence': no answer at all (a controller that lost the command).
   */
  via: 'complete' | 'status' | 'silence'
  /** Only commands whose parameters match, e.g. `(p) => p[0] === 1` for the enable of LE Set Scan Enable. */
  match?: (params: Buffer) => boolean
  /** How many times; then the command works again. */
  times: number
}

const ERRNO: Record<string, [number, string]> = {
  EPERM: [1, 'Operation not permitted'],
  EACCES: [13, 'Permission denied'],
  ENODEV: [19, 'No such device'],
  EBADFD: [77, 'File descriptor in bad state'],
  EAFNOSUPPORT: [97, 'Address family not supported by protocol'],
  ENETDOWN: [100, 'Network is down'],
}

/** An operating-system error as the native module builds it (Nan::ErrnoException: "CODE, message"). */
function osError(code: string, syscall: string): NodeJS.ErrnoException {
  const [errno, message] = ERRNO[code] ?? [0, 'Unknown error']
  return Object.assign(new Error(`${code}, ${message}`), { code, errno, syscall })
}

/** One simulated adapter (hciN). */
export class FakeHciDevice extends EventEmitter {
  /** Whether the interface is up (what `hciconfig hciN up/down` toggles). */
  up = true
  /** False while unplugged: the adapter number does not exist. */
  present = true
  /** HCI version in Read Local Version; noble calls anything below 0x06 (BT 4.0) 'unsupported'. */
  hciVersion = 0x09
  /** When false, commands are swallowed: a controller that hangs. */
  responsive = true
  /** While true, advertising reports are dropped until scanning is re-enabled (a silent stall). */
  stalled = false
  /** When set, every write fails synchronously with this errno code (e.g. 'EPERM' without cap_net_raw). */
  writeError: string | undefined
  scanEnabled = false
  filterDuplicates = false
  readonly commands: RecordedCommand[] = []
  readonly sockets = new Set<FakeBluetoothHciSocket>()
  private readonly failures = new Map<number, CommandFailure>()
  /** Address and PDU type pairs reported since scanning was enabled, for the duplicate filter. */
  private readonly reportedSinceEnable = new Set<string>()

  constructor(
    readonly id: number,
    readonly address = `00:1a:7d:da:71:${id.toString(16).padStart(2, '0')}`,
  ) {
    super()
  }

  /** Takes the interface down: noble's 1 s poll of isDevUp() reports 'poweredOff'. */
  powerOff(): void {
    this.up = false
    this.setScan(false, false)
  }

  /** Brings the interface back: noble re-initialises and reports 'poweredOn'. */
  powerOn(): void {
    this.up = true
  }

  /**
   * The adapter resets while staying up, as `hciconfig hciN reset` (a down and an up within
   * one of noble's 1 s polls) or a firmware reset does: the controller forgets that it was
   * scanning, and the raw sockets see the HCI Reset the kernel sends and its Command Complete.
   */
  resetWhileUp(): void {
    this.setScan(false, false)
    this.deliver(commandPacket(OP.RESET))
    setImmediate(() => this.deliver(commandComplete(OP.RESET, 0)))
  }

  /**
   * The USB dongle is pulled (or a UART adapter detached): the sockets bound to it are
   * detached by the kernel and stay so; the adapter number disappears.
   */
  unplug(): void {
    this.present = false
    this.up = false
    this.setScan(false, false)
    for (const socket of this.sockets) socket.detach()
    this.sockets.clear()
  }

  /** The dongle comes back under the same number, up; sockets detached by unplug() stay detached. */
  replug(): void {
    this.present = true
    this.up = true
  }

  /** Stops delivering reports, silently, until the next LE Set Scan Enable (enable). */
  stall(): void {
    this.stalled = true
  }

  /** Refuses the next `times` (default 1) commands with opcode `op`. */
  failCommand(op: number, failure: Partial<CommandFailure> & { status: number }): void {
    this.failures.set(op, { via: 'complete', times: 1, ...failure })
  }

  /** The LE Set Scan Enable commands received so far. */
  scanEnableCommands(): { enable: boolean; filterDuplicates: boolean }[] {
    return this.commands
      .filter((c) => c.opcode === OP.LE_SET_SCAN_ENABLE)
      .map((c) => ({ enable: c.params[0] === 1, filterDuplicates: c.params[1] === 1 }))
  }

  /** Delivers one advertising report as the controller would; false when it would not arrive. */
  inject(report: AdvertisingReport): boolean {
    return this.injectMany([report]) === 1
  }

  /**
   * Delivers the reports the controller would pass on (scanning, not stalled, not filtered as
   * duplicates) in one LE Advertising Report event; returns how many were in it.
   */
  injectMany(reports: readonly AdvertisingReport[]): number {
    if (!this.up || !this.scanEnabled || this.stalled) return 0
    const passed = reports.filter((r) => {
      if (!this.filterDuplicates) return true
      const key = `${r.address}/${r.type}`
      if (this.reportedSinceEnable.has(key)) return false
      this.reportedSinceEnable.add(key)
      return true
    })
    if (passed.length === 0) return 0
    return this.deliver(leAdvertisingReports(passed)) ? passed.length : 0
  }

  /**
   * What a raw socket sees when another program (bluetoothd, hcitool) sends a command to the
   * same adapter: the kernel copies it to every other raw socket.
   */
  foreignCommand(op: number, params: number[]): void {
    if (op === OP.LE_SET_SCAN_ENABLE) this.setScan(params[0] === 1, params[1] === 1)
    this.deliver(commandPacket(op, params))
  }

  /** Sends a packet to every started socket bound to this device except `except`. */
  deliver(packet: Buffer, except?: FakeBluetoothHciSocket): boolean {
    let delivered = false
    for (const socket of this.sockets) {
      if (socket.started && socket !== except) {
        socket.emit('data', packet)
        delivered = true
      }
    }
    return delivered
  }

  /** Handles a command written on `from` and answers it like a controller. */
  receive(packet: Buffer, from?: FakeBluetoothHciSocket): void {
    if (packet[0] !== HCI_COMMAND_PKT) return
    const op = packet.readUInt16LE(1)
    const params = Buffer.from(packet.subarray(4, 4 + packet[3]))
    this.commands.push({ opcode: op, params })
    // The kernel copies every command of a raw socket to the adapter's other raw sockets.
    this.deliver(Buffer.from(packet), from)
    if (!this.responsive) return
    const failure = this.failures.get(op)
    let reply: Buffer
    if (failure !== undefined && (failure.match === undefined || failure.match(params))) {
      if (--failure.times <= 0) this.failures.delete(op)
      if (failure.via === 'silence') return
      reply = failure.via === 'status' ? commandStatus(op, failure.status) : commandComplete(op, failure.status)
    } else {
      if (op === OP.LE_SET_SCAN_ENABLE) this.setScan(params[0] === 1, params[1] === 1)
      reply = commandComplete(op, 0, this.returnParameters(op))
    }
    setImmediate(() => {
      if (this.up) this.deliver(reply)
    })
  }

  private setScan(enable: boolean, filterDuplicates: boolean): void {
    const wasEnabled = this.scanEnabled
    this.scanEnabled = enable
    this.filterDuplicates = enable && filterDuplicates
    if (enable) this.stalled = false
    // A fresh enable starts a fresh duplicate filter, as controllers do.
    if (enable && !wasEnabled) this.reportedSinceEnable.clear()
    if (enable !== wasEnabled) this.emit('scanEnable', enable)
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

/** The class noble constructs instead of the native BluetoothHciSocket. */
export class FakeBluetoothHciSocket extends EventEmitter {
  started = false
  filter: Buffer | undefined
  private device: FakeHciDevice | undefined
  /** The adapter number bound; isDevUp() asks the kernel about it by number, as the native module does. */
  private devId: number | undefined
  /** Set when the adapter was unplugged: the kernel never re-attaches the socket. */
  private detached = false
  /** Stands in for the native uv_poll handle: keeps the event loop alive while started. */
  private poll: NodeJS.Timeout | undefined

  constructor() {
    super()
    const code = fakeHci.constructError
    if (code !== undefined) throw osError(code, 'socket')
  }

  bindRaw(devId?: number): number {
    const id = devId ?? 0
    if (fakeHci.missing.has(id) || fakeHci.devices.get(id)?.present === false) throw osError('ENODEV', 'bind')
    this.device?.sockets.delete(this)
    this.device = fakeHci.device(id)
    this.device.sockets.add(this)
    this.devId = id
    this.detached = false
    return id
  }

  bindUser(devId?: number): number {
    return this.bindRaw(devId)
  }

  bindControl(): number {
    return 0
  }

  getDeviceList(): { devId: number; devUp: boolean; idVendor: null; idProduct: null; busNumber: null; deviceAddress: null }[] {
    return [...fakeHci.devices.values()]
      .filter((d) => d.present)
      .map((d) => ({ devId: d.id, devUp: d.up, idVendor: null, idProduct: null, busNumber: null, deviceAddress: null }))
  }

  isDevUp(): boolean {
    if (this.devId === undefined) return false
    const device = fakeHci.devices.get(this.devId)
    return device !== undefined && device.present && device.up
  }

  setFilter(filter: Buffer): void {
    this.filter = Buffer.from(filter)
  }

  start(): void {
    this.started = true
    this.poll ??= setInterval(() => {}, 1 << 30)
  }

  stop(): void {
    this.started = false
    clearInterval(this.poll)
    this.poll = undefined
  }

  reset(): void {}

  cleanup(): void {}

  /** Called by FakeHciDevice.unplug(). */
  detach(): void {
    this.detached = true
    this.device = undefined
  }

  write(data: Buffer): void {
    const device = this.device
    // The native module emits write errors synchronously, from inside write().
    if (this.detached) return void this.emit('error', osError('EBADFD', 'write'))
    if (device === undefined) return
    if (device.writeError !== undefined) return void this.emit('error', osError(device.writeError, 'write'))
    if (!device.up) return void this.emit('error', osError('ENETDOWN', 'write'))
    device.receive(Buffer.from(data), this)
  }
}
