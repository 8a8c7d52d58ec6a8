/**
 * What noble 1.9.2-26 gives no handle on, taken from its HCI layer per instance.
 *
 * noble has no API to close an instance, tell whether LE Set Scan Enable succeeded, or notice
 * that the controller was reset, and it installs a process SIGINT handler that exits. All of it
 * happens in lib/hci-socket/hci.js and bindings.js, through methods called as `this.method()`,
 * so replacing them on the instance (never on the shared prototype) reaches every call:
 *
 * - `pollIsDevUp` re-arms a one-second `setTimeout` forever and the started native socket holds
 *   a uv_poll handle: together they keep the process alive after the last `stop()` (a systemd
 *   stop then waits for SIGKILL). `park()` stops the socket and lets the poll chain end at its
 *   next tick; `unpark()` starts both again.
 * - `setScanEnabled` and `processCmdCompleteEvent` / `processCmdStatusEvent`: noble ignores the
 *   status of the enable (gap.js reports `scanStart` when the *disable* before it completes).
 *   Commands complete in order, so a FIFO of the enable flags written pairs each completion with
 *   its command: `'scanEnable'` reports (enable, status).
 * - an HCI Reset completing (the kernel re-initialising the adapter after `hciconfig reset` or
 *   a down/up faster than noble's poll) leaves the controller not scanning while noble believes
 *   it is: reported as `'reset'`.
 * - `onSocketError`: noble drops every socket error but EPERM; the last one is kept because it
 *   tells an unplugged adapter (EBADFD) from one that is merely down (ENETDOWN).
 *
 * Hooks are installed before noble's `init()` (its first poll binds `this.pollIsDevUp` then).
 */

import { EventEmitter } from 'eventemitter3'
import { ReportTracker } from './reports.js'
import type { NobleHciLike, NobleLike } from './types.js'

/** LE Set Scan Enable: OGF 0x08, OCF 0x000c. */
const LE_SET_SCAN_ENABLE = (0x08 << 10) | 0x000c
/** HCI Reset: OGF 0x03, OCF 0x0003. */
const HCI_RESET = (0x03 << 10) | 0x0003

/** Events of a {@link NobleControl}. */
export interface NobleControlEvents {
  /** An LE Set Scan Enable written by this instance completed; status 0 is success. */
  scanEnable: [enable: boolean, status: number]
  /** The controller was reset while noble kept running: scanning is off. */
  reset: []
}

/** One socket error as the native module reported it. */
export interface SocketErrorInfo {
  code: string
  message: string
}

const controls = new WeakMap<NobleLike, NobleControl>()

/** The control of a noble instance, when {@link NobleControl.install} ran on it. */
export function nobleControl(noble: NobleLike): NobleControl | undefined {
  return controls.get(noble)
}

/** Hooks into one noble instance's HCI layer; see the file comment. */
export class NobleControl extends EventEmitter<NobleControlEvents> {
  /** Per-packet facts and held-back advertisements (reports.ts); absent without noble's HCI layer. */
  readonly reports: ReportTracker | undefined
  /** The most recent socket error, until the adapter is powered on again. */
  lastSocketError: SocketErrorInfo | undefined
  private readonly hci: NobleHciLike | undefined
  private parked = false
  /** Whether noble's one-second poll is scheduled (it ends at its next tick while parked). */
  private polling = true
  /** Enable flags of the LE Set Scan Enable commands written and not yet completed, oldest first. */
  private readonly pendingEnables: boolean[] = []
  private writeFailed = false

  private constructor(private readonly noble: NobleLike) {
    super()
    const hci = noble._bindings?._hci
    const methods = [
      'pollIsDevUp',
      'onSocketError',
      'processCmdCompleteEvent',
      'processCmdStatusEvent',
      'setScanEnabled',
    ] as const
    if (
      hci !== undefined &&
      methods.every((m) => typeof hci[m] === 'function') &&
      typeof hci._socket?.stop === 'function'
    ) {
      this.hci = hci
    }
    const bindings = noble._bindings
    const listens =
      hci !== undefined && typeof hci.prependListener === 'function' && typeof bindings?._gap?.on === 'function'
    this.reports = listens && bindings !== undefined ? new ReportTracker(hci, bindings) : undefined
  }

