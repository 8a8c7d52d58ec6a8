/**
 * Raw HCI packets for the fake socket: just enough of Bluetooth Core Vol 4 Part E (HCI) and
 * Vol 3 Part C §11 (advertising data) to drive noble's real HCI and GAP code.
 */

/** HCI packet indicators (first byte on an HCI socket). */
export const HCI_COMMAND_PKT = 0x01
export const HCI_EVENT_PKT = 0x04

/** Event codes. */
export const EVT_CMD_COMPLETE = 0x0e
export const EVT_CMD_STATUS = 0x0f
export const EVT_LE_META_EVENT = 0x3e
/** LE meta sub-event: LE Advertising Report. */
export const EVT_LE_ADVERTISING_REPORT = 0x02

/** Opcode = OGF << 10 | OCF. */
export function opcode(ogf: number, ocf: number): number {
  return (ogf << 10) | ocf
}

/** The commands noble sends while setting up and scanning. */
export const OP = {
  SET_EVENT_MASK: opcode(0x03, 0x0001),
  RESET: opcode(0x03, 0x0003),
  READ_LE_HOST_SUPPORTED: opcode(0x03, 0x006c),
  WRITE_LE_HOST_SUPPORTED: opcode(0x03, 0x006d),
  READ_LOCAL_VERSION: opcode(0x04, 0x0001),
  READ_BUFFER_SIZE: opcode(0x04, 0x0005),
  READ_BD_ADDR: opcode(0x04, 0x0009),
  LE_SET_EVENT_MASK: opcode(0x08, 0x0001),
  LE_READ_BUFFER_SIZE: opcode(0x08, 0x0002),
  LE_SET_SCAN_PARAMETERS: opcode(0x08, 0x000b),
  LE_SET_SCAN_ENABLE: opcode(0x08, 0x000c),
} as const

/** Advertising PDU types as reported in an LE Advertising Report. */
export const ADV_IND = 0x00
export const ADV_DIRECT_IND = 0x01
export const ADV_SCAN_IND = 0x02
export const ADV_NONCONN_IND = 0x03
export const SCAN_RSP = 0x04

/** AD structure types. */
export const AD_FLAGS = 0x01
export const AD_COMPLETE_LOCAL_NAME = 0x09
export const AD_TX_POWER_LEVEL = 0x0a
export const AD_SERVICE_DATA_16 = 0x16
export const AD_MANUFACTURER_SPECIFIC = 0xff

/** HCI error codes (Core Vol 1 Part F). */
export const STATUS_COMMAND_DISALLOWED = 0x0c

/** LE General Discoverable, BR/EDR not supported: what beacons send. */
export const FLAGS_LE_GENERAL_NO_BREDR = 0x06

/** One AD structure: length, type, data. */
export function adStructure(type: number, data: Uint8Array | number[]): Buffer {
  const bytes = Buffer.from(data)
  return Buffer.concat([Buffer.from([bytes.length + 1, type]), bytes])
}

/** A 16-bit service-data structure; `uuid` as a number (0x81e7), written little-endian as on air. */
export function serviceData16(uuid: number, data: Uint8Array | number[]): Buffer {
  return adStructure(AD_SERVICE_DATA_16, [uuid & 0xff, uuid >> 8, ...data])
}

/** Address bytes in HCI order (least significant first) from `aa:bb:cc:dd:ee:ff`. */
export function addressBytes(address: string): Buffer {
  return Buffer.from(address.split(':').reverse().join(''), 'hex')
}

/** One report inside an LE Advertising Report event. */
export interface AdvertisingReport {
  type: number
  address: string
  /** 0 public, 1 random, 2 public identity, 3 random identity (resolved RPA). */
  addressType?: 0 | 1 | 2 | 3
  /** Concatenated AD structures (≤ 31 bytes on legacy advertising). */
  data: Buffer
  rssi: number
}

/** An HCI LE Meta event carrying one LE Advertising Report. */
export function leAdvertisingReport(report: AdvertisingReport): Buffer {
  return leAdvertisingReports([report])
}

/**
 * One LE Advertising Report event carrying several reports, laid out one report after the
 * other as Linux and noble read them (controllers batch reports under load).
 */
export function leAdvertisingReports(reports: readonly AdvertisingReport[]): Buffer {
  const parts = reports.map((report) =>
    Buffer.concat([
      Buffer.from([report.type, report.addressType ?? 0]),
      addressBytes(report.address),
      Buffer.from([report.data.length]),
      report.data,
      Buffer.from([report.rssi & 0xff]),
    ]),
  )
  const body = Buffer.concat([Buffer.from([EVT_LE_ADVERTISING_REPORT, reports.length]), ...parts])
  return Buffer.concat([Buffer.from([HCI_EVENT_PKT, EVT_LE_META_EVENT, body.length]), body])
}

/** An HCI Command Complete event. */
export function commandComplete(op: number, status: number, returnParameters: Uint8Array = Buffer.alloc(0)): Buffer {
  const params = Buffer.concat([Buffer.from([1, op & 0xff, op >> 8, status]), returnParameters])
  return Buffer.concat([Buffer.from([HCI_EVENT_PKT, EVT_CMD_COMPLETE, params.length]), params])
}

/** An HCI Command Status event: how controllers refuse many commands before running them. */
export function commandStatus(op: number, status: number): Buffer {
  return Buffer.from([HCI_EVENT_PKT, EVT_CMD_STATUS, 4, status, 1, op & 0xff, op >> 8])
}

/** An HCI command packet, as another program on the same adapter would send it. */
export function commandPacket(op: number, params: Uint8Array | number[] = []): Buffer {
  const bytes = Buffer.from(params)
  return Buffer.concat([Buffer.from([HCI_COMMAND_PKT, op & 0xff, op >> 8, bytes.length]), bytes])
}

/** Apple iBeacon manufacturer data (company 0x004C little-endian first, as noble delivers it). */
export function iBeaconManufacturerData(uuidHex: string, major: number, minor: number, measuredPower: number): Buffer {
  const b = Buffer.alloc(25)
  b.writeUInt16LE(0x004c, 0)
  b[2] = 0x02
  b[3] = 0x15
  Buffer.from(uuidHex.replace(/-/g, ''), 'hex').copy(b, 4)
  b.writeUInt16BE(major, 20)
  b.writeUInt16BE(minor, 22)
  b.writeInt8(measuredPower, 24)
  return b
}
