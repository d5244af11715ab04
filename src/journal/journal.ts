/**
 * The journal part: what the bot records (runs, commands with the venue's answer per item, order
 * states, fills, funding, transfers, alerts, a PnL snapshot per instrument per minute, restart state)
 * and how (a `BatchWriter`: every call returns at once, rows are validated and written off the order
 * path in batched transactions). Reads for restart (state, the last fill and funding times) go
 * straight to the database; so do retention and the reconcile's inserts.
 */
import { randomUUID } from 'node:crypto'
import { sql } from 'kysely'
import type { z } from 'zod'
import type { Clock } from '../clock.ts'
import { BatchWriter, type WriterState, type WriterStats } from './batchWriter.ts'
import type { JournalDb } from './database.ts'
import { type JournalScope, UNKNOWN_ACCOUNT } from './journalScope.ts'
import { type FillSource, type Pending, timeOf, toRow } from './pendingRows.ts'
import type {
  AlertRecord,
  CommandRecord,
  EquityRecord,
  FillMidRecord,
  FillRecord,
  FundingRecord,
  OrderEvent,
  PnlSnapshotRecord,
  RunStart,
  TransferRecord,
} from './records.ts'
import { type PruneResult, pruneJournal } from './retention.ts'
import { BULK_TABLES, type JournalRow, type JournalTableName, type RefusedRow, writeRows } from './rows.ts'
import type { RunsTable } from './schema/tables.ts'
import type { JournalSettings } from './settings.ts'
import { readSpools, removeSpools, writeSpool } from './spool.ts'

export interface JournalStats extends WriterStats {
  /** Records refused by their schema (a bug upstream), by table. */
  invalid: Record<string, number>
  lastInvalid: string | undefined
  /** Rows the venue reported that the journal did not take (their key held by other content), by table. */
  refused: Record<string, number>
  lastRefused: string | undefined
  where: string
  kind: 'sqlite' | 'postgres'
  /** Rows the close could not write and kept in the spool (spool.ts), and where. */
  spooledRows: number
  spoolPath: string | undefined
  /** Rows an earlier run spooled, written by this one. */
  replayedRows: number
}

export interface JournalMetrics {
  /** 0 ok, 1 failing (the database is away), 2 closed. */
  state: number
  queueDepth: number
  queueCapacity: number
  rowsWritten: number
  rowsDropped: number
  rowsInvalid: number
  /** Venue rows refused: their key (account, venue, ids, time) already held by a row with other content. */
  rowsRefused: number
  batches: number
  writeLatencyLastMs: number
  writeLatencyMaxMs: number
  writeLatencyMeanMs: number
  sizeBytes: number
}

export interface Journal {
  readonly runId: string
  /** Who numbered the ids of this run's fills, funding and transfers (the exchange domain, `mock:<run id>`). */
  readonly venue: string
  /** Whose rows these are: the account and the venue (account `unknown` until `bind`). */
  scope(): JournalScope
  /**
   * The account (and the venue's domain) once connected: rows queued so far wait for it and are
   * written under it. A journal for a per-run mock keeps its `mock:<run id>` venue.
   */
  bind(scope: JournalScope): void
  /** Venue rows another writer (the reconcile) could not insert: counted and reported like the writer's. */
  noteRefused(rows: readonly RefusedRow[]): void
  readonly db: JournalDb
  command(c: z.input<typeof CommandRecord>): void
  orderEvent(e: z.input<typeof OrderEvent>): void
  fill(f: z.input<typeof FillRecord>, source: FillSource): void
  funding(f: z.input<typeof FundingRecord>): void
  transfer(t: z.input<typeof TransferRecord>): void
  alert(a: z.input<typeof AlertRecord>): void
  /** One row per instrument per minute; a later call in the same minute replaces it. */
  snapshot(s: z.input<typeof PnlSnapshotRecord>): void
  /** The account's net PnL at a moment (the drawdown's curve: every 2 s of bot time, when it moved). */
  equity(e: z.input<typeof EquityRecord>): void
  /** The book's mid at one of our fills or a horizon after it (markouts; fillMids.ts), once known. */
  fillMid(m: z.input<typeof FillMidRecord>): void
  /** Named restart state (JSON); replaces the `ops.stateDir` JSON files. */
  saveState(name: string, value: unknown): void
  loadState(name: string): Promise<unknown>
  /** The newest journaled fill and funding times (reconcile starts there). */
  lastRecordTimes(): Promise<{ fill: number | undefined; funding: number | undefined }>
  stats(): JournalStats
  /** Told of each change of the database's state (ok → failing and back); returns the unsubscribe. */
  watchState(listener: (state: WriterState, stats: JournalStats) => void): () => void
  /** Values for /metrics: queue depth, write latency, rows written and dropped, the database's size. */
  metrics(): Promise<JournalMetrics>
  /** Deletes commands, order events and snapshots past their retention (at start, then daily). */
  prune(): Promise<PruneResult>
  flush(): Promise<void>
  /** Records the run's stop, writes what waits, closes the database. */
  close(reason: string): Promise<JournalStats>
}

