/**
 * The file queue's `ack` file: the highest acknowledged seq, written into two checksummed
 * slots in turn (format in journal.ts), so a torn write leaves the previous value readable.
 */
import { open } from 'node:fs/promises'
import type { FileHandle } from 'node:fs/promises'
import { join } from 'node:path'
import { ACK_SLOT, decodeAckFile, encodeAckSlot, syncDir } from './journal.js'

/** An open ack file. */
export class AckFile {
  private constructor(
    private readonly handle: FileHandle,
    private acknowledged: number,
    private slot: 0 | 1,
    /** False when the file was missing or unreadable: the ack is unknown, not 0. */
    readonly known: boolean,
  ) {}

  /** Opens the ack file of `dir`, creating it (acked 0) when missing. */
  static async open(dir: string): Promise<AckFile> {
    const path = join(dir, 'ack')
    let handle: FileHandle
    try {
      handle = await open(path, 'r+')
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e
      handle = await open(path, 'w+')
      try {
        await handle.write(Buffer.concat([encodeAckSlot(0), encodeAckSlot(0)]), 0, 2 * ACK_SLOT, 0)
        await handle.sync()
        await syncDir(dir)
      } catch (failed) {
        // A full disk at start must not cost a file handle per attempt.
        await handle.close().catch(() => undefined)
        throw failed
      }
      return new AckFile(handle, 0, 0, false)
    }
    try {
      const { seq, nextSlot, valid } = decodeAckFile(await handle.readFile())
      return new AckFile(handle, seq, nextSlot, valid)
    } catch (e) {
      await handle.close().catch(() => undefined)
      throw e
    }
  }

  /** The acknowledged seq (0 when none). */
  get acked(): number {
    return this.acknowledged
  }

  /** Durably records `seq` as acknowledged. */
  async write(seq: number): Promise<void> {
    await this.handle.write(encodeAckSlot(seq), 0, ACK_SLOT, this.slot * ACK_SLOT)
    await this.handle.datasync()
    this.slot = this.slot === 0 ? 1 : 0
    this.acknowledged = seq
  }

  /** Durably records `seq` in both slots: a damaged higher value in either can no longer win. */
  async reset(seq: number): Promise<void> {
    await this.handle.write(Buffer.concat([encodeAckSlot(seq), encodeAckSlot(seq)]), 0, 2 * ACK_SLOT, 0)
    await this.handle.datasync()
    this.slot = 0
    this.acknowledged = seq
  }

  /** Closes the file; never throws. */
  async close(): Promise<void> {
    await this.handle.close().catch(() => undefined)
  }
}
