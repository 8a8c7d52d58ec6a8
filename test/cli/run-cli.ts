/**
 * Runs the built command (`node dist/cli/main.js …`) as a real child process. The CI builds
 * before testing; locally, a missing build fails the test with what to do (never a skip).
 */
import { spawn } from 'node:child_process'
import type { ChildProcessWithoutNullStreams } from 'node:child_process'
import { existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

/** Absolute path of the built command. */
export const CLI = fileURLToPath(new URL('../../dist/cli/main.js', import.meta.url))
/** The repository root (the working directory of every run). */
export const ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** Throws unless the command has been built. */
export function requireBuild(): void {
  if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run \`npm run build\` first`)
}

/** What a finished run produced. */
export interface CliResult {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** Starts the command; the caller waits for `done`. */
export function startCli(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): {
  child: ChildProcessWithoutNullStreams
  done: Promise<CliResult>
  /** Resolves once stdout contains `text` (or rejects when the process ends without it). */
  waitFor(text: string | RegExp): Promise<void>
  /** Standard output so far. */
  output(): string
} {
  requireBuild()
  const child = spawn(process.execPath, [CLI, ...args], { cwd: options.cwd ?? ROOT, env: { ...process.env, ...options.env } })
  let stdout = ''
  let stderr = ''
  const waiters: { test: (s: string) => boolean; resolve: () => void; reject: (e: Error) => void }[] = []
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d
    for (const w of [...waiters]) {
      if (w.test(stdout)) {
        waiters.splice(waiters.indexOf(w), 1)
        w.resolve()
      }
    }
  })
  child.stderr.setEncoding('utf8').on('data', (d: string) => {
    stderr += d
  })
  child.stdin.end(options.input ?? '')
  const done = new Promise<CliResult>((resolve) => {
    child.on('close', (code, signal) => {
      for (const w of waiters.splice(0)) w.reject(new Error(`the command ended (code ${code}) before printing the awaited text; stderr: ${stderr}`))
      resolve({ code, signal, stdout, stderr })
    })
  })
  const waitFor = (text: string | RegExp): Promise<void> => {
    const test = (s: string): boolean => (typeof text === 'string' ? s.includes(text) : text.test(s))
    if (test(stdout)) return Promise.resolve()
    return new Promise((resolve, reject) => waiters.push({ test, resolve, reject }))
  }
  return { child, done, waitFor, output: () => stdout }
}

/** Runs the command to its end. */
export function runCli(args: string[], options: { input?: string; env?: NodeJS.ProcessEnv; cwd?: string } = {}): Promise<CliResult> {
  return startCli(args, options).done
}

/** Parses JSON-lines output. */
export function jsonLines(text: string): Record<string, unknown>[] {
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>)
}

/** One JSON log record as the command writes it to standard error off a terminal. */
export interface LogLine {
  level: string
  time: number
  msg: string
  [field: string]: unknown
}

/** The JSON log records of a run's standard error, in order; other lines (the final error line, notices) are skipped. */
export function logRecords(stderr: string): LogLine[] {
  const records: LogLine[] = []
  for (const line of stderr.split('\n')) {
    if (!line.startsWith('{')) continue
    const record = JSON.parse(line) as Partial<LogLine>
    if (typeof record.level === 'string' && typeof record.msg === 'string' && typeof record.time === 'number') records.push(record as LogLine)
  }
  return records
}

/** The messages of the log records at `level` (every level when not given). */
export function logMessages(stderr: string, level?: string): string[] {
  return logRecords(stderr)
    .filter((r) => level === undefined || r.level === level)
    .map((r) => r.msg)
}
