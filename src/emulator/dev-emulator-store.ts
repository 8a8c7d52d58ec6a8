/**
 * The developer emulator's data (platform docs 2.1–2.4): sensors of every named type, base stations,
 * each sensor's history, which merchant owns which device, and downlink tasks. Seeded from a
 * number so every run with the same seed sees the same devices.
 */
import { seededRandom } from '../util/random.js'
import type { HistoryRecord, NormalStatus, SensorDevice, Station } from '../developer/types.js'

/** The merchant the emulator's developer interface answers as. */
export const EMULATOR_MERCHANT = 'emulator-merchant'

/** The emulator's names for the spec's two role-named classes (the spec gives no deviceType for them). */
export const ALPHA_MODULE = 'alpha_module'
export const ALPHA_SENSOR = 'alpha_sensor'

/** Sensor types seeded, two devices each. */
const TYPES = [
  'node',
  'co',
  'co2',
  'so2',
  'no2',
  'ch4',
  'nh3',
  'pm',
  'lpg',
  'tvoc',
  'temp_humi',
  'o3',
  'angle',
  ALPHA_MODULE,
  ALPHA_SENSOR,
]

const STATUS: Record<NormalStatus, SensorDevice['status']> = {
  [-1]: 'inactive',
  0: 'normal',
  1: 'error',
  2: 'danger',
  3: 'timeout',
  4: 'offline',
}

const SEED_EPOCH = Date.UTC(2026, 0, 1)

/** History records seeded per sensor, one every 10 minutes. */
const HISTORY_PER_DEVICE = 150

/** One downlink task as the emulator keeps it. */
export interface EmulatorTask {
  taskId: number
  scheduleNo: string
  sn: string
  kind: 'interval' | 'threshold' | 'cdata' | 'parser'
  /** What the task sets (the interval, the thresholds, the data). */
  payload: unknown
  /** Set when it completed: 0 success, 1 fail. */
  resultCode?: 0 | 1
}

function hex(rng: () => number, digits: number): string {
  let s = ''
  for (let i = 0; i < digits; i++) s += Math.floor(rng() * 16).toString(16)
  return s.toUpperCase()
}

/** The developer emulator's in-memory state; tests read and change it directly. */
export class DeveloperStore {
  /** Every sensor the platform knows, by serial number. */
  readonly devices = new Map<string, SensorDevice>()
  /** Owner (merchant) of each device; absent: nobody's, so it can be linked. */
  readonly owners = new Map<string, string>()
  /** Every base station, by serial number. */
  readonly stations = new Map<string, Station>()
  /** Downlink tasks, by taskId. */
  readonly tasks = new Map<number, EmulatorTask>()
  readonly #history = new Map<string, HistoryRecord[]>()
  #nextTaskId = 1000
  #nextSchedule = 1
  #nextMsgId = 1

  constructor(seed: number) {
    const rng = seededRandom(seed ^ 0xde7)
    TYPES.forEach((deviceType, t) => {
      for (let k = 0; k < 2; k++) {
        const i = 2 * t + k
        const sn = `70B3D5${hex(rng, 10)}`
        const normalStatus: NormalStatus = i === 5 ? 4 : i === 9 ? -1 : 0
        this.devices.set(sn, {
          sn,
          name: `${deviceType} ${k + 1}`,
          tags: [],
          deviceType,
          firmwareVersion: '3.1.0',
          hardwareVersion: 'B2',
          battery: String(60 + Math.floor(rng() * 40)),
          interval: '600',
          band: 'EU868',
          txPower: '14',
          sf: 'SF7',
          normalStatus,
          status: STATUS[normalStatus],
        })
        this.owners.set(sn, EMULATOR_MERCHANT)
        this.#history.set(
          sn,
          seedHistory(sn, rng, () => this.msgId()),
        )
      }
    })
    // Devices that exist but are not this merchant's: two free to link, two another's.
    for (let i = 0; i < 4; i++) {
      const sn = `70B3D5${hex(rng, 10)}`
      this.devices.set(sn, {
        ...(this.devices.values().next().value as SensorDevice),
        sn,
        name: `spare ${i + 1}`,
        deviceType: 'temp_humi',
      })
      if (i >= 2) this.owners.set(sn, 'another-merchant')
    }
    const nets: Station['netacm'][] = ['wifi', 'cellular', 'ethernet']
    for (let i = 0; i < 5; i++) {
      const sn = `GW${hex(rng, 12)}`
      const normalStatus: NormalStatus = i === 4 ? 3 : 0
      this.stations.set(sn, {
        sn,
        name: `station ${i + 1}`,
        tags: [],
        type: 'indoor',
        firmwareVersion: '2.4.1',
        hardwareVersion: 'G1',
        lonlat: [13.4 + i / 100, 52.5 + i / 100],
        netacm: nets[i % 3],
        normalStatus,
        status: STATUS[normalStatus],
        band: 'EU868',
        prevUpTime: SEED_EPOCH + i * 1000,
      })
    }
  }

  /** A fresh message id (history records and pushes share the sequence, as msgIds are unique). */
  msgId(): number {
    return this.#nextMsgId++
  }

  /** The merchant's devices, in serial order. */
  ownDevices(merchant = EMULATOR_MERCHANT): SensorDevice[] {
    return [...this.devices.values()]
      .filter((d) => this.owners.get(d.sn) === merchant)
      .sort((a, b) => a.sn.localeCompare(b.sn))
  }

  /** One of the merchant's devices. */
  ownDevice(sn: string, merchant = EMULATOR_MERCHANT): SensorDevice | undefined {
    return this.owners.get(sn) === merchant ? this.devices.get(sn) : undefined
  }

  /** A device's history, oldest first. */
  history(sn: string): readonly HistoryRecord[] {
    return this.#history.get(sn) ?? []
  }

  /** Adds a record to a device's history (a sensor data push does). */
  addHistory(record: HistoryRecord): void {
    const list = this.#history.get(record.sn) ?? []
    list.push(record)
    this.#history.set(record.sn, list)
  }

  /** A new batch id. */
  scheduleNo(): string {
    return `S${String(this.#nextSchedule++).padStart(8, '0')}`
  }

  /** Creates one task of a batch. */
  addTask(scheduleNo: string, sn: string, kind: EmulatorTask['kind'], payload: unknown): EmulatorTask {
    const task: EmulatorTask = { taskId: this.#nextTaskId++, scheduleNo, sn, kind, payload }
    this.tasks.set(task.taskId, task)
    return task
  }

  /** Carries a task out: an offline or inactive device fails it; success applies what it sets. */
  complete(task: EmulatorTask): 0 | 1 {
    const device = this.devices.get(task.sn)
    const result: 0 | 1 = device === undefined || device.normalStatus === 4 || device.normalStatus === -1 ? 1 : 0
    if (result === 0 && task.kind === 'interval' && device !== undefined) device.interval = String(task.payload)
    task.resultCode = result
    return result
  }
}

function seedHistory(sn: string, rng: () => number, msgId: () => number): HistoryRecord[] {
  const out: HistoryRecord[] = []
  for (let i = 0; i < HISTORY_PER_DEVICE; i++) {
    out.push({
      msgId: String(msgId()),
      createdTime: SEED_EPOCH + i * 600_000,
      sn,
      data: {
        temperature: Math.round((18 + rng() * 8) * 10) / 10,
        humidity: Math.round(30 + rng() * 40),
        light: Math.round(rng() * 500),
        battery: 90 - Math.floor(i / 10),
      },
    })
  }
  return out
}
