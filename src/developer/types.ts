/**
 * The developer interface's resources and answers (spec parts 2.1–2.4, 4.1–4.13), as the
 * platform sends them. Fields the spec marks required are typed as present; the client passes
 * on whatever else the platform adds.
 */

/**
 * Numeric status of a device or station (platform docs 3.1): -1 inactive, 0 normal, 1 error, 2 danger, 3
 * timeout, 4 offline.
 */
export type NormalStatus = -1 | 0 | 1 | 2 | 3 | 4

/** A sensor device (platform docs 2.1). */
export interface SensorDevice {
  sn: string
  name: string
  tags: string[]
  deviceType: string
  firmwareVersion: string
  hardwareVersion: string
  battery: string
  interval: string
  band: string
  txPower: string
  sf: string
  normalStatus: NormalStatus
  status: 'inactive' | 'normal' | 'error' | 'danger' | 'timeout' | 'offline'
}

/** A base station (platform docs 2.2). */
export interface Station {
  sn: string
  name: string
  tags: string[]
  type: string
  firmwareVersion: string
  hardwareVersion: string
  /** Longitude, latitude. */
  lonlat: [number, number]
  netacm: 'wifi' | 'cellular' | 'ethernet'
  normalStatus: NormalStatus
  status: SensorDevice['status']
  band: string
  /** Time of the latest report, ms. */
  prevUpTime: number
}

/** One sensor history record (platform docs 2.4). */
export interface HistoryRecord {
  msgId: string
  createdTime: number
  sn: string
  /** Readings; the spec names temperature, light, humidity and battery, and says other keys exist. */
  data: Record<string, unknown>
}

/** Where a paged list is (platform docs 4.7). */
export interface PageInfo {
  current_page: number
  /** Total number of pages. */
  count: number
  /** Total number of records. */
  items_count: number
}

/** One page of a list (4.7, 4.9). */
export interface Page<T> {
  items: T[]
  page_info: PageInfo
}

/** What a downlink request created (platform docs 4.1). */
export interface DownlinkResult {
  /** The batch id. */
  scheduleNo: string
  /** One task per accepted device; completion is pushed as a task event (6.3). */
  ok: { sn: string; taskId: number }[]
  /** Devices that do not support this kind of task; absent in a 4.5 answer. */
  unsupportSns?: string[]
  /** Serial numbers the platform does not know. */
  unexistSns: string[]
}

/** Answer of linkDevices (4.11). */
export interface LinkResult {
  ok: string[]
  thisOwner: string[]
  otherOwner: string[]
  notFound: string[]
}

/** Answer of unlinkDevices (4.12) and updateInfo (4.13). */
export interface UpdateResult {
  ok: string[]
  notFound: string[]
}

/** One entry of updateInfo (4.13). */
export interface InfoUpdate {
  sn: string
  name?: string
  tags?: string[]
  /** Longitude, latitude. */
  lonlat?: [number, number]
}

/** Query of a paged list (4.7, 4.9). */
export interface PageQuery {
  /** From 1. */
  page?: number
  /** 1 to 1000; default 20. */
  count?: number
}

/** Query of deviceHistory (4.10). */
export interface HistoryQuery {
  /** ms timestamps. */
  startTime?: number
  endTime?: number
  /** From 1; default 1. */
  page?: number
  /** 1 to 1000; default 100. */
  count?: number
  /** Default `desc`. */
  order?: 'asc' | 'desc'
}
