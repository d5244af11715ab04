import { Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import type { JournalMetrics } from '../../src/journal/journal.ts'
import { registerJournalMetrics } from '../../src/ops/journalMetrics.ts'

describe('the journal on /metrics', () => {
  it('exposes state, queue depth, rows, write latency and size from one read per scrape', async () => {
    const registry = new Registry()
    let reads = 0
    const m: JournalMetrics = {
      state: 1,
      queueDepth: 42,
      queueCapacity: 200_000,
      rowsWritten: 1_000,
      rowsDropped: 3,
      rowsInvalid: 0,
      rowsRefused: 2,
      batches: 10,
      writeLatencyLastMs: 1.5,
      writeLatencyMaxMs: 9,
      writeLatencyMeanMs: 2,
      sizeBytes: 123_456,
    }
    registerJournalMetrics(registry, {
      metrics: async () => {
        reads += 1
        return m
      },
    })
    const text = await registry.metrics()
    expect(text).toMatch(/perpbot_journal_state 1\n/)
    expect(text).toMatch(/perpbot_journal_rows_refused 2\n/)
    expect(text).toMatch(/perpbot_journal_queue_depth 42\n/)
    expect(text).toMatch(/perpbot_journal_rows_dropped 3\n/)
    expect(text).toMatch(/perpbot_journal_write_latency_max_ms 9\n/)
    expect(text).toMatch(/perpbot_journal_size_bytes 123456\n/)
    expect(reads).toBe(1)
  })
})
