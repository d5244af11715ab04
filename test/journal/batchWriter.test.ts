import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { BatchWriter, type WriterState } from '../../src/journal/batchWriter.ts'

interface Item {
  id: number
  bulk: boolean
  at: number
}

function setup(o: { capacity?: number; batchRows?: number; flushMs?: number } = {}) {
  const clock = new SimulatedClock()
  clock.set(1_000_000)
  const written: Item[][] = []
  const states: WriterState[] = []
  let failing = false
  const writer = new BatchWriter<Item>({
    clock,
    flushMs: o.flushMs ?? 100,
    batchRows: o.batchRows ?? 10,
    capacity: o.capacity ?? 1_000,
    maxBackoffMs: 1_000,
    async write(items) {
      if (failing) throw new Error('database is gone')
      written.push([...items])
    },
    category: (i) => (i.bulk ? 'commands' : 'fills'),
    isBulk: (i) => i.bulk,
    timeOf: (i) => i.at,
    onStateChange: (s) => states.push(s),
  })
  /** Advances the simulated clock and lets the write promises settle. */
  const advance = async (ms: number): Promise<void> => {
    clock.increment(ms)
    for (let i = 0; i < 5; i++) await Promise.resolve()
    await writer.settled()
  }
  return {
    clock,
    writer,
    written,
    states,
    advance,
    setFailing: (f: boolean) => {
      failing = f
    },
  }
}

const item = (id: number, bulk = false): Item => ({ id, bulk, at: 1_000 + id })

describe('BatchWriter', () => {
  it('push never writes on the caller path; the timer flushes everything in one batch', async () => {
    const t = setup()
    for (let i = 0; i < 5; i++) t.writer.push(item(i))
    expect(t.written).toEqual([])
    expect(t.writer.depth).toBe(5)
    await t.advance(99)
    expect(t.written).toEqual([])
    await t.advance(1)
    expect(t.written.map((b) => b.map((i) => i.id))).toEqual([[0, 1, 2, 3, 4]])
    expect(t.writer.stats()).toMatchObject({ written: 5, batches: 1, depth: 0, state: 'ok' })
  })

  it('flushes at once when batchRows wait, in batches of at most batchRows, essentials first', async () => {
    const t = setup({ batchRows: 4 })
    t.writer.push(item(0, true))
    t.writer.push(item(1, true))
    t.writer.push(item(2))
    t.writer.push(item(3))
    t.writer.push(item(4))
    await t.advance(0)
    expect(t.written.map((b) => b.map((i) => i.id))).toEqual([[2, 3, 4, 0], [1]])
  })

  it('a lost database: failing state once, rows kept, bulk dropped first and counted, recovery writes the rest', async () => {
    const t = setup({ capacity: 6, batchRows: 100 })
    t.setFailing(true)
    t.writer.push(item(1))
    await t.advance(100)
    expect(t.states).toEqual(['failing'])
    expect(t.writer.stats().lastError).toContain('database is gone')
    for (let i = 2; i <= 4; i++) t.writer.push(item(i, true))
    for (let i = 5; i <= 8; i++) t.writer.push(item(i))
    // 8 pushed, capacity 6: the two oldest bulk rows went, no essential one.
    let s = t.writer.stats()
    expect(s.depth).toBe(6)
    expect(s.dropped).toEqual({ commands: 2 })
    expect(s.earliestEssentialDropAt).toBeUndefined()
    t.writer.push(item(9, true))
    t.writer.push(item(10))
    expect(t.writer.stats().dropped).toEqual({ commands: 4 })
    // Nothing bulk left to drop: the oldest essential row goes, and its time is kept for a reconcile.
    t.writer.push(item(11))
    s = t.writer.stats()
    expect(s.dropped).toEqual({ commands: 4, fills: 1 })
    expect(s.earliestEssentialDropAt).toBe(1_001)
    // Backoff grows while failing; stays bounded.
    await t.advance(1_000)
    await t.advance(1_000)
    expect(t.states).toEqual(['failing'])
    t.setFailing(false)
    await t.advance(1_000)
    expect(t.states).toEqual(['failing', 'ok'])
    const ids = t.written.flat().map((i) => i.id)
    expect(ids.sort((a, b) => a - b)).toEqual([5, 6, 7, 8, 10, 11])
    expect(t.writer.stats()).toMatchObject({ depth: 0, droppedTotal: 5, state: 'ok' })
  })

  it('close writes what waits; after a failed last write it counts the rest as dropped and refuses more', async () => {
    const t = setup()
    t.writer.push(item(1))
    const s = await t.writer.close()
    expect(s.written).toBe(1)
    expect(t.writer.push(item(2))).toBe(false)
    expect(t.writer.stats().dropped).toEqual({ fills: 1 })

    const u = setup()
    u.setFailing(true)
    u.writer.push(item(1, true))
    u.writer.push(item(2))
    const f = await u.writer.close()
    expect(f).toMatchObject({ state: 'closed', droppedTotal: 2, depth: 0 })
  })

  it('the queue never exceeds its capacity whatever arrives', () => {
    const t = setup({ capacity: 100, batchRows: 1_000_000 })
    t.setFailing(true)
    for (let i = 0; i < 10_000; i++) t.writer.push(item(i, i % 3 === 0))
    expect(t.writer.depth).toBe(100)
    expect(t.writer.stats().droppedTotal).toBe(9_900)
  })
})