export interface OpenJournalOptions {
  db: JournalDb
  clock: Clock
  settings: JournalSettings
  run: Omit<RunStart, 'runId' | 'pid' | 'startedAt'> & { runId?: string | undefined }
  /**
   * Who numbers the ids (trade, order, withdrawal): '' (default) the real venue, whose ids are global;
   * `'per-run'` an embedded mock started for this run alone (a dry run, a simulation), whose ids start
   * at 1 again each time: its rows are keyed by `mock:<run id>`. Any other label given here (the paper
   * book's `paper`) is kept when the account is bound, as `per-run`'s is.
   */
  venue?: string | undefined
  /** The account, when known at open (tests, tools); default `unknown` unless `bindLater`. */
  account?: string | undefined
  /**
   * The bot's journal: the account is known only once connected (`bind`); nothing is written before,
   * so no row of this run is kept under `unknown` (unless the run ends before it connects).
   */
  bindLater?: boolean | undefined
  /** The clock's rate (an accelerated mock's), kept on the run's row. */
  clockRate?: number | undefined
  /** Each venue row the journal refused (its key held by a row with other content): the bot logs it. */
  onRefused?: ((row: RefusedRow) => void) | undefined
  pid?: number | undefined
  /** ok → failing and back: the bot raises and resolves its "journal database lost" alert here. */
  onStateChange?: ((state: WriterState, stats: JournalStats) => void) | undefined
  /**
   * Where what could not be written by the close is spooled, and an earlier run's spool is read at
   * the start (default: `<file>-spool` beside a SQLite journal; the temporary folder otherwise).
   */
  spoolDir?: string | undefined
}

/** Records checked between two turns of the event loop while a batch is prepared. */
const VALIDATE_SLICE = 8

/** The venue key of an embedded mock started for one run. */
export const perRunVenue = (runId: string): string => `mock:${runId}`

