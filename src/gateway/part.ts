/**
 * The controller over the optional parts of a gateway or a fleet, as zigbee2mqtt's controller
 * holds its extensions: each part is one module with `start(context)` / `stop()`, the root holds
 * the list, starts it in order, stops it in reverse, and rolls back a start that fails, so no
 * half-built gateway is left running and the root never special-cases one part.
 */

/** One optional part of a running gateway or fleet (an upload, a publisher, the map, …). */
export interface Part<Context> {
  /** What the part is, for the reader of a stack trace or a log (e.g. `upload`, `mqtt`). */
  readonly name: string
  /** Starts the part; it reads what it needs from the context and leaves there what later parts use. */
  start(context: Context): Promise<void>
  /** Stops the part; also called after a start that failed half-way, so it stops what that start opened. */
  stop(): Promise<void>
}

/**
 * A part's module: from the configuration in the context, the part when the configuration asks
 * for it, or undefined when it does not (so the root keeps no `if` per part).
 */
export type PartFactory<Context> = (context: Context) => Part<Context> | undefined

/**
 * A part that keeps what its start opened in `running[key]` (where later parts and the caller
 * find it) and closes it at the stop; a start that failed left nothing there to close.
 */
export function keptPart<Context, Running extends object, Key extends keyof Running>(
  name: string,
  running: Running,
  key: Key,
  open: () => Promise<NonNullable<Running[Key]>>,
  close: (value: NonNullable<Running[Key]>) => Promise<unknown>,
): Part<Context> {
  return {
    name,
    start: async () => {
      running[key] = await open()
    },
    stop: async () => {
      const value = running[key]
      if (value !== undefined && value !== null) await close(value)
    },
  }
}

/** The parts of one run, started in order and stopped in reverse. */
export class Controller<Context> {
  readonly #started: Part<Context>[] = []

  constructor(private readonly factories: readonly PartFactory<Context>[]) {}

  /**
   * Builds and starts each part the configuration asks for, in order. A part counts as started
   * from the moment its start is called (a connection opening is closed too); when a start fails
   * the parts started so far are stopped in reverse, their own errors ignored, and the start's
   * error reaches the caller. A part after the failing one is never built.
   */
  async start(context: Context): Promise<void> {
    try {
      for (const factory of this.factories) {
        const part = factory(context)
        if (part === undefined) continue
        this.#started.push(part)
        await part.start(context)
      }
    } catch (error) {
      for (const part of this.#started.splice(0).reverse()) await part.stop().catch(() => undefined)
      throw error
    }
  }

  /** Stops the started parts in the reverse order of their start; the first error ends the stop. */
  async stop(): Promise<void> {
    for (const part of this.#started.splice(0).reverse()) await part.stop()
  }
}
