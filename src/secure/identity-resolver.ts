/**
 * Resolving private addresses against the keys held (Core spec Vol 6 Part B 1.3.2.3): an
 * address whose two top bits are `01` is resolvable, and it belongs to the key whose hash of
 * its upper 24 bits (prand) equals its lower 24 bits.
 *
 * Cost is the point of this file. A street of strangers rotating their addresses brings new
 * addresses all the time, and each costs one AES block per key held; so every answer, a
 * name or "none of ours", is remembered per address in a bounded cache (the least recently
 * used go first, a generation at a time), and each key's AES schedule is expanded once. A new
 * address then costs one pass over the keys once, and memory stays bounded however many
 * addresses go by.
 */
import { InvalidOptionError } from '../errors.js'
import type { AesKeySchedule } from './crypto.js'
import { identityHash, identityKeySchedule, type IdentityKey } from './identity-key.js'
import { IdentityKeyring } from './identity-keyring.js'

/** Options of {@link IdentityResolver}. */
export interface IdentityResolverOptions {
  /** Addresses whose answer is remembered, at most. Default 10,000 (about 1 MB). */
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
  /** Answers dropped from the cache to make room (a generation at a time). */
  evictions: number
  /** Addresses that cannot be resolvable (public, static random, non-resolvable, malformed): no work done. */
  notResolvable: number
  /** Addresses remembered now. */
  cached: number
  /** Keys held (a count only: never a name or a key). */
  keys: number
}

/** The value of one hex digit, or -1. */
function hexDigit(c: number): number {
  if (c >= 48 && c <= 57) return c - 48
  const l = c | 32
  return l >= 97 && l <= 102 ? l - 87 : -1
}

/** Byte `i` of `aa:bb:cc:dd:ee:ff`, or -1 when it is not two hex digits. */
function byteAt(address: string, i: number): number {
  const hi = hexDigit(address.charCodeAt(i * 3))
  const lo = hexDigit(address.charCodeAt(i * 3 + 1))
  return hi < 0 || lo < 0 ? -1 : (hi << 4) | lo
}

/**
 * The 24-bit prand and hash of a resolvable private address, or undefined when `address`
 * cannot be one: not `aa:bb:cc:dd:ee:ff`, top bits other than `01`, or a random part of all
 * zeros or all ones (the spec forbids both). Read digit by digit: a regular expression and
 * slices cost more than the rest of a miss.
 */
export function resolvableParts(address: string): { prand: number; hash: number } | undefined {
  if (typeof address !== 'string' || address.length !== 17) return undefined
  let prand = 0
  let hash = 0
  for (let i = 0; i < 6; i++) {
    const b = byteAt(address, i)
    if (b < 0 || (i < 5 && address.charCodeAt(i * 3 + 2) !== 58)) return undefined
    if (i < 3) prand = (prand << 8) | b
    else hash = (hash << 8) | b
  }
  if (prand >>> 22 !== 1) return undefined
  const random = prand & 0x3fffff
  if (random === 0 || random === 0x3fffff) return undefined
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
  /** Addresses per generation: half the bound. */
  readonly #generation: number
  /**
   * Address → key name, or null for "none of ours", in two generations: lookups promote from
   * `#old`; when `#current` holds half the bound, `#old` goes whole. The recently used stay, at
   * a constant cost per address. (A Map used as an LRU list, delete-first and insert-last, was
   * 15 µs per new address: V8 skips the deleted entries at its front on every eviction.)
   */
  #current = new Map<string, string | null>()
  #old = new Map<string, string | null>()
  readonly #stats = { resolved: 0, unresolved: 0, cacheHits: 0, evictions: 0, notResolvable: 0 }

  /**
   * @param keys the keys to resolve against (taken as they are now: a key added to the keyring
   *   later is not seen; make a new resolver)
   */
  constructor(keys: IdentityKeyring | Iterable<IdentityKey>, options: IdentityResolverOptions = {}) {
    const size = options.cacheSize ?? 10_000
    if (!Number.isInteger(size) || size < 2) {
      throw new InvalidOptionError('invalid_option', 'cacheSize must be an integer >= 2 (addresses remembered).', {
        option: 'cacheSize',
      })
    }
    this.keyring = keys instanceof IdentityKeyring ? keys : new IdentityKeyring(keys)
    const held = this.keyring.keys()
    this.#schedules = held.map(identityKeySchedule)
    this.#names = held.map((k) => k.name)
    this.#generation = Math.floor(size / 2)
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
    let known = this.#current.get(address)
    if (known === undefined) {
      known = this.#old.get(address)
      if (known !== undefined) {
        // Moved, not copied: the counts (cached, evictions) see each address once.
        this.#old.delete(address)
        this.#remember(address, known)
      }
    }
    if (known !== undefined) {
      this.#stats.cacheHits++
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
    this.#remember(address, name)
    return name ?? undefined
  }

  /** Counters, as of now. */
  get stats(): IdentityResolverStats {
    return { ...this.#stats, cached: this.#current.size + this.#old.size, keys: this.#schedules.length }
  }

  /** Forgets every remembered answer (the counters stay). */
  clear(): void {
    this.#current = new Map()
    this.#old = new Map()
  }

  /** JSON shows the key names and counters, never a key or an address. */
  toJSON(): { names: string[]; stats: IdentityResolverStats } {
    return { names: this.keyring.names(), stats: this.stats }
  }

  #remember(address: string, name: string | null): void {
    if (this.#current.size >= this.#generation) {
      this.#stats.evictions += this.#old.size
      this.#old = this.#current
      this.#current = new Map()
    }
    this.#current.set(address, name)
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
