/**
 * The journal's SQLite writes on a worker thread: the same rows written through the worker and
 * through rows.ts (the main-thread path, PostgreSQL's) leave the same tables, conflicts included (a
 * repeated fill or fill mid kept once, a moved snapshot, transfer, state and run stop upserted); a batch the
 * worker refuses rejects (the writer keeps it) and later batches still go through.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openJournalDb } from '../../src/journal/database.ts'
import { fillRow, toRow } from '../../src/journal/pendingRows.ts'
import { type JournalRow, writeRows } from '../../src/journal/rows.ts'
import { fill } from './fixtures.ts'

const dir = mkdtempSync(join(tmpdir(), 'perpbot-writer-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const T = Date.UTC(2026, 10, 20)
function batches(): JournalRow[][] {
  const snap = (unrealized: string) =>
    toRow(
      {
        t: 'pnl_snapshots',
        at: T,
        rec: {
          minute: T,
          iid: 1,
          position: '1',
          realizedPnl: '0',
          unrealizedPnl: unrealized,
          fees: '0',
          funding: '0',
          volume: '0',
          fills: 0,
          mode: 'quoting',
        },
      },
      'r1',
      1,
      { account: '0xa', venue: 'mock:r1' },
    )
  const transfer = (status: string) =>
    toRow(
      {
        t: 'transfers',
        at: T,
        rec: {
          kind: 'deposit',
          id: '0xab',
          asset: 'pUSD',
          amount: '5',
          fee: '0',
          status,
          ts: T,
          updatedAt: T,
        },
      },
      'r1',
      1,
    )
  const run = (stoppedAt: number | null) =>
    ({
      table: 'runs',
      row: {
        account: '0xa',
        venue: 'V/1/1',
        clock_rate: 1,
        run_id: 'r1',
        started_at: T,
        stopped_at: stoppedAt,
        stop_reason: stoppedAt === null ? null : 'done',
        version: 't',
        mode: 'live',
        config_hash: 'h',
        pid: 1,
      },
    }) satisfies JournalRow
  const mid = (horizonMs: number, m: string) =>
    toRow(
      {
        t: 'fill_mids',
        at: T,
        rec: { tradeId: '1', orderId: 1001, fillTs: fill(1).ts, horizonMs, mid: m, at: T },
      },
      'r1',
      1,
    )
  return [
    [
      run(null),
      fillRow({ ...fill(1), tradeId: '1' }, 'stream'),
      snap('1'),
      transfer('pending'),
      mid(0, '100.5'),
    ],
    [
      fillRow({ ...fill(1), tradeId: '1' }, 'rest'),
      fillRow({ ...fill(2), tradeId: '2' }, 'rest', { account: '0xa', venue: 'mock:r1' }),
      // The same key with another price: refused, and said so (never dropped silently).
      fillRow({ ...fill(1), tradeId: '1', price: '99' }, 'rest'),
      // A venue whose ids restarted: the same ids at another time are a new fill.
      fillRow({ ...fill(1), tradeId: '1', ts: fill(1).ts + 3_600_000 }, 'rest'),
      snap('2'),
      transfer('confirmed'),
      { table: 'state', row: { name: 's', value: '{"a":1}', at: T } },
      { table: 'state', row: { name: 's', value: '{"a":2}', at: T + 1 } },
      run(T + 5),
      // A mid written again (a retried batch) is kept once.
      mid(0, '100.5'),
      mid(1_000, '100.25'),
    ],
  ]
}

describe('the SQLite writer thread', () => {
  it('leaves the same tables as the main-thread path, conflicts included', async () => {
    const viaWorker = await openJournalDb({ kind: 'sqlite', path: join(dir, 'worker.sqlite') })
    const viaMain = await openJournalDb(
      { kind: 'sqlite', path: join(dir, 'main.sqlite') },
      { writerThread: false },
    )
    expect(viaWorker.writeThread).toBeDefined()
    expect(viaMain.writeThread).toBeUndefined()
    try {
      const newFills: number[] = []
      const refused: unknown[] = []
      const refusedMain: unknown[] = []
      for (const b of batches()) {
        const r = await viaWorker.writeThread?.write(b)
        newFills.push(r?.newFills ?? -1)
        refused.push(...(r?.refused ?? []))
        refusedMain.push(...(await writeRows(viaMain.db, b)).refused)
      }
      expect(newFills).toEqual([1, 2])
      expect(refused).toEqual([
        {
          table: 'fills',
          key: `trade 1 / order 1001 at ${new Date(fill(1).ts).toISOString()}`,
          differs: 'price 100.5 ≠ 99',
        },
      ])
      expect(refusedMain).toEqual(refused)
      for (const table of ['runs', 'fills', 'pnl_snapshots', 'transfers', 'state', 'fill_mids'] as const) {
        const a = await viaWorker.db.selectFrom(table).selectAll().execute()
        const b = await viaMain.db.selectFrom(table).selectAll().execute()
        expect(a, table).toEqual(b)
        expect(a.length, table).toBeGreaterThan(0)
      }
      expect(await viaWorker.db.selectFrom('fill_mids').select(['horizon_ms', 'mid']).execute()).toEqual([
        { horizon_ms: 0, mid: '100.5' },
        { horizon_ms: 1_000, mid: '100.25' },
      ])
      // A batch it refuses rejects; the next one is written.
      const bad = [{ table: 'nope', row: { x: 1 } }] as unknown as JournalRow[]
      await expect(viaWorker.writeThread?.write(bad)).rejects.toThrow(/unknown journal table/)
      await viaWorker.writeThread?.write([fillRow({ ...fill(3), tradeId: '3' }, 'rest')])
      expect(await viaWorker.db.selectFrom('fills').select('trade_id').execute()).toHaveLength(4)
    } finally {
      await viaWorker.close()
      await viaMain.close()
    }
    // Closed: a late write is refused, not lost silently.
    await expect(viaWorker.writeThread?.write([])).rejects.toThrow()
  })
})
