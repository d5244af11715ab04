/**
 * The journal on `/metrics`: state, queue depth, rows written/dropped/invalid, batch write latency
 * and the database's size, read from the journal at every scrape (one read shared by the gauges).
 */
import { Gauge, type Registry } from 'prom-client'
import type { JournalMetrics } from '../journal/journal.ts'
import { METRIC_PREFIX } from './metrics.ts'

export function registerJournalMetrics(
  registry: Registry,
  journal: { metrics(): Promise<JournalMetrics> },
): void {
  // The gauges of one scrape share one read (the size is a stat or a query).
  let read: { at: number; value: Promise<JournalMetrics> } | undefined
  const current = (): Promise<JournalMetrics> => {
    const now = Date.now()
    if (read === undefined || now - read.at > 500) read = { at: now, value: journal.metrics() }
    return read.value
  }
  const gauge = (name: string, help: string, pick: (m: JournalMetrics) => number) =>
    new Gauge({
      name: `${METRIC_PREFIX}journal_${name}`,
      help,
      registers: [registry],
      async collect() {
        this.set(pick(await current()))
      },
    })
  gauge('state', 'Journal writer: 0 ok, 1 failing (database away, rows buffered), 2 closed.', (m) => m.state)
  gauge('queue_depth', 'Rows waiting to be written.', (m) => m.queueDepth)
  gauge('queue_capacity', 'Rows the queue holds before it drops.', (m) => m.queueCapacity)
  gauge('rows_written', 'Rows written since start.', (m) => m.rowsWritten)
  gauge(
    'rows_dropped',
    'Rows dropped (queue full while the database was away) since start.',
    (m) => m.rowsDropped,
  )
  gauge('rows_invalid', 'Records refused by their schema since start.', (m) => m.rowsInvalid)
  gauge(
    'rows_refused',
    'Fills and funding rows the venue reported that the journal refused (their key held by other content) since start; each is logged.',
    (m) => m.rowsRefused,
  )
  gauge('write_latency_last_ms', 'Wall time of the last batch write, ms.', (m) => m.writeLatencyLastMs)
  gauge('write_latency_max_ms', 'Longest batch write since start, ms.', (m) => m.writeLatencyMaxMs)
  gauge('write_latency_mean_ms', 'Mean batch write since start, ms.', (m) => m.writeLatencyMeanMs)
  gauge(
    'size_bytes',
    'Size of the journal database (SQLite file and WAL, or the PostgreSQL database).',
    (m) => m.sizeBytes,
  )
}
