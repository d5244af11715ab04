import { describe, expect, it } from 'vitest'
import { openJournalDb } from '../../src/journal/database.ts'
import {
  type FillInput,
  type FundingInput,
  type HistoryWindow,
  planReconcile,
  reconcileAtStart,
  type VenueHistory,
} from '../../src/journal/reconcile.ts'
import { describeBackends } from './backends.ts'
import { SCOPE } from './fixtures.ts'

const T0 = Date.UTC(2026, 10, 20)
const DAY = 86_400_000

const venueFill = (n: number): FillInput => ({
  tradeId: n,
  orderId: 500 + (n % 7),
  iid: 1 + (n % 3),
  side: n % 2 ? 'long' : 'short',
  price: `${100 + (n % 10)}.25`,
  qty: '0.5',
  taker: n % 4 === 0,
  fee: '0.01',
  feeAsset: 'USDC',
  realizedPnl: n % 2 ? '0.3' : '0',
  liquidation: false,
  ts: T0 + n * 60_000,
})
const venueFunding = (n: number): FundingInput => ({
  key: `id:${n}`,
  iid: 1 + (n % 3),
  size: '1',
  rate: '0.0001',
  asset: 'USDC',
  amount: '0.01',
  ts: T0 + n * 600_000,
})

/** The venue's pages as the client's pager yields them: newest first, 100 a page, `more` while older rows remain. */
function fakeVenue(fills: FillInput[], funding: FundingInput[], failAfterPages = Number.POSITIVE_INFINITY) {
  let served = 0
  async function* pages<R extends { ts: number }>(all: R[], w: HistoryWindow, maxPages: number) {
    const rows = all.filter((r) => r.ts >= w.since && r.ts <= w.until).sort((a, b) => b.ts - a.ts)
    for (let i = 0, p = 0; p < maxPages && i < rows.length; i += 100, p++) {
      if (served++ >= failAfterPages) throw new Error('killed')
      yield { rows: rows.slice(i, i + 100), more: i + 100 < rows.length }
    }
  }
  const venue: VenueHistory = {
    fillPages: (w, n) => pages(fills, w, n),
    fundingPages: (w, n) => pages(funding, w, n),
  }
  return venue
}

describe('planReconcile', () => {
  const base = { now: T0 + DAY, firstLookbackMs: 7 * DAY, overlapMs: 60_000, pending: undefined }
  it('an empty journal reads the lookback; otherwise from the last row less the overlap', () => {
    expect(planReconcile({ ...base, lastFillAt: undefined, lastFundingAt: T0 })).toEqual({
      fills: [{ since: T0 + DAY - 7 * DAY, until: T0 + DAY }],
      funding: [{ since: T0 - 60_000, until: T0 + DAY }],
    })
  })
  it('gaps left by a budget-stopped walk follow the newest window; rows dropped while the database was away widen the window', () => {
    const plan = planReconcile({
      ...base,
      lastFillAt: T0 + 1_000_000,
      lastFundingAt: T0 + 1_000_000,
      pending: { fills: [{ since: T0 - DAY, until: T0 - 1_000 }] },
      earliestDropAt: T0 + 500_000,
    })
    expect(plan.fills).toEqual([
      { since: T0 + 440_000, until: T0 + DAY },
      { since: T0 - DAY, until: T0 - 1_000 },
    ])
    expect(plan.funding).toEqual([{ since: T0 + 440_000, until: T0 + DAY }])
  })
})

describeBackends('reconcile', (backend) => {
  const tradeIds = async (db: Awaited<ReturnType<typeof openJournalDb>>) =>
    (await db.db.selectFrom('fills').select(['trade_id', 'order_id']).execute()).map(
      (r) => `${r.trade_id}:${r.order_id}`,
    )

  it('brings the journal level with the venue; again and again never duplicates; a page budget leaves a gap filled next time', async () => {
    const db = await openJournalDb(await backend.fresh())
    try {
      const fills = Array.from({ length: 450 }, (_, i) => venueFill(i))
      const funding = Array.from({ length: 30 }, (_, i) => venueFunding(i))
      const venue = fakeVenue(fills, funding)
      const now = T0 + 450 * 60_000
      // Budget 2 pages: the newest 200 fills, the older 250 left as a gap.
      const first = await reconcileAtStart({
        db,
        venue,
        now,
        maxPages: 2,
        firstLookbackMs: 30 * DAY,
        scope: SCOPE,
      })
      expect(first.fills).toMatchObject({ pages: 2, seen: 200, inserted: 200 })
      expect(first.fills.pending).toHaveLength(1)
      expect(first.funding).toMatchObject({ seen: 30, inserted: 30, pending: [] })
      // More fills while it was down; the next start reads the gap first, then the new ones.
      fills.push(...Array.from({ length: 20 }, (_, i) => venueFill(450 + i)))
      const later = now + 20 * 60_000
      for (let i = 0; i < 4; i++)
        await reconcileAtStart({
          db,
          venue,
          now: later,
          maxPages: 2,
          firstLookbackMs: 30 * DAY,
          scope: SCOPE,
        })
      const ids = await tradeIds(db)
      expect(new Set(ids).size).toBe(ids.length)
      expect(ids.sort()).toEqual(fills.map((f) => `${f.tradeId}:${f.orderId}`).sort())
      const again = await reconcileAtStart({
        db,
        venue,
        now: later,
        maxPages: 10,
        firstLookbackMs: 30 * DAY,
        scope: SCOPE,
      })
      expect(again.fills.inserted).toBe(0)
      expect(again.fills.pending).toEqual([])
      expect(await db.db.selectFrom('funding').selectAll().execute()).toHaveLength(30)
    } finally {
      await db.close()
    }
  })

  it('killed at any page and restarted, it ends with exactly the venue’s fills', async () => {
    const db = await openJournalDb(await backend.fresh())
    try {
      const fills = Array.from({ length: 530 }, (_, i) => venueFill(i))
      const now = T0 + 530 * 60_000
      // Killed after 1, 2, 0, … pages: the first walk never completes nor saves what it left.
      for (const killAt of [1, 2, 0, 1, 2, 1, 0, 2, 1, 1]) {
        const venue = fakeVenue(fills, [], killAt)
        await expect(
          reconcileAtStart({ db, venue, now, maxPages: 3, firstLookbackMs: 30 * DAY, scope: SCOPE }),
        ).rejects.toThrow('killed')
      }
      await reconcileAtStart({
        db,
        venue: fakeVenue(fills, []),
        now,
        maxPages: 10,
        firstLookbackMs: 30 * DAY,
        scope: SCOPE,
      })
      const ids = await tradeIds(db)
      expect(ids.length).toBe(530)
      expect(new Set(ids).size).toBe(530)
    } finally {
      await db.close()
    }
  })
})
