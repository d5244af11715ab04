/**
 * Issue 34 point 6 at a small size (the million-fill figures are bench/journalReads.bench.ts): the
 * journal's large reads never run on the bot's thread unpaged. The PnL baseline and `/history` read
 * through `db.reads` only (the main handle is made to throw; on SQLite `db.reads` is the reader
 * thread), in pages of at most 2,000 rows; a start with a checkpoint reads only the rows after it,
 * and a row that arrives later dated before the checkpoint is still counted (the counts are checked);
 * forty concurrent `/history` asks for one window are one read.
 */
import { type KyselyPlugin, sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import type { JournalDb } from '../../src/journal/database.ts'
import { openJournalDb } from '../../src/journal/database.ts'
import { fillRow } from '../../src/journal/pendingRows.ts'
import { checkpointStateName, loadPnlBaseline } from '../../src/journal/pnlBaseline.ts'
import { loadJournalHistory } from '../../src/journal/reading/history.ts'
import { FillRecord } from '../../src/journal/records.ts'
import { type JournalRow, writeRows } from '../../src/journal/rows.ts'
import { coalescedHistory, HistoryBusyError } from '../../src/ops/dashboard/history.ts'
import type { PnlBaseline } from '../../src/pnlTypes.ts'
import { describeBackends } from './backends.ts'
import { fill, T0 } from './fixtures.ts'

const DAY = 86_400_000
const FILLS = 5_000
const scope = { account: `0x${'e'.repeat(40)}`, venue: 'V/1/1' }

/** A handle whose every read fails: the bot's thread must not be asked. */
const refusing: KyselyPlugin = {
  transformQuery: () => {
    throw new Error('a large read ran on the main handle')
  },
  transformResult: async (a) => a.result,
}

/** Counts what `reads` answered: statements, rows, the largest answer. */
function counted(db: JournalDb) {
  const seen = { queries: 0, rows: 0, maxRows: 0 }
  const plugin: KyselyPlugin = {
    transformQuery: (a) => a.node,
    transformResult: async (a) => {
      seen.queries += 1
      seen.rows += a.result.rows.length
      seen.maxRows = Math.max(seen.maxRows, a.result.rows.length)
      return a.result
    },
  }
  const guarded: JournalDb = { ...db, db: db.db.withPlugin(refusing), reads: db.reads.withPlugin(plugin) }
  return { guarded, seen }
}

const fillAt = (n: number, ts: number): JournalRow =>
  fillRow(FillRecord.parse({ ...fill(n), tradeId: `t${n}`, orderId: n, ts }), 'rest', scope)
const fundingAt = (n: number, ts: number): JournalRow => ({
  table: 'funding',
  row: {
    ...scope,
    key: `f${n}`,
    iid: 1 + (n % 2),
    size: '1',
    rate: '0.0001',
    asset: 'USDC',
    amount: '0.01',
    ts,
  },
})

const sums = (b: PnlBaseline) =>
  Object.entries(b.instruments)
    .map(
      ([iid, l]) =>
        `${iid}:${l.fills}/${l.makerFills}/${l.volume}/${l.realizedPnl}/${l.fees}/${l.funding}/${l.lastFillAt}`,
    )
    .sort()

describeBackends('large journal reads', (b) => {
  it('the baseline reads off the main handle in pages, then from its checkpoint; a late row is counted', async () => {
    const db = await openJournalDb(await b.fresh())
    try {
      // 5,000 fills over 10 days, funding every hour.
      const rows: JournalRow[] = []
      for (let n = 0; n < FILLS; n++) rows.push(fillAt(n, T0 + Math.floor((n * 10 * DAY) / FILLS)))
      for (let n = 0; n < 240; n++) rows.push(fundingAt(n, T0 + n * 3_600_000))
      await writeRows(db.db, rows)
      if (b.name === 'sqlite') expect(db.readThread).toBeDefined()

      const plain = await loadPnlBaseline(counted(db).guarded, { recentSince: T0 + 9 * DAY, scope })
      const first = counted(db)
      const saved: { name: string; value: unknown }[] = []
      const before = T0 + 8 * DAY
      const full = await loadPnlBaseline(first.guarded, {
        recentSince: T0 + 9 * DAY,
        scope,
        checkpointBefore: before,
        saveCheckpoint: (name, value) => void saved.push({ name, value }),
      })
      expect(sums(full)).toEqual(sums(plain))
      expect(full.instruments[1]?.fills).toBe(FILLS / 2)
      // Every fill was read, in pages of at most 2,000 rows.
      expect(first.seen.rows).toBeGreaterThanOrEqual(FILLS)
      expect(first.seen.maxRows).toBeLessThanOrEqual(2_000)
      expect(saved).toHaveLength(1)
      expect(saved[0]?.name).toBe(checkpointStateName(scope))
      // The journal keeps it (the bot hands it to journal.saveState).
      await writeRows(db.db, [
        {
          table: 'state',
          row: { name: checkpointStateName(scope), value: JSON.stringify(saved[0]?.value), at: T0 },
        },
      ])

      // The next start reads the checkpoint and only the fills from it on (a fifth of them).
      const second = counted(db)
      const resumed = await loadPnlBaseline(second.guarded, {
        recentSince: T0 + 9 * DAY,
        scope,
        checkpointBefore: before,
      })
      expect(sums(resumed)).toEqual(sums(plain))
      expect(second.seen.rows).toBeLessThan(FILLS / 2)

      // A fill arrives late, dated before the checkpoint: the counts no longer hold, all is read again.
      await writeRows(db.db, [fillAt(FILLS + 1, T0 + DAY)])
      const third = counted(db)
      const after = await loadPnlBaseline(third.guarded, {
        recentSince: T0 + 9 * DAY,
        scope,
        checkpointBefore: before,
      })
      expect(sums(after)).toEqual(sums(await loadPnlBaseline(db, { recentSince: T0 + 9 * DAY, scope })))
      expect(third.seen.rows).toBeGreaterThan(FILLS)
      expect(after.instruments[2]?.fills).toBe(FILLS / 2 + 1)
    } finally {
      await db.close()
    }
  })

  it('/history reads off the main handle, its points by listed minutes', async () => {
    const db = await openJournalDb(await b.fresh())
    try {
      const rows: JournalRow[] = []
      for (let n = 0; n < 2_000; n++) rows.push(fillAt(n, T0 + n * 60_000))
      // A snapshot every minute for 3 days on two instruments.
      const minute0 = Math.floor(T0 / 60_000) * 60_000
      for (let m = 0; m < 3 * 1_440; m++)
        for (const iid of [1, 2])
          rows.push({
            table: 'pnl_snapshots',
            row: {
              ...scope,
              minute: minute0 + m * 60_000,
              iid,
              position: '0',
              realized_pnl: String(m),
              unrealized_pnl: '0',
              fees: '0',
              funding: '0',
              volume: '0',
              fills: 0,
              mode: 'live',
              inventory_pnl: '0',
              span_ms: 60_000,
            },
          })
      await writeRows(db.db, rows)
      const c = counted(db)
      const h = await loadJournalHistory(c.guarded, {
        since: minute0,
        until: minute0 + 3 * DAY,
        scope,
        maxPoints: 100,
      })
      expect(h.fillCount).toBe(2_000)
      expect(h.points.length).toBeLessThanOrEqual(100)
      expect(h.points.at(-1)?.realizedPnl).toBeGreaterThan(0)
      // No answer larger than the points asked for (the window's 8,640 snapshot rows stay in the database).
      expect(c.seen.maxRows).toBeLessThanOrEqual(2 * 101)
      const n = await sql<{ n: number }>`select count(*) as n from pnl_snapshots`.execute(db.db)
      expect(Number(n.rows[0]?.n)).toBe(2 * 3 * 1_440)
    } finally {
      await db.close()
    }
  })
})

describe('concurrent /history asks', () => {
  it('forty asks for one window are one read; more than four windows at once are refused as busy', async () => {
    const calls: unknown[] = []
    const release: (() => void)[] = []
    const source = coalescedHistory({
      read: (q) => {
        calls.push(q)
        return new Promise((resolve) => release.push(() => resolve({ q })))
      },
    })
    const same = Array.from({ length: 40 }, () => source.read({ spanMs: 90 * DAY }))
    expect(calls).toHaveLength(1)
    const others = [1, 2, 3].map((d) => source.read({ spanMs: d * DAY }))
    await expect(source.read({ spanMs: 4 * DAY })).rejects.toBeInstanceOf(HistoryBusyError)
    for (const r of release) r()
    const answers = await Promise.all([...same, ...others])
    expect(new Set(answers.slice(0, 40)).size).toBe(1)
    // Done: the window is read again when asked again.
    void source.read({ spanMs: 90 * DAY })
    expect(calls).toHaveLength(5)
  })
})
