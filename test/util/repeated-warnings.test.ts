// Repeated warnings are counted per kind and printed once per interval, the first at once
// (issue 23, item 15: 1,576 "dropped 1 events" lines and 20,000 "push refused" lines before).
import { describe, expect, it } from 'vitest'
import { RepeatedWarnings, formatCount } from '../../src/util/repeated-warnings.js'
import { waitFor } from '../integration/wait.js'

describe('RepeatedWarnings', () => {
  it('prints the first warning of a kind at once and the next 1,575 as one line when the interval ends', async () => {
    const lines: string[] = []
    const w = new RepeatedWarnings((t) => lines.push(t), 100)
    for (let i = 0; i < 1576; i++) w.add('write_failed', 1, (n) => `dropped ${formatCount(n)} events (write_failed)`)
    w.add('queue_full', 3, (n) => `dropped ${formatCount(n)} events (queue_full)`)
    expect(lines).toEqual(['dropped 1 events (write_failed)', 'dropped 3 events (queue_full)'])
    await waitFor(() => lines.length === 3, 'the summary line')
    expect(lines[2]).toBe('dropped 1,575 events (write_failed) in the last 1 s')
    // A kind quiet for a whole interval starts afresh: its next warning is printed at once.
    await new Promise((resolve) => setTimeout(resolve, 350))
    w.add('write_failed', 1, (n) => `dropped ${formatCount(n)} events (write_failed)`)
    expect(lines.at(-1)).toBe('dropped 1 events (write_failed)')
    w.close()
    expect(lines).toHaveLength(4)
  })

  it('says what is still counted when closed', () => {
    const lines: string[] = []
    const w = new RepeatedWarnings((t) => lines.push(t), 60_000)
    for (let i = 0; i < 20_000; i++) w.add('malformed', 1, (n) => (n === 1 ? 'push refused (malformed): the push is not JSON' : `${formatCount(n)} pushes refused (malformed)`))
    w.close()
    expect(lines).toEqual(['push refused (malformed): the push is not JSON', '19,999 pushes refused (malformed) in the last 1 s'])
  })

  it('tells when a kind stopped (a whole interval without one), with the total, so its condition can clear', async () => {
    const said: [string, string, boolean][] = []
    const stopped: [string, number][] = []
    const w = new RepeatedWarnings((text, key, first) => said.push([text, key, first]), 100, (key, total) => stopped.push([key, total]))
    for (let i = 0; i < 5; i++) w.add('queue_full', 2, (n) => `dropped ${n} events (queue_full)`)
    expect(said).toEqual([['dropped 2 events (queue_full)', 'queue_full', true]])
    // One interval sums the other 8, the next is quiet: the kind stopped, 10 in all.
    await waitFor(() => stopped.length === 1, 'the quiet interval')
    expect(said[1]).toEqual(['dropped 8 events (queue_full) in the last 1 s', 'queue_full', false])
    expect(stopped).toEqual([['queue_full', 10]])
    w.close()
  })
})
