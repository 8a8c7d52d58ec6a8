/**
 * A floor-plan image sent by the editor (`PUT /api/plan`), judged by its bytes and never by what
 * the request says it is: PNG and JPEG by their magic, SVG as UTF-8 text whose first element is
 * `<svg`. Its size in pixels comes from the header (PNG IHDR, JPEG SOFn) or the SVG root's
 * width/height (else its viewBox). Also the rule for a plan file's name, which both the upload
 * (the name it writes) and `GET /plans/<name>` (the names it serves) keep.
 */

/** The image types a plan may have. */
export type PlanImageType = 'image/png' | 'image/jpeg' | 'image/svg+xml'

/** What the bytes of an image are. */
export interface PlanImageInfo {
  type: PlanImageType
  /** The file name extension this code writes for it. */
  ext: 'png' | 'jpg' | 'svg'
  /** Pixels, or null when an SVG gives neither width/height nor a viewBox. */
  width: number | null
  height: number | null
}

/** Bytes a plan image may have at most (8 MiB). */
export const MAX_PLAN_BYTES = 8 * 1024 * 1024

/** A plan file name that `GET /plans/<name>` serves: no folder, no `..`, a known extension. */
export const PLAN_FILE_NAME = /^[A-Za-z0-9._-]{1,128}\.(png|jpg|jpeg|svg)$/

/** Whether `name` is a plan file name this server writes and serves (see {@link PLAN_FILE_NAME}). */
export function isPlanFileName(name: string): boolean {
  return PLAN_FILE_NAME.test(name) && !name.includes('..')
}

/** The Content-Type of a plan file by its extension. */
export function planFileType(name: string): PlanImageType {
  const ext = name.slice(name.lastIndexOf('.') + 1).toLowerCase()
  return ext === 'png' ? 'image/png' : ext === 'svg' ? 'image/svg+xml' : 'image/jpeg'
}

/** `<site base name without .json>.plan[-<floor>].<ext>`: the name an upload is stored under. */
export function planFileNameFor(siteBase: string, floor: string | undefined, ext: PlanImageInfo['ext']): string {
  const stem = siteBase.replace(/\.json$/i, '').replace(/[^A-Za-z0-9._-]/g, '_') || 'site'
  return `${stem}.plan${floor === undefined ? '' : `-${floor}`}.${ext}`
}

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

function png(b: Buffer): PlanImageInfo | undefined {
  if (b.length < 24 || !b.subarray(0, 8).equals(PNG_MAGIC) || b.toString('latin1', 12, 16) !== 'IHDR') return undefined
  return { type: 'image/png', ext: 'png', width: b.readUInt32BE(16), height: b.readUInt32BE(20) }
}

/** SOF markers that carry the frame's size (C4, C8 and CC are other tables). */
const SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf])

function jpeg(b: Buffer): PlanImageInfo | undefined {
  if (b.length < 4 || b[0] !== 0xff || b[1] !== 0xd8) return undefined
  let i = 2
  // Each segment is FF <marker> <length: 2 bytes, itself included>; the walk is bounded by the bytes.
  while (i + 4 <= b.length) {
    if (b[i] !== 0xff) return undefined
    const marker = b[i + 1]
    if (marker === 0xff) {
      i++
      continue
    }
    if (marker === 0xd9 || marker === 0xda) return undefined
    if ((marker >= 0xd0 && marker <= 0xd7) || marker === 0x01) {
      i += 2
      continue
    }
    const length = b.readUInt16BE(i + 2)
    if (length < 2) return undefined
    if (SOF.has(marker)) {
      if (i + 9 > b.length) return undefined
      return { type: 'image/jpeg', ext: 'jpg', height: b.readUInt16BE(i + 5), width: b.readUInt16BE(i + 7) }
    }
    i += 2 + length
  }
  return undefined
}

/** A length attribute in pixels (`640`, `640px`, `640.5`); other units give undefined. */
function pixels(value: string | undefined): number | undefined {
  if (value === undefined) return undefined
  const m = /^\s*(\d+(?:\.\d+)?)\s*(px)?\s*$/.exec(value)
  return m === null ? undefined : Number(m[1])
}

function attribute(tag: string, name: string): string | undefined {
  const m = new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)')`).exec(tag)
  return m === null ? undefined : (m[2] ?? m[3])
}

/** `text` after the first `end` (nothing when there is none: an unclosed prologue is no SVG). */
function after(text: string, end: string): string {
  const i = text.indexOf(end)
  return i < 0 ? '' : text.slice(i + end.length)
}

function svg(b: Buffer): PlanImageInfo | undefined {
  let text: string
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(b)
  } catch {
    return undefined
  }
  // What may come before the root: a BOM, white space, an XML declaration, comments, a doctype.
  let rest = text.replace(/^\uFEFF/, '')
  for (;;) {
    const before = rest
    rest = rest.replace(/^\s+/, '')
    if (rest.startsWith('<?xml')) rest = after(rest, '?>')
    else if (rest.startsWith('<!--')) rest = after(rest, '-->')
    else if (/^<!DOCTYPE/i.test(rest)) rest = after(rest, '>')
    if (rest === before) break
  }
  if (!/^<svg[\s>/]/.test(rest)) return undefined
  const end = rest.indexOf('>')
  const tag = end < 0 ? rest.slice(0, 4096) : rest.slice(0, end)
  let width = pixels(attribute(tag, 'width'))
  let height = pixels(attribute(tag, 'height'))
  if (width === undefined || height === undefined) {
    const box = attribute(tag, 'viewBox')
      ?.trim()
      .split(/[\s,]+/)
      .map(Number)
    if (box !== undefined && box.length === 4 && box.every(Number.isFinite) && box[2] > 0 && box[3] > 0) {
      width = box[2]
      height = box[3]
    }
  }
  return {
    type: 'image/svg+xml',
    ext: 'svg',
    width: width !== undefined && height !== undefined ? width : null,
    height: width !== undefined && height !== undefined ? height : null,
  }
}

/** What the bytes are (PNG, JPEG or SVG, with their size), or undefined for anything else. */
export function sniffPlanImage(bytes: Buffer): PlanImageInfo | undefined {
  return png(bytes) ?? jpeg(bytes) ?? svg(bytes)
}
