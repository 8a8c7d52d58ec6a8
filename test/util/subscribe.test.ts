// subscribe(): several listeners attached in one call, all detached by the one function it returns.
import { describe, expect, it } from 'vitest'
import { EventEmitter } from 'eventemitter3'
import { subscribe } from '../../src/util/subscribe.js'

interface Events {
  found: [id: string]
  room: [id: string, room: string]
  other: []
}

describe('subscribe', () => {
  it('attaches each listener given, leaves the others alone, and detaches exactly its own', () => {
    const e = new EventEmitter<Events>()
    const seen: string[] = []
    const mine = subscribe(e, { found: (id) => seen.push(`found ${id}`), room: (id, room) => seen.push(`room ${id} ${room}`) })
    const theirs = (): void => void seen.push('theirs')
    e.on('found', theirs)
    expect(e.listenerCount('other')).toBe(0)
    e.emit('found', 'a')
    e.emit('room', 'a', 'kitchen')
    mine()
    e.emit('found', 'b')
    e.emit('room', 'b', 'hall')
    expect(seen).toEqual(['found a', 'theirs', 'room a kitchen', 'theirs'])
    expect(e.listenerCount('found')).toBe(1)
    expect(e.listenerCount('room')).toBe(0)
  })
})
