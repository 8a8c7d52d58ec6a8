/**
 * A real pseudo-terminal for the live-table tests: the built command runs in a tmux pane and
 * the tests read what the screen shows. A private tmux server per test file; without tmux the
 * tests fail with what to install (they never pass by skipping).
 */
import { execFileSync } from 'node:child_process'
import { CLI, ROOT, requireBuild } from './run-cli.js'

/** Throws a clear error unless tmux can be run. */
export function requireTmux(): void {
  try {
    execFileSync('tmux', ['-V'], { encoding: 'utf8' })
  } catch {
    throw new Error('the TTY tests need tmux (a pseudo-terminal to run the live table in): install it, e.g. `sudo apt-get install tmux`')
  }
}

function quote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`
}

/** One private tmux server. */
export class Tmux {
  private readonly socket: string

  constructor(name: string) {
    requireBuild()
    requireTmux()
    this.socket = `beaconkit-${name}-${process.pid}`
  }

  run(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' })
  }

  /** Starts `beaconkit <args>` in a new session; afterwards the pane shows `EXIT=<code>` and stays open. */
  start(session: string, width: number, height: number, args: string[]): void {
    const command = [process.execPath, CLI, ...args].map(quote).join(' ')
    this.run('new-session', '-d', '-x', String(width), '-y', String(height), '-s', session, '-c', ROOT, `${command}; echo EXIT=$?; sleep 120`)
  }

  screen(session: string): string {
    return this.run('capture-pane', '-p', '-t', session)
  }

  /** tmux's own view of the pane: alternate screen on? cursor visible? */
  flags(session: string): { alternate: boolean; cursor: boolean } {
    const [alternate, cursor] = this.run('display-message', '-p', '-t', session, '#{alternate_on} #{cursor_flag}').trim().split(' ')
    return { alternate: alternate === '1', cursor: cursor === '1' }
  }

  /** Polls the screen until `test` holds. The deadline is generous (slow CI); it is not what is tested. */
  async waitFor(session: string, test: (text: string) => boolean, what: string, deadlineMs = 20_000): Promise<string> {
    const end = Date.now() + deadlineMs
    let text = ''
    while (Date.now() < end) {
      text = this.screen(session)
      if (test(text)) return text
      await new Promise((r) => setTimeout(r, 200))
    }
    throw new Error(`the screen never showed ${what}; last screen:\n${text}`)
  }

  /** Ends the server and every session in it. */
  close(): void {
    try {
      this.run('kill-server')
    } catch {
      // No server left: every session already ended.
    }
  }
}
