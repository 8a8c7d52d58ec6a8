/**
 * Resolving private addresses against the keys held (Core spec Vol 6 Part B 1.3.2.3): an
 * address whose two top bits are `01` is resolvable, and it belongs to the key whose hash of
 * its upper 24 bits (prand) equals its lower 24 bits.
 *
 * Cost is the point of this file. A street of strangers rotating their addresses brings new
 * addresses all the time, and each costs one AES block per key held; so every answer, a
 * name or "none of ours", is remembered per address in a bounded cache (least recently used
 * goes first), and each key's AES schedule is expanded once. A new address then costs one pass
 * over the keys once, and memory stays bounded however many addresses go by.
 */
import { InvalidOptionError } from '../errors.js'
import type { AesKeySchedule } from './crypto.js'
import { identityHash, identityKeySchedule, type IdentityKey } from './identity-key.js'
import { IdentityKeyring } from './identity-keyring.js'

/** Options of {@link IdentityResolver}. */
export interface IdentityResolverOptions {
  /** Addresses whose answer is remembered. Default 10,000 (about 1 MB). */
  cacheSize?: number
}

/** Counters since the resolver was created. */
export interface IdentityResolverStats {
  /** New addresses that resolved to a key. */
  resolved: number
  /** New resolvable addresses that matched no key held. */
  unresolved: number
  /** Answers given from the cache. */
  cacheHits: number
  /** Answers dropped from the full cache to make room. */
  evictions: number
  /** Addresses that cannot be resolvable (public, static random, non-resolvable, malformed): no work done. */
  notResolvable: number
  /** Addresses remembered now. */
  cached: number
}

const ADDRESS = /^[0-9a-fA-F]{2}(?::[0-9a-fA-F]{2}){5}$/

/**
 * The 24-bit prand and hash of a resolvable private address, or undefined when `address`
 * cannot be one: not `aa:bb:cc:dd:ee:ff`, top bits other than `01`, or a random part of all
 * zeros or all ones (the spec forbids both).
 */
export function resolvableParts(address: string): { prand: number; hash: number } | undefined {
  if (typeof address !== 'string' || !ADDRESS.test(address)) return undefined
  const prand = parseInt(address.slice(0, 2) + address.slice(3, 5) + address.slice(6, 8), 16)
  if (prand >>> 22 !== 1) return undefined
  const random = prand & 0x3fffff
  if (random === 0 || random === 0x3fffff) return undefined
  const hash = parseInt(address.slice(9, 11) + address.slice(12, 14) + address.slice(15, 17), 16)
  return { prand, hash }
}

/**
 * Tells which held key, if any, a Bluetooth address belongs to. One per scanner (or shared by
 * a fleet's inputs); not shared between threads.
 */
export class IdentityResolver {
  /** The keys resolved against. */
  readonly keyring: IdentityKeyring
  readonly #schedules: AesKeySchedule[]
  readonly #names: string[]
  readonly #cacheSize: number
  /** Address → key name, or null for "none of ours"; a Map keeps insertion order, the LRU order. */
  readonly #cache = new Map<string, string | null>()
  readonly #stats = { resolved: 0, unresolved: 0, cacheHits: 0, evictions: 0, notResolvable: 0 }

  /**
   * @param keys the keys to resolve against (taken as they are now: a key added to the keyring
   *   later is not seen; make a new resolver)
   */
  constructor(keys: IdentityKeyring | Iterable<IdentityKey>, options: IdentityResolverOptions = {}) {
    const size = options.cacheSize ?? 10_000
    if (!Number.isInteger(size) || size < 1) {
      throw new InvalidOptionError('invalid_option', 'cacheSize must be a positive integer (addresses remembered).', {
        option: 'cacheSize',
      })
    }
    this.keyring = keys instanceof IdentityKeyring ? keys : new IdentityKeyring(keys)
    const held = this.keyring.keys()
    this.#schedules = held.map(identityKeySchedule)
    this.#names = held.map((k) => k.name)
    this.#cacheSize = size
  }

  /**
   * The name of the key `address` resolves under, or undefined. A `public` address is never
   * resolvable, whatever its bits; an unknown or `random` type is judged by the bits.
   */
  resolve(address: string, addressType?: string): string | undefined {
    if (addressType === 'public' || this.#schedules.length === 0) {
      this.#stats.notResolvable++
      return undefined
    }
    const cache = this.#cache
    const known = cache.get(address)
    if (known !== undefined) {
      this.#stats.cacheHits++
      // Most recently used goes to the end; the first entry is the next to go.
      cache.delete(address)
      cache.set(address, known)
      return known ?? undefined
    }
    const parts = resolvableParts(address)
    if (parts === undefined) {
      this.#stats.notResolvable++
      return undefined
    }
    const name = this.#search(parts.prand, parts.hash)
    if (name === null) this.#stats.unresolved++
    else this.#stats.resolved++
    if (cache.size >= this.#cacheSize) {
      const oldest = cache.keys().next().value as string
      cache.delete(oldest)
      this.#stats.evictions++
    }
    cache.set(address, name)
    return name ?? undefined
  }

  /** Counters, as of now. */
  get stats(): IdentityResolverStats {
    return { ...this.#stats, cached: this.#cache.size }
  }

  /** Forgets every remembered answer (the counters stay). */
  clear(): void {
    this.#cache.clear()
  }

  /** JSON shows the key names and counters, never a key or an address. */
  toJSON(): { names: string[]; stats: IdentityResolverStats } {
    return { names: this.keyring.names(), stats: this.stats }
  }

  #search(prand: number, hash: number): string | null {
    const schedules = this.#schedules
    // Keys are unique, so the first match is the only one (but for a 2^-24 chance per key).
    for (let i = 0; i < schedules.length; i++) {
      if (identityHash(schedules[i] as AesKeySchedule, prand) === hash) return this.#names[i] as string
    }
    return null
  }
}
