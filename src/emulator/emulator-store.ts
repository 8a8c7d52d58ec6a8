/**
 * The emulator's data: accounts, a catalogue of devices that can be added (serial number plus
 * the token printed with each), account beacons, uploaded and seeded logs, deployment maps.
 * Seeded from a number so every run with the same seed sees the same data.
 */
import { readFileSync } from 'node:fs'
import { rename, writeFile } from 'node:fs/promises'
import { seededRandom } from '../util/random.js'
import { SEED_EPOCH, demoMap, newAccountBeacon, seedCatalogue, seedRecord } from './emulator-seed.js'
import type { CatalogueDevice } from './emulator-seed.js'
import type { AccountBeacon, DeploymentMap } from '../cloud/records.js'
import type { BeaconLogRecord } from '../reading.js'

/** A login of the emulator. */
export interface EmulatorAccount {
  email: string
  password: string
}

/** Where a stored log came from: `upload` (POST), `seed` (other users), `inspector` (type 2). */
export type LogSource = 'upload' | 'seed' | 'inspector'

/** A log as the emulator keeps it. */
export interface StoredLog {
  /** Account that uploaded it (or the seeded owner). */
  owner: string
  source: LogSource
  record: BeaconLogRecord
}

interface AccountData {
  password: string
  beacons: Map<string, AccountBeacon>
  msgIds: Set<string>
}

interface PersistedState {
  format: 'beaconkit-emulator'
  version: 1
  beacons: Record<string, AccountBeacon[]>
  logs: StoredLog[]
  duplicates: number
}

/** The emulator's in-memory store; tests read it directly. */
export class EmulatorStore {
  /** Devices that exist and can be added with their token. */
  readonly catalogue: readonly CatalogueDevice[]
  /** Deployment maps by key. */
  readonly maps = new Map<string, DeploymentMap>()
  /** Uploaded records that repeated a msgId already stored (and were not stored again). */
  duplicates = 0
  // A JS-private field: passwords must not show in util.inspect of the store.
  readonly #accounts = new Map<string, AccountData>()
  private readonly logs: StoredLog[] = []
  private readonly persistPath: string | undefined
  private saveTimer: NodeJS.Timeout | undefined
  private saving: Promise<void> = Promise.resolve()

  constructor(accounts: readonly EmulatorAccount[], seed: number, persistPath?: string) {
    this.persistPath = persistPath
    const rng = seededRandom(seed)
    const catalogue = seedCatalogue(rng)
    this.catalogue = catalogue
    accounts.forEach((a, k) => {
      const beacons = new Map<string, AccountBeacon>()
      for (const d of catalogue.slice(3 * k, 3 * k + 3)) beacons.set(d.mac, newAccountBeacon(d, a.email, SEED_EPOCH))
      this.#accounts.set(a.email, { password: a.password, beacons, msgIds: new Set() })
      for (let i = 0; i < 5; i++) {
        const d = catalogue[(3 * k + i) % catalogue.length]
        this.logs.push({
          owner: a.email,
          source: 'inspector',
          record: seedRecord(`seed-inspector-${k}-${i}`, d, SEED_EPOCH + i * 60_000, rng),
        })
      }
    })
    for (let i = 0; i < 20; i++) {
      const d = catalogue[i % catalogue.length]
      this.logs.push({
        owner: 'someone@example.org',
        source: 'seed',
        record: seedRecord(`seed-${i}`, d, SEED_EPOCH + i * 30_000, rng),
      })
    }
    this.maps.set('demo', demoMap(catalogue, rng, seed, accounts[0]?.email ?? 'demo'))
    if (persistPath !== undefined) this.restore(persistPath)
  }

  /** The account whose credentials match, or undefined. */
  authenticate(email: string, password: string): string | undefined {
    const account = this.#accounts.get(email)
    return account !== undefined && account.password === password ? email : undefined
  }

