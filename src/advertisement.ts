/**
 * The one shape every source produces: a snapshot of one received advertisement.
 * Sources never hand out objects of the BLE stack; decoding never sees them.
 */

/** One Bluetooth LE advertisement (or advertisement merged with its scan response). */
export interface Advertisement {
  /** Lower-case `aa:bb:cc:dd:ee:ff`. */
  address: string
  addressType?: 'public' | 'random' | 'unknown'
  /** dBm. */
  rssi: number
  /** Milliseconds (Unix epoch for live sources, the recording's clock for replays). */
  timestamp: number
  connectable?: boolean
  localName?: string
  txPowerLevel?: number
  /** Starts with the 2-byte company id, little-endian, as noble delivers it. */
  manufacturerData?: Uint8Array
  /** 16-bit service data; `uuid` as noble reports it (`"81e7"` for on-air `E7 81`), `data` without the uuid. */
  serviceData?: ServiceData[]
}

/** One service-data element of an advertisement. */
export interface ServiceData {
  uuid: string
  data: Uint8Array
}
