/** `journal` in the configuration: the write-behind queue and retention. */
import { z } from 'zod'

const Days = z.number().int().min(1).max(36_500)

export const JournalSettings = z.strictObject({
  /** Journal runs (commands, fills, funding, alerts, PnL per minute) to SQLite or DATABASE_URL. */
  enabled: z.boolean().default(true),
  /** Write what waits this often, ms (off the order path; one transaction per batch). */
  flushMs: z.number().int().min(10).max(60_000).default(1_000),
  /** Write at once when this many rows wait; the most rows one transaction holds. */
  batchRows: z.number().int().min(1).max(10_000).default(200),
  /** Rows held while the database is away; past it commands and snapshots are dropped first (counted). */
  queueCapacity: z.number().int().min(100).max(2_000_000).default(200_000),
  /** How often the database is checked for damage (file gone, WAL corrupt, disk full, connection lost), ms. */
  checkMs: z.number().int().min(100).max(60_000).default(2_000),
  /** Pruned at start and daily; fills, funding, transfers, runs and alerts are kept. */
  retention: z
    .strictObject({
      commandsDays: Days.default(7),
      snapshotsDays: Days.default(90),
    })
    .prefault({}),
})
export type JournalSettings = z.infer<typeof JournalSettings>