  /**
   * noble internals beaconkit relies on that this noble instance lacks, in words for a warning
   * (the peer range admits any 1.x). Checked at every source start: pruning, releasing the
   * process and the scan confirmations would otherwise stop working without a word.
   * Bindings without an HCI layer (macOS, Windows) are not expected to have its parts.
   */
  problems(): string[] {
    const out: string[] = []
    const bindings = this.noble._bindings
    const hciBindings = bindings !== undefined && (bindings._hci !== undefined || bindings._gap !== undefined)
    if (hciBindings && this.hci === undefined) {
      out.push(
        'HCI layer (lib/hci-socket/hci.js) is not shaped as expected: stop() cannot release the process, ' +
          'and failed scan ' +
          'starts, adapter resets and unplugged adapters go unnoticed',
      )
    }
    if (hciBindings && this.reports === undefined) {
      out.push(
        'GAP layer cannot be followed: advertisements it holds back when a scan response is lost stay unreported',
      )
    }
    if (hciBindings && (bindings._gap?._discoveries === null || typeof bindings._gap?._discoveries !== 'object')) {
      out.push('GAP layer has no _discoveries map: pruning cannot bound its memory')
    }
    if (hciBindings && (bindings._addresses === null || typeof bindings._addresses !== 'object')) {
      out.push('HCI bindings have no _addresses map: pruning cannot bound their memory')
    }
    if (this.noble._peripherals === null || typeof this.noble._peripherals !== 'object') {
      out.push('instance has no _peripherals map: pruning cannot bound its memory')
    }
    return out
  }

  /**
   * Creates the control of a fresh noble instance and hooks it; call before anything reads
   * `noble.state` (which runs noble's `init()`).
   */
  static install(noble: NobleLike): NobleControl {
    const existing = controls.get(noble)
    if (existing !== undefined) return existing
    const control = new NobleControl(noble)
    control.hook()
    controls.set(noble, control)
    return control
  }

  /** noble's bindings.js adds a SIGINT listener that calls process.exit(1); remove exactly that one. */
  removeSigintHandler(): void {
    const handler = this.noble._bindings?.onSigIntBinded
    if (typeof handler === 'function') process.removeListener('SIGINT', handler)
  }

  /** Releases the event loop: the socket stops polling and noble's one-second timer ends at its next tick. */
  park(): void {
    const hci = this.hci
    if (hci === undefined || this.parked) return
    this.parked = true
    this.pendingEnables.length = 0
    hci._socket?.stop()
  }

  /** Undoes {@link park}. */
  unpark(): void {
    const hci = this.hci
    if (hci === undefined || !this.parked) return
    this.parked = false
    hci._socket?.start()
    if (!this.polling) {
      this.polling = true
      hci.pollIsDevUp()
    }
  }

  private hook(): void {
    const hci = this.hci
    if (hci === undefined) return
    const original = {
      poll: hci.pollIsDevUp,
      socketError: hci.onSocketError,
      complete: hci.processCmdCompleteEvent,
      status: hci.processCmdStatusEvent,
      enable: hci.setScanEnabled,
    }
    hci.pollIsDevUp = () => {
      if (this.parked) {
        this.polling = false
        return
      }
      original.poll.call(hci)
    }
    hci.onSocketError = (error) => {
      this.writeFailed = true
      this.lastSocketError = { code: String(error?.code ?? 'error'), message: String(error?.message ?? error) }
      original.socketError.call(hci, error)
    }
    hci.setScanEnabled = (enabled, filterDuplicates) => {
      // The native module reports a failed write synchronously: such a command never completes.
      this.writeFailed = false
      original.enable.call(hci, enabled, filterDuplicates)
      if (!this.writeFailed) this.pendingEnables.push(enabled)
    }
    hci.processCmdCompleteEvent = (cmd, status, result) => {
      original.complete.call(hci, cmd, status, result)
      if (cmd === LE_SET_SCAN_ENABLE) this.completed(status)
      else if (cmd === HCI_RESET && status === 0) {
        this.pendingEnables.length = 0
        this.emit('reset')
      }
    }
    hci.processCmdStatusEvent = (cmd, status) => {
      original.status.call(hci, cmd, status)
      // A Command Status for LE Set Scan Enable only ever carries a refusal.
      if (cmd === LE_SET_SCAN_ENABLE && status !== 0) this.completed(status)
    }
    hci.on('stateChange', (state: string) => {
      if (state === 'poweredOn') this.lastSocketError = undefined
      else this.pendingEnables.length = 0
    })
  }

  private completed(status: number): void {
    // A completion with nothing pending answers another program's command on the same adapter.
    const enable = this.pendingEnables.shift()
    if (enable !== undefined) this.emit('scanEnable', enable, status)
  }
}
