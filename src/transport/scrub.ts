/**
 * Removes secrets (passwords, credential headers) from text that reaches an error, a log line
 * or the command line: the secret itself, the forms a server or a library may echo it in
 * (URL and form encoding, JSON escapes, base64 as in a basic-auth header), and any run of 8 or
 * more characters shared with one of those forms, so a partial echo leaks nothing useful.
 */

/** What replaces a secret. */
export const SCRUBBED = '***'

/** Length of the shortest shared run that is masked; shorter secrets are masked whole. */
const MIN_RUN = 8

function base64Url(b64: string): string {
  return b64.replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')
}

/**
 * Base64 of `secret` as it looks inside a longer base64 text (e.g. `base64(email:password)`):
 * the secret can start at any of three byte offsets, and only the characters that depend on the
 * secret's bytes alone are the same whatever surrounds it.
 */
function base64Forms(secret: string): string[] {
  const bytes = Buffer.from(secret, 'utf8')
  const forms: string[] = []
  const whole = bytes.toString('base64')
  forms.push(whole, whole.replace(/=+$/, ''))
  for (let offset = 0; offset < 3; offset++) {
    const padded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64')
    // The first group mixes in the prefix (unless there is none); a trailing partial group
    // depends on whatever follows.
    const start = offset === 0 ? 0 : 4
    const end = Math.floor((offset + bytes.length) / 3) * 4
    if (end > start) forms.push(padded.slice(start, end))
  }
  return [...forms, ...forms.map(base64Url)]
}

function lowerHex(text: string): string {
  return text.replace(/%[0-9A-F]{2}/g, (m) => m.toLowerCase())
}

/** Every form of `secret` that is masked. */
export function secretForms(secret: string): string[] {
  if (secret.length === 0) return []
  const uri = encodeURIComponent(secret)
  const form = new URLSearchParams({ s: secret }).toString().slice(2)
  const forms = [
    secret,
    uri,
    lowerHex(uri),
    form,
    lowerHex(form),
    uri.replace(/%20/g, '+'),
    JSON.stringify(secret).slice(1, -1),
    ...base64Forms(secret),
  ]
  return [...new Set(forms.filter((f) => f.length > 0))]
}

/**
 * Prepared masks for a set of secrets: build once per client, apply to any number of texts.
 */
export class Scrubber {
  /** Every run of MIN_RUN characters of a long form. */
  readonly #runs = new Set<string>()
  /** Forms shorter than MIN_RUN, masked where they occur whole. */
  readonly #short: string[] = []

  constructor(secrets: readonly string[]) {
    for (const secret of secrets) {
      for (const form of secretForms(secret)) {
        if (form.length < MIN_RUN) this.#short.push(form)
        else for (let i = 0; i + MIN_RUN <= form.length; i++) this.#runs.add(form.slice(i, i + MIN_RUN))
      }
    }
    // Longest first, so a short form inside a longer one cannot leave the rest of it behind.
    this.#short.sort((a, b) => b.length - a.length)
  }

  /**
   * `text` with every secret form masked, then cut to `maxLength` characters. Masking comes
   * first: cutting first could leave the start of a secret that straddled the cut.
   */
  scrub(text: string, maxLength = Infinity): string {
    const masked = new Uint8Array(text.length)
    if (this.#runs.size > 0) {
      for (let i = 0; i + MIN_RUN <= text.length; i++)
        if (this.#runs.has(text.slice(i, i + MIN_RUN))) masked.fill(1, i, i + MIN_RUN)
    }
    for (const form of this.#short) {
      for (let at = text.indexOf(form); at >= 0; at = text.indexOf(form, at + 1)) masked.fill(1, at, at + form.length)
    }
    let out = ''
    for (let i = 0; i < text.length;) {
      if (masked[i] === 1) {
        while (i < text.length && masked[i] === 1) i++
        out += SCRUBBED
      } else {
        const start = i
        while (i < text.length && masked[i] === 0) i++
        out += text.slice(start, i)
      }
    }
    return out.length <= maxLength ? out : `${out.slice(0, Math.max(0, maxLength - 1))}…`
  }
}

/** One-off form of {@link Scrubber.scrub}. */
export function scrubSecrets(text: string, secrets: readonly string[], maxLength = Infinity): string {
  return new Scrubber(secrets).scrub(text, maxLength)
}
