import { inspect } from 'node:util'
import { describe, expect, it } from 'vitest'
import { CENSOR, createLogger, resolveFormat } from '../../src/log/create-logger.js'
import type { LogStream } from '../../src/log/create-logger.js'
import { forwardingLogger, silentLogger } from '../../src/log/logger.js'
import type { LogRecord } from '../../src/log/logger.js'

/** A stream that keeps what was written, as standard error would show it. */
function capture(isTTY = false): LogStream & { text(): string; lines(): string[] } {
  const chunks: string[] = []
  return {
    isTTY,
    write: (text: string) => chunks.push(text),
    text: () => chunks.join(''),
    lines: () => chunks.join('').split('\n').filter((l) => l !== ''),
  }
}

describe('createLogger', () => {
  it('writes JSON lines with the level by name, the time and the message, and the fields', async () => {
    const out = capture()
    const log = await createLogger({ format: 'json', stream: out })
    const before = Date.now()
    log.warn('mqtt: broker unreachable', { url: 'mqtt://127.0.0.1:1', attempt: 3 })
    const [line, ...rest] = out.lines()
    expect(rest).toEqual([])
    const record = JSON.parse(line) as Record<string, unknown>
    expect(record).toMatchObject({ level: 'warn', msg: 'mqtt: broker unreachable', url: 'mqtt://127.0.0.1:1', attempt: 3 })
    expect(typeof record.time).toBe('number')
    expect(record.time as number).toBeGreaterThanOrEqual(before)
    // journald and Docker record the process and host themselves.
    expect(record).not.toHaveProperty('pid')
    expect(record).not.toHaveProperty('hostname')
  })

  it('writes nothing below its level, and nothing at all when silent', async () => {
    const out = capture()
    const log = await createLogger({ level: 'warn', format: 'json', stream: out })
    log.debug('not shown')
    log.info('not shown either')
    log.error('shown')
    expect(out.lines().map((l) => (JSON.parse(l) as { msg: string }).msg)).toEqual(['shown'])
    const quiet = capture()
    const silent = await createLogger({ level: 'silent', format: 'json', stream: quiet })
    silent.fatal('never')
    expect(quiet.text()).toBe('')
  })

  it('carries child bindings on every line of the child', async () => {
    const out = capture()
    const log = (await createLogger({ format: 'json', stream: out })).child({ component: 'fleet' })
    log.info('gateway hall online', { gateway: 'hall' })
    expect(JSON.parse(out.lines()[0])).toMatchObject({ component: 'fleet', gateway: 'hall', msg: 'gateway hall online', level: 'info' })
  })

  it('pretty: a human line with the time and the level, not JSON', async () => {
    const out = capture()
    const log = await createLogger({ format: 'pretty', stream: out })
    log.warn('mqtt: broker unreachable', { rssi: -70 })
    const text = out.text()
    expect(text).toMatch(/^\[\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} [+-]\d{4}\] WARN: mqtt: broker unreachable\n/)
    expect(text).toContain('rssi: -70')
    expect(() => JSON.parse(text) as unknown).toThrow()
  })

  it('auto is pretty on a terminal and JSON lines otherwise', () => {
    expect(resolveFormat('auto', capture(true))).toBe('pretty')
    expect(resolveFormat('auto', capture(false))).toBe('json')
    expect(resolveFormat('json', capture(true))).toBe('json')
  })

  it('never writes a secret passed by mistake in a field, in either format', async () => {
    for (const format of ['json', 'pretty'] as const) {
      const out = capture()
      const log = await createLogger({ format, stream: out })
      log.error('bad config', {
        password: 'hunter2-top',
        mqtt: { url: 'mqtt://h', username: 'u', password: 'pw-in-mqtt' },
        map: { token: 'tok-secret-1' },
        keys: ['7b4b5ff594fdaf8f9fc7f2b494e40001'],
        headers: { authorization: 'Bearer abc-secret' },
      })
      const text = out.text()
      for (const secret of ['hunter2-top', 'pw-in-mqtt', 'tok-secret-1', '7b4b5ff594fdaf8f9fc7f2b494e40001', 'abc-secret']) expect(text).not.toContain(secret)
      expect(text).toContain(CENSOR)
      expect(text).toContain('mqtt://h')
    }
  })

  it('shows no options or stream when inspected (nothing to leak)', async () => {
    const log = await createLogger({ format: 'json', stream: capture() })
    expect(inspect(log)).not.toContain('password')
  })
})

describe('forwardingLogger', () => {
  it('hands each line on with its level, message and the bindings merged', () => {
    const records: LogRecord[] = []
    const log = forwardingLogger((r) => records.push(r)).child({ component: 'mqtt' })
    log.warn('down', { url: 'u' })
    log.info('up')
    expect(records).toEqual([
      { level: 'warn', msg: 'down', fields: { component: 'mqtt', url: 'u' } },
      { level: 'info', msg: 'up', fields: { component: 'mqtt' } },
    ])
  })

  it('silentLogger takes every call and its children too', () => {
    expect(() => silentLogger.child({ a: 1 }).fatal('x')).not.toThrow()
  })
})