  /** The account's beacons, in insertion order. */
  beacons(email: string): AccountBeacon[] {
    return [...(this.#accounts.get(email)?.beacons.values() ?? [])]
  }

  /** Records uploaded by `email` (or by every account), in arrival order, without duplicates. */
  uploads(email?: string): BeaconLogRecord[] {
    return this.logs
      .filter((l) => l.source === 'upload' && (email === undefined || l.owner === email))
      .map((l) => l.record)
  }

  /** Every stored log. */
  allLogs(): readonly StoredLog[] {
    return this.logs
  }

  /** Adds a catalogue device to an account; `token_mismatch` and `unknown` are refusals. */
  addBeacon(email: string, mac: string, token: string): AccountBeacon | 'unknown' | 'token_mismatch' {
    const device = this.catalogue.find((d) => d.mac === mac)
    if (device === undefined) return 'unknown'
    if (device.token !== token) return 'token_mismatch'
    const account = this.account(email)
    let beacon = account.beacons.get(mac)
    if (beacon === undefined) {
      beacon = newAccountBeacon(device, email, Date.now())
      account.beacons.set(mac, beacon)
      this.changed()
    }
    return beacon
  }

  /** Removes a beacon from an account; false when the account did not have it. */
  removeBeacon(email: string, mac: string): boolean {
    const removed = this.account(email).beacons.delete(mac)
    if (removed) this.changed()
    return removed
  }

  /** Replaces a beacon's tags; undefined when the account does not have it. */
  setTags(email: string, mac: string, tags: string[]): AccountBeacon | undefined {
    const beacon = this.account(email).beacons.get(mac)
    if (beacon === undefined) return undefined
    beacon.tags = [...tags]
    this.changed()
    return beacon
  }

  /** Stores uploaded records, skipping msgIds already stored for this account. */
  upload(email: string, records: BeaconLogRecord[]): { stored: number; duplicates: number } {
    const account = this.account(email)
    let stored = 0
    for (const r of records) {
      if (account.msgIds.has(r.msgId)) {
        this.duplicates++
        continue
      }
      account.msgIds.add(r.msgId)
      this.logs.push({ owner: email, source: 'upload', record: { ...r, __v: 0 } })
      stored++
      const beacon = account.beacons.get(r.beaconMac)
      if (beacon !== undefined && (beacon.updatedTime ?? 0) <= r.updatedTime) {
        beacon.updatedTime = r.updatedTime
        beacon.sensor = { ...beacon.sensor, ...r.sensor }
        if (r.location !== undefined) beacon.lonlat = [r.location.lon, r.location.lat]
      }
    }
    if (stored > 0) this.changed()
    return { stored, duplicates: records.length - stored }
  }

  /** Logs visible to `email` for a query, oldest first (stable pages while uploads arrive). */
  queryLogs(email: string, type: 0 | 1 | 2, filter: { mac?: string; since?: number }): BeaconLogRecord[] {
    const out: BeaconLogRecord[] = []
    for (const l of this.logs) {
      const visible =
        type === 0
          ? l.source !== 'inspector'
          : type === 1
            ? l.source === 'upload' && l.owner === email
            : l.source === 'inspector' && l.owner === email
      if (!visible) continue
      if (filter.mac !== undefined && l.record.beaconMac !== filter.mac) continue
      if (filter.since !== undefined && l.record.updatedTime < filter.since) continue
      out.push(l.record)
    }
    return out
  }

  /** Writes any pending change to `persistPath` now. */
  async flush(): Promise<void> {
    if (this.saveTimer !== undefined) {
      clearTimeout(this.saveTimer)
      this.saveTimer = undefined
      this.saving = this.saving.then(() => this.save())
    }
    await this.saving
  }

  private account(email: string): AccountData {
    const account = this.#accounts.get(email)
    if (account === undefined) throw new Error(`no emulator account ${email}`)
    return account
  }

  private changed(): void {
    if (this.persistPath === undefined || this.saveTimer !== undefined) return
    // Debounced: a burst of uploads costs one write.
    this.saveTimer = setTimeout(() => {
      this.saveTimer = undefined
      this.saving = this.saving.then(() => this.save())
    }, 200)
    this.saveTimer.unref()
  }

  private async save(): Promise<void> {
    const path = this.persistPath as string
    const state: PersistedState = {
      format: 'beaconkit-emulator',
      version: 1,
      beacons: Object.fromEntries([...this.#accounts].map(([email, a]) => [email, [...a.beacons.values()]])),
      logs: this.logs.filter((l) => l.source === 'upload'),
      duplicates: this.duplicates,
    }
    await writeFile(`${path}.tmp`, JSON.stringify(state))
    await rename(`${path}.tmp`, path)
  }

  private restore(path: string): void {
    let state: PersistedState
    try {
      state = JSON.parse(readFileSync(path, 'utf8')) as PersistedState
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return
      throw new Error(`emulator state ${path} is not readable JSON; move it away to start fresh`, { cause: e })
    }
    if (state.format !== 'beaconkit-emulator' || state.version !== 1)
      throw new Error(`${path} is not an emulator state file`)
    for (const [email, beacons] of Object.entries(state.beacons)) {
      const account = this.#accounts.get(email)
      if (account === undefined) continue
      account.beacons = new Map(beacons.map((b) => [b.mac, b]))
    }
    for (const log of state.logs) {
      const account = this.#accounts.get(log.owner)
      if (account === undefined || account.msgIds.has(log.record.msgId)) continue
      account.msgIds.add(log.record.msgId)
      this.logs.push(log)
    }
    this.duplicates = state.duplicates
  }
}
