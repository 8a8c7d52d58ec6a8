/**
 * The keys-file format, read in one place for the keyring and for `beaconkit keys check`, so
 * both see the same keys on the same line numbers.
 */

/** One key line of a keys file: its 1-based line number and its text without comment or blanks. */
export interface KeyLine {
  line: number
  text: string
}

/**
 * The key lines of a keys file: one key per line, `#` starts a comment, blank lines are
 * ignored. Lines end with LF, CR LF or a lone CR (old Mac editors), so a file from any editor
 * yields its keys rather than one long line that is all comment.
 */
export function keyLines(text: string): KeyLine[] {
  const out: KeyLine[] = []
  const lines = text.split(/\r\n|\n|\r/)
  for (let i = 0; i < lines.length; i++) {
    const hash = lines[i].indexOf('#')
    const line = (hash === -1 ? lines[i] : lines[i].slice(0, hash)).trim()
    if (line !== '') out.push({ line: i + 1, text: line })
  }
  return out
}