/** Starts a journal on an open database and queues the run's start. */
export function createJournal(o: OpenJournalOptions): Journal {
  const pid = o.pid ?? process.pid
  const runId = o.run.runId ?? randomUUID()
  const perRun = o.venue === 'per-run'
  // A named venue (per-run mock, paper) stays: the domain a connect reports is the local book's.
  const keepVenue = o.venue !== undefined && o.venue !== ''
  let scope: JournalScope = {
    account: o.account?.toLowerCase() ?? UNKNOWN_ACCOUNT,
    venue: perRun ? perRunVenue(runId) : (o.venue ?? ''),
  }
  let bound = o.bindLater !== true
  const invalid: Record<string, number> = {}
  let lastInvalid: string | undefined
  const refused: Record<string, number> = {}
  let lastRefused: string | undefined
  const noteRefused = (rows: readonly RefusedRow[]): void => {
    for (const r of rows) {
      refused[r.table] = (refused[r.table] ?? 0) + 1
      lastRefused = `${r.table}: ${r.key} (${r.differs})`.slice(0, 400)
      try {
        o.onRefused?.(r)
      } catch {
        // The log line is the caller's; a bug there must not stop the writer.
      }
    }
  }
  let seq = 0
  const watchers = new Set<(state: WriterState, stats: JournalStats) => void>()
  const runRow: Omit<RunsTable, 'account' | 'venue'> = {
    clock_rate: o.clockRate ?? 1,
    run_id: runId,
    started_at: o.clock.now(),
    stopped_at: null,
    stop_reason: null,
    version: o.run.version,
    mode: o.run.mode,
    config_hash: o.run.configHash,
    pid,
  }
  const spoolDir = o.spoolDir ?? (o.db.kind === 'sqlite' ? `${o.db.where}-spool` : undefined)
  const spool: { rows: number; path: string | undefined; replayed: number } = {
    rows: 0,
    path: undefined,
    replayed: 0,
  }
  const stats = (): JournalStats => ({
    ...writer.stats(),
    invalid: { ...invalid },
    lastInvalid,
    refused: { ...refused },
    lastRefused,
    where: o.db.where,
    kind: o.db.kind,
    spooledRows: spool.rows,
    spoolPath: spool.path,
    replayedRows: spool.replayed,
  })
  const writer: BatchWriter<Pending> = new BatchWriter<Pending>({
    clock: o.clock,
    flushMs: o.settings.flushMs,
    batchRows: o.settings.batchRows,
    capacity: o.settings.queueCapacity,
    category: (p) => p.t,
    isBulk: (p) => p.t !== 'spooled' && BULK_TABLES.has(p.t),
    timeOf,
    ready: () => bound,
    onStateChange: (state) => {
      const s = stats()
      o.onStateChange?.(state, s)
      for (const w of watchers) {
        try {
          w(state, s)
        } catch {
          // A watcher's bug must not stop the writer.
        }
      }
    },
    async write(items) {
      const rows: JournalRow[] = []
      for (let i = 0; i < items.length; i++) {
        const p = items[i]
        if (p === undefined) continue
        // A record's check costs up to ~0.1 ms (a command with its items): a slice at a time, the
        // bot's event loop turning between slices, so a price move never waits out a whole batch.
        if (i > 0 && i % VALIDATE_SLICE === 0) await new Promise((r) => setImmediate(r))
        try {
          rows.push(toRow(p, runId, pid, scope))
        } catch (e) {
          invalid[p.t] = (invalid[p.t] ?? 0) + 1
          lastInvalid = `${p.t}: ${e instanceof Error ? e.message.slice(0, 300) : String(e)}`
        }
      }
      if (rows.length === 0) return
      // SQLite: on the worker thread, so the bot's event loop never waits out a transaction.
      const r =
        o.db.writeThread !== undefined ? await o.db.writeThread.write(rows) : await writeRows(o.db.db, rows)
      noteRefused(r.refused)
    },
  })
  const push = (p: Pending): void => {
    writer.push(p)
  }
  const now = (): number => o.clock.now()
  // An earlier run's spool first (its rows are older); its files go once written.
  const spooled = readSpools(spoolDir, o.db.where)
  for (const f of spooled) for (const row of f.rows) push({ t: 'spooled', row, at: o.clock.now() })
  if (spooled.length > 0)
    void writer.flush().then(() => {
      if (writer.stats().state !== 'ok') return
      spool.replayed = spooled.reduce((n, f) => n + f.rows.length, 0)
      removeSpools(spooled.map((f) => f.path))
    })
  push({ t: 'runs', row: runRow })
  // Damage is looked for every `checkMs` (not only when a write fails): writes are held while it lasts.
  let probeTimer: ReturnType<Clock['setTimeout']> | undefined
  let probing = true
  const probe = (): void => {
    probeTimer = undefined
    const check = o.db.integrity
    if (!probing || check === undefined) return
    void check()
      .catch((e: unknown) => `cannot check the journal (${e instanceof Error ? e.message : String(e)})`)
      .then((problem) => {
        writer.hold(problem)
        if (probing) probeTimer = o.clock.setTimeout(probe, o.settings.checkMs)
      })
  }
  probeTimer = o.clock.setTimeout(probe, o.settings.checkMs)
  return {
    runId,
    get venue() {
      return scope.venue
    },
    scope: () => ({ ...scope }),
    bind(next) {
      scope = { account: next.account.toLowerCase(), venue: keepVenue ? scope.venue : next.venue }
      bound = true
      void writer.flush()
    },
    noteRefused,
    db: o.db,
    command: (rec) => push({ t: 'commands', seq: ++seq, rec, at: rec.ts }),
    orderEvent: (rec) => push({ t: 'order_events', seq: ++seq, rec, at: rec.ts }),
    fill: (rec, source) => push({ t: 'fills', rec, source, at: rec.ts }),
    funding: (rec) => push({ t: 'funding', rec, at: rec.ts }),
    transfer: (rec) => push({ t: 'transfers', rec, at: rec.updatedAt }),
    alert: (rec) => push({ t: 'alerts', rec, at: rec.at }),
    snapshot: (rec) => push({ t: 'pnl_snapshots', rec, at: rec.minute }),
    equity: (rec) => push({ t: 'equity', rec, at: rec.at }),
    fillMid: (rec) => push({ t: 'fill_mids', rec, at: rec.at }),
    saveState: (name, value) => push({ t: 'state', name, value, at: now() }),
    async loadState(name) {
      const row = await o.db.db
        .selectFrom('state')
        .select('value')
        .where('name', '=', name)
        .executeTakeFirst()
      return row === undefined ? undefined : JSON.parse(row.value)
    },
    async lastRecordTimes() {
      const f = await o.db.db
        .selectFrom('fills')
        .select(sql<number | null>`max(ts)`.as('t'))
        .where('account', '=', scope.account)
        .where('venue', '=', scope.venue)
        .executeTakeFirst()
      const g = await o.db.db
        .selectFrom('funding')
        .select(sql<number | null>`max(ts)`.as('t'))
        .where('account', '=', scope.account)
        .where('venue', '=', scope.venue)
        .executeTakeFirst()
      const n = (v: number | string | null | undefined): number | undefined =>
        v === null || v === undefined ? undefined : Number(v)
      return { fill: n(f?.t), funding: n(g?.t) }
    },
    stats,
    watchState(listener) {
      watchers.add(listener)
      return () => {
        watchers.delete(listener)
      }
    },
    async metrics() {
      const s = stats()
      let sizeBytes = 0
      try {
        sizeBytes = await o.db.sizeBytes()
      } catch {
        // The database is away: the size is unknown, the rest still tells the story.
      }
      return {
        state: s.state === 'ok' ? 0 : s.state === 'failing' ? 1 : 2,
        queueDepth: s.depth,
        queueCapacity: s.capacity,
        rowsWritten: s.written,
        rowsDropped: s.droppedTotal,
        rowsInvalid: Object.values(s.invalid).reduce((a, b) => a + b, 0),
        rowsRefused: Object.values(s.refused).reduce((a, b) => a + b, 0),
        batches: s.batches,
        writeLatencyLastMs: s.lastWriteMs,
        writeLatencyMaxMs: s.maxWriteMs,
        writeLatencyMeanMs: s.batches === 0 ? 0 : s.totalWriteMs / s.batches,
        sizeBytes,
      }
    },
    prune: () => pruneJournal(o.db, now(), o.settings.retention),
    flush: () => writer.flush(),
    async close(reason) {
      probing = false
      if (probeTimer !== undefined) o.clock.clearTimeout(probeTimer)
      push({ t: 'runs', row: { ...runRow, stopped_at: now(), stop_reason: reason.slice(0, 200) } })
      // What could not be written goes to the spool (bounded) for the next start, not to the floor.
      await writer.close((items) => {
        const rows: JournalRow[] = []
        for (const p of items) {
          try {
            rows.push(toRow(p, runId, pid, scope))
          } catch {
            // An invalid record is never written anyway.
          }
        }
        const w = writeSpool(spoolDir, o.db.where, runId, rows)
        spool.rows = w.kept
        spool.path = w.path
        return w.kept === rows.length ? items.length : w.kept
      })
      const final = stats()
      await o.db.close()
      return final
    },
  }
}

export type { JournalTableName }
