import type { BeaconReading } from '../reading.js'

/**
 * The frame-derived part of a reading that frame decoders fill in. The envelope (address,
 * rssi, timestamp, frames) and the distance estimate are added by the decoder around them.
 */
export type ReadingDraft = Omit<BeaconReading, 'address' | 'timestamp' | 'rssi' | 'frames' | 'accuracy' | 'proximity'>
