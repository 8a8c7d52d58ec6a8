/**
 * One configured foreign input: a format the broker speaks (formats.ts) under a base topic.
 * What a message of it means is message.ts; how a format reads one is format.ts.
 */
import type { BUILT_IN_FORMATS } from './formats.js'

/**
 * The foreign formats understood: the registry's names (formats.ts). Theengs Gateway speaks
 * OpenMQTTGateway's topics and JSON.
 */
export type ForeignFormat = (typeof BUILT_IN_FORMATS)[number]['name']

/** One configured input: a format under a base topic. */
export interface ForeignInput {
  format: ForeignFormat
  /** The base topic: `home` (OMG/Theengs default) or `espresense`; may hold several levels. */
  base: string
  /**
   * Added to every RSSI this input reports (dB): an ESP32's antenna is not a Pi's, and
   * ESPresense reports an already adjusted, filtered value. Default 0.
   */
  rssiOffsetDb?: number
}
