/** `beaconkit scan`: the adapters (noble or BlueZ) through the views, or a recording when there is no Bluetooth. */

import { AdapterError, BluetoothUnavailableError } from '../../errors.js'
import { hciList, positionals, str } from '../arg-values.js'
import { parseView } from '../view-args.js'
import type { Backend, ViewFlags } from '../command-line.js'
import { backend, scanSource } from './backend.js'
import { defineCommand, optional } from './command.js'
import { replayRecording } from './replay.js'
import { runView } from './view.js'
import { noticeStream } from '../log-setup.js'
import { COMMON_TAIL, VIEW_CONFIG_ONLY, VIEW_OPTIONS, VIEW_OPTION_SPECS } from './view-options.js'

/** What `beaconkit scan` parses to. */
export interface ScanCommand {
  command: 'scan'
  view: ViewFlags
  hci?: number
  extraHci?: number[]
  fallbackReplay?: string
  backend?: Backend
}

/**
 * Several adapters of which none could start for want of Bluetooth: the same error (exit code,
 * fallback replay) as one adapter that could not, with every adapter's reason in the message.
 */
function bluetoothFailure(error: unknown): unknown {
  if (!(error instanceof AdapterError) || error.code !== 'no_adapter_started' || error.failures === undefined)
    return error
  const [first] = error.failures
  if (first === undefined || !error.failures.every((f) => f.error instanceof BluetoothUnavailableError)) return error
  return new BluetoothUnavailableError((first.error as BluetoothUnavailableError).code, error.message, { cause: error })
}

/** Scans; without Bluetooth and with `--fallback-replay`, says why and replays the recording instead. */
async function runScan(parsed: ScanCommand): Promise<number> {
  const { source, label } = scanSource(parsed)
  try {
    try {
      // The adapter before the broker connection (sourceFirst): one that cannot be used must not
      // make the gateway say `online` and `offline` at once (and, with a fallback recording,
      // `online` a second time): a flicker of Home Assistant's Connectivity at every start.
      // Its start() resolves once scanning is confirmed: the adapter is on.
      const run = {
        source,
        label,
        view: parsed.view,
        adapter: true,
        sourceFirst: true,
        adapterState: 'poweredOn' as const,
        noticesAfterStart: parsed.fallbackReplay !== undefined,
      }
      return await runView(run)
    } catch (error) {
      throw bluetoothFailure(error)
    }
  } catch (error) {
    if (!(error instanceof BluetoothUnavailableError) || parsed.fallbackReplay === undefined) throw error
    // The demo on a machine without Bluetooth: say why in one line, then show the recording.
    const notice = noticeStream(parsed.view.log, process.stderr, 'warn', { code: error.code })
    notice.write(`beaconkit: no Bluetooth adapter here (${error.code}); replaying ${parsed.fallbackReplay} instead\n`)
    return replayRecording(parsed.fallbackReplay, parsed.view, 1, false)
  }
}

/** `beaconkit scan`: its options, help, parser and runner (registered in registry.ts). */
export const scanCommand = defineCommand({
  name: 'scan',
  overview: [['scan', 'scan with the Bluetooth adapter; live table or JSON lines']],
  options: {
    ...VIEW_OPTION_SPECS,
    hci: { type: 'string', multiple: true },
    'fallback-replay': { type: 'string' },
    backend: { type: 'string' },
  },
  configOnly: VIEW_CONFIG_ONLY,
  help: `Usage: beaconkit scan [options]

Scans for beacons with the Bluetooth adapter (noble) and shows them: a live table
refreshed every second on a terminal, JSON lines otherwise.

Adapter:
  --hci <n>              use adapter hci<n> (default: the first one, hci0); repeat
                         it to scan with several adapters at once (--hci 0 --hci 1):
                         each beacon then lists the adapters hearing it
  --backend <noble|bluez>
                         noble: raw HCI socket (default); bluez: through bluetoothd
                         over D-Bus (needs @homebridge/dbus-native; bluetoothd keeps
                         running for other programs)
  --fallback-replay <file.jsonl>
                         when no Bluetooth adapter can be used, say why and replay
                         this recording instead (what \`npm run demo\` does)
${VIEW_OPTIONS}
${COMMON_TAIL}

Scanning needs Bluetooth: on Linux, @abandonware/noble with its native module, and
either root or \`sudo setcap cap_net_raw+eip $(eval readlink -f $(which node))\`.`,
  parse(values, pos): ScanCommand {
    const command = 'scan'
    positionals(pos, 0, 'beaconkit scan [options]', command)
    // `--hci 0 --hci 1`: several adapters feeding one scanner.
    const [first, ...extra] = hciList(values, command)
    return {
      command,
      view: parseView(values, command),
      ...optional('hci', first),
      ...optional('extraHci', extra.length > 0 ? extra : undefined),
      ...optional('fallbackReplay', str(values, 'fallback-replay')),
      ...optional('backend', backend(values, command)),
    }
  },
  run: runScan,
})
