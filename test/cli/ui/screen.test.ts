import { describe, it, expect } from 'vitest'
import { RESTORE_TERMINAL, TableScreen } from '../../../src/cli/ui/screen.js'
import type { Beacon } from '../../../src/reading.js'

class FakeTerminal {
  written = ''
  columns = 80
  rows = 10
  private resize: (() => void)[] = []
  write(text: string): boolean {
    this.written += text
    return true
  }
  on(_event: 'resize', listener: () => void): this {
    this.resize.push(listener)
    return this
  }
  off(_event: 'resize', listener: () => void): this {
    this.resize = this.resize.filter((l) => l !== listener)
    return this
  }
  emitResize(): void {
    for (const l of this.resize) l()
  }
  get listeners(): number {
    return this.resize.length
  }
}

const beacon: Beacon = { id: 'b1', address: 'aa:bb:cc:dd:ee:ff', timestamp: 0, rssi: -60, frames: ['ibeacon'], inRange: true, firstSeen: 0, lastSeen: 1000, smoothedRssi: -60, accuracy: 1, proximity: 'near' }

describe('TableScreen', () => {
  it('enters the alternate screen with a hidden cursor, redraws from home, and restores on close', () => {
    const term = new FakeTerminal()
    const screen = new TableScreen(term)
    screen.open()
    expect(term.written).toBe('\x1b[?1049h\x1b[?25l\x1b[H\x1b[J')
    term.written = ''
    screen.update([beacon], { advertsPerSecond: 3, inRange: 1, rejected: 0 }, 1000)
    expect(term.written.startsWith('\x1b[H')).toBe(true)
    expect(term.written.endsWith('\x1b[J')).toBe(true)
    expect(term.written).toContain('aa:bb:cc:dd:ee:ff')
    screen.close()
    expect(term.written.endsWith(RESTORE_TERMINAL)).toBe(true)
    expect(term.listeners).toBe(0)
    const before = term.written
    screen.close()
    screen.update([beacon], { advertsPerSecond: 3, inRange: 1, rejected: 0 }, 2000)
    expect(term.written).toBe(before)
  })

  it('redraws at the new size when the terminal is resized', () => {
    const term = new FakeTerminal()
    const screen = new TableScreen(term)
    screen.open()
    screen.update([beacon], { advertsPerSecond: 3, inRange: 1, rejected: 0 }, 1000)
    term.written = ''
    term.columns = 30
    term.emitResize()
    // eslint-disable-next-line no-control-regex
    const lines = term.written.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '').split('\r\n')
    expect(lines.length).toBeGreaterThan(1)
    for (const l of lines) expect(l.length).toBeLessThanOrEqual(30)
  })
})
