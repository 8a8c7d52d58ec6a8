/**
 * Listening to several events of one emitter and letting go of all of them at once: the
 * listeners are named once, in one object, instead of once in an `on` list and again in an
 * `off` list that must be kept in step by hand.
 */
import type { EventEmitter } from 'eventemitter3'

/** A listener per event name, each typed by the emitter's event map (all optional). */
export type ListenerMap<Events extends EventEmitter.ValidEventTypes> = {
  [K in EventEmitter.EventNames<Events>]?: EventEmitter.EventListener<Events, K>
}

/** Attaches every listener of `listeners` to `emitter`; returns a function that detaches them all. */
export function subscribe<Events extends EventEmitter.ValidEventTypes>(
  emitter: EventEmitter<Events>,
  listeners: ListenerMap<Events>,
): () => void {
  const names = Object.keys(listeners) as EventEmitter.EventNames<Events>[]
  const attach = <K extends EventEmitter.EventNames<Events>>(name: K): void => {
    const fn = listeners[name]
    if (fn !== undefined) emitter.on(name, fn)
  }
  const detach = <K extends EventEmitter.EventNames<Events>>(name: K): void => {
    const fn = listeners[name]
    if (fn !== undefined) emitter.off(name, fn)
  }
  for (const name of names) attach(name)
  return () => {
    for (const name of names) detach(name)
  }
}
