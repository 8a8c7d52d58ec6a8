/**
 * What the bridge needs to know of one foreign input format, so that it knows none by name: a
 * format is one file exporting one of these plus one line in the registry (formats.ts). The
 * bridge subscribes to its filters, hands every message to its parser, and says its notes.
 */
import type { ForeignCarries, ForeignParser } from './message.js'

/**
 * How a format's nodes tell that they are gone.
 * - `will`: a retained `online` / `offline` on a status topic, `offline` being the node's MQTT
 *   last will (OMG's `<base>/<node>/LWT`, ESPresense's `<base>/rooms/<room>/status`); its parser
 *   reports it as a `status` message, and the bridge retires the node at once.
 * - `silence`: no such topic; the node's beacons go by the gone timeout, and the node gives its
 *   place in a full table after `idleMs` without a word (the bridge's bound).
 */
export type InputLiveness = 'will' | 'silence'

/** One foreign input format (see the file comment). */
export interface InputFormat<Name extends string = string> {
  /** Its name in `--input <name>[:<base>]`; lower-case letters, digits and `-`. */
  readonly name: Name
  /** How messages name its firmware, e.g. `OpenMQTTGateway`. */
  readonly title: string
  /** How the `--input` error message shows it, e.g. `omg[:<base>]`. */
  readonly usage: string
  /** The base topic when `--input` names none: the firmware's default. */
  readonly defaultBase: string
  /** What its nodes are to the user: ESPresense names rooms, the gateways nodes. */
  readonly nodeNoun: 'node' | 'room'
  /** How its nodes say they are gone (see {@link InputLiveness}). */
  readonly liveness: InputLiveness
  /**
   * The topic filters to subscribe to under `base` (reports and liveness). Two inputs whose
   * filters are the same are one set of topics: the bridge listens once, with the first.
   */
  filters(base: string): string[]
  /**
   * The parser of its messages under `base`: which topics are reports and which liveness, the
   * node id a topic names, and payload to advertisement, status, or a skip with its reason.
   */
  parser(base: string): ForeignParser
  /**
   * The note said once per node when a sighting carries less than the advertisement's bytes
   * (`carries` `ibeacon` or `address`): what the format leaves out and how to get more; undefined
   * when there is nothing to say (the format cannot do better).
   */
  limitNote(node: string, carries: Exclude<ForeignCarries, 'raw'>): string | undefined
}
