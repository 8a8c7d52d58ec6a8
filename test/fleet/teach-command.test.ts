// The teach command (#39): `<p>/fleet/teach` carries {id, room, seconds, request}; anything else
// anyone may publish there is refused, bounded; the answer goes to `<p>/fleet/teach/<request>`.
import { describe, expect, it } from 'vitest'
import {
  MAX_TEACH_COMMAND_BYTES,
  readTeachAnswer,
  readTeachCommand,
  teachAnswerTopic,
  teachCommandPayload,
  teachCommandTopic,
} from '../../src/fleet/teach-command.js'

const buf = (v: unknown): Buffer => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v))

describe('teach command', () => {
  it('round-trips a command, 20 s by default; topics under the prefix', () => {
    const c = { id: '0117C5000042', room: 'Kitchen', seconds: 30, request: 'r-1' }
    expect(readTeachCommand(buf(teachCommandPayload(c)))).toEqual(c)
    expect(readTeachCommand(buf({ id: 'tag', room: 'Hall', request: 'x' }))).toEqual({ id: 'tag', room: 'Hall', seconds: 20, request: 'x' })
    expect(teachCommandTopic('bk')).toBe('bk/fleet/teach')
    expect(teachAnswerTopic('bk', 'r-1')).toBe('bk/fleet/teach/r-1')
  })

  it.each([
    ['empty', ''],
    ['not JSON', '{'],
    ['a list', [1]],
    ['an id with a wildcard', { id: 'a/#', room: 'Hall', request: 'x' }],
    ['no request', { id: 'a', room: 'Hall' }],
    ['a request that is no topic level', { id: 'a', room: 'Hall', request: 'a/b' }],
    ['an empty room', { id: 'a', room: ' ', request: 'x' }],
    ['a room with control characters', { id: 'a', room: 'Hall\u0000', request: 'x' }],
    ['a room of 65 characters', { id: 'a', room: 'r'.repeat(65), request: 'x' }],
    ['0 seconds', { id: 'a', room: 'Hall', request: 'x', seconds: 0 }],
    ['an hour', { id: 'a', room: 'Hall', request: 'x', seconds: 3600 }],
    ['seconds as text', { id: 'a', room: 'Hall', request: 'x', seconds: '20' }],
    ['too large', { id: 'a', room: 'Hall', request: 'x', pad: 'p'.repeat(MAX_TEACH_COMMAND_BYTES) }],
  ])('refuses %s', (_what, payload) => {
    expect(readTeachCommand(buf(payload))).toBeUndefined()
  })

  it('reads the fleet\'s answer, and nothing that is not one', () => {
    expect(readTeachAnswer(buf({ request: 'r', id: 'a', room: 'Hall', ok: true, done: true, gateways: 4 }))).toEqual({ request: 'r', id: 'a', room: 'Hall', ok: true, done: true, gateways: 4 })
    expect(readTeachAnswer(buf({ request: 'r', id: 'a', room: 'Attic', ok: false, done: true, error: 'no room "Attic" in the site' }))?.error).toBe('no room "Attic" in the site')
    expect(readTeachAnswer(buf({ request: 'r', ok: 'yes' }))).toBeUndefined()
    expect(readTeachAnswer(buf('null'))).toBeUndefined()
  })
})
