/**
 * Reading D-Bus values in dbus-native's raw form, defensively. dbus-native hands a variant
 * over as `[[signatureTree], [value]]` and a dictionary as an array of `[key, value]` pairs;
 * BlueZ is trusted, but a property of an unexpected type (a newer BlueZ, another service
 * squatting the name) must be skipped, never crash the source.
 */

interface SignatureTree {
  type: string
  child: SignatureTree[]
}

/** One variant, opened: its top-level type code and its value. */
export interface OpenedVariant {
  /** `'n'`, `'s'`, `'a'`… */
  type: string
  /** For arrays: the element type code (`'y'` for byte arrays, `'{'` for dictionaries). */
  element?: string
  value: unknown
}

function isTree(value: unknown): value is SignatureTree {
  return (
    value !== null &&
    typeof value === 'object' &&
    typeof (value as SignatureTree).type === 'string' &&
    Array.isArray((value as SignatureTree).child)
  )
}

/** Opens a raw variant; undefined when it is not one. */
export function openVariant(raw: unknown): OpenedVariant | undefined {
  if (!Array.isArray(raw) || raw.length !== 2 || !Array.isArray(raw[0]) || !Array.isArray(raw[1])) return undefined
  const tree: unknown = raw[0][0]
  if (!isTree(tree)) return undefined
  const opened: OpenedVariant = { type: tree.type, value: raw[1][0] }
  if (tree.type === 'a' && tree.child[0] !== undefined) opened.element = tree.child[0].type
  return opened
}

/** The `[key, value]` pairs of a raw dictionary (`a{sv}`, `a{qv}`, `a{sa{sv}}`…); malformed entries are skipped. */
export function dictEntries(raw: unknown): [unknown, unknown][] {
  if (!Array.isArray(raw)) return []
  const out: [unknown, unknown][] = []
  for (const entry of raw) {
    if (Array.isArray(entry) && entry.length === 2) out.push([entry[0], entry[1]])
  }
  return out
}

/** A raw `a{sv}` as a map from property name to variant; only string keys are kept. */
export function propertyMap(raw: unknown): Map<string, unknown> {
  const map = new Map<string, unknown>()
  for (const [key, value] of dictEntries(raw)) {
    if (typeof key === 'string') map.set(key, value)
  }
  return map
}

const INTEGER_TYPES = new Set(['y', 'n', 'q', 'i', 'u'])

/** A variant holding a (16/32-bit or byte) integer. */
export function variantInteger(raw: unknown): number | undefined {
  const v = openVariant(raw)
  return v !== undefined && INTEGER_TYPES.has(v.type) && typeof v.value === 'number' && Number.isFinite(v.value)
    ? v.value
    : undefined
}

/** A variant holding a string or object path. */
export function variantString(raw: unknown): string | undefined {
  const v = openVariant(raw)
  return v !== undefined && (v.type === 's' || v.type === 'o') && typeof v.value === 'string' ? v.value : undefined
}

/** A variant holding a boolean. */
export function variantBoolean(raw: unknown): boolean | undefined {
  const v = openVariant(raw)
  return v !== undefined && v.type === 'b' && typeof v.value === 'boolean' ? v.value : undefined
}

/** A variant holding a byte array (`ay`), copied out of the message buffer. */
export function variantBytes(raw: unknown): Uint8Array | undefined {
  const v = openVariant(raw)
  if (v === undefined || v.type !== 'a' || v.element !== 'y') return undefined
  if (v.value instanceof Uint8Array) return new Uint8Array(v.value)
  if (Array.isArray(v.value) && v.value.every((b) => typeof b === 'number')) return Uint8Array.from(v.value as number[])
  return undefined
}

/** A variant holding a dictionary (`a{qv}`, `a{sv}`): its raw entries. */
export function variantDict(raw: unknown): [unknown, unknown][] | undefined {
  const v = openVariant(raw)
  if (v === undefined || v.type !== 'a' || v.element !== '{') return undefined
  return dictEntries(v.value)
}
