/**
 * The two small files recovery keeps beside the segments: `written` (the highest seq known
 * written) and `lost` (loss ranges already reported). Both are replaced atomically: written to
 * a temporary file, then renamed over the old one, so a torn write leaves the previous value.
 */
import { readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'

/** The file listing loss ranges already reported. */
export const LOST_FILE = 'lost'

/**
 * The file holding the highest seq known written (updated at open, when a segment is sealed
 * and at close). Without it the records of a damaged, emptied or truncated last segment could
 * not be counted: nothing after them names their seqs.
 */
export const WRITTEN_FILE = 'written'

/** The highest seq known written, or undefined when the file is missing or unreadable. */
export async function readWritten(dir: string): Promise<number | undefined> {
  try {
    const v = JSON.parse(await readFile(join(dir, WRITTEN_FILE), 'utf8')) as unknown
    return Number.isSafeInteger(v) && (v as number) >= 0 ? (v as number) : undefined
  } catch {
    return undefined
  }
}

/** Records `seq` as the highest seq written (atomically: a torn write leaves the old value). */
export async function writeWritten(dir: string, seq: number): Promise<void> {
  const tmp = join(dir, `${WRITTEN_FILE}.tmp`)
  await writeFile(tmp, JSON.stringify(seq))
  await rename(tmp, join(dir, WRITTEN_FILE))
}

/** Seqs `from` to `to`, both included. */
export type Range = [from: number, to: number]

/** `[from, to]` minus the ranges in `known`: the parts not reported yet. */
export function subtract(from: number, to: number, known: Range[]): Range[] {
  let parts: Range[] = [[from, to]]
  for (const [a, b] of known) {
    const next: Range[] = []
    for (const [x, y] of parts) {
      if (b < x || a > y) next.push([x, y])
      else {
        if (a > x) next.push([x, a - 1])
        if (b < y) next.push([b + 1, y])
      }
    }
    parts = next
  }
  return parts
}

/** Loss ranges already reported; empty when the file is missing or damaged. */
export async function readKnownLosses(dir: string): Promise<Range[]> {
  try {
    const v = JSON.parse(await readFile(join(dir, LOST_FILE), 'utf8')) as unknown
    if (!Array.isArray(v)) return []
    return v.filter(
      (r): r is Range => Array.isArray(r) && r.length === 2 && Number.isSafeInteger(r[0]) && Number.isSafeInteger(r[1]),
    )
  } catch {
    // Missing or damaged: at worst an old loss is reported again.
    return []
  }
}

/** Records loss ranges as reported, keeping only those the ack has not passed. */
export async function writeKnownLosses(dir: string, ranges: Range[], acked: number): Promise<void> {
  const keep = ranges.filter(([, to]) => to > acked)
  const tmp = join(dir, `${LOST_FILE}.tmp`)
  await writeFile(tmp, JSON.stringify(keep))
  await rename(tmp, join(dir, LOST_FILE))
}
