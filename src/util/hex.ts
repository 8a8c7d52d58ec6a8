/**
 * Hex digits per byte value, shared by the frame codecs and the key code (secure/): string
 * building from bytes stays allocation-light. In util/ so that neither imports the other.
 */

/** Two lower-case hex digits per byte value. */
export const HEX_LOWER: readonly string[] = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))
/** Two upper-case hex digits per byte value. */
export const HEX_UPPER: readonly string[] = HEX_LOWER.map((h) => h.toUpperCase())
