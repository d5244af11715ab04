/**
 * PnL across restarts: the bot's path (ledger → journal) for a first run, then a second start whose
 * ledger begins at the journal's baseline: the same realized PnL, fees, funding and fill counts, and
 * the pollers' overlapping first reads are not counted twice.
 */

import { expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { PnlLedger } from '../../src/bot/account/pnlLedger.ts'
import { journalAccountRecords } from '../../src/bot/startup/botJournal.ts'
import { openJournalDb } from '../../src/journal/database.ts'
import { createJournal } from '../../src/journal/journal.ts'
import { fillRow } from '../../src/journal/pendingRows.ts'
import { loadPnlBaseline } from '../../src/journal/pnlBaseline.ts'
import { FillRecord } from '../../src/journal/records.ts'
import { type JournalRow, writeRows } from '../../src/journal/rows.ts'
import { JournalSettings } from '../../src/journal/settings.ts'
import type { Fill, FundingCharge } from '../../src/perps/schemas/account.ts'
import { describeBackends } from './backends.ts'
import { fill, T0 } from './fixtures.ts'

const venueFill = (n: number): Fill => ({
  tid: n,
  oid: 500 + n,
  iid: 1 + (n % 2),
  side: n % 2 === 0 ? 'long' : 'short',
  p: '100.25',
  qty: '0.3',
  taker: n % 3 === 0,
  fee: n % 3 === 0 ? '0.0301' : '-0.006',
  fea: 'USDC',
  psz: '0',
  pep: '0',
  pnl: n % 2 === 0 ? '0' : '-1.17',
  liq: n === 5,
  ts: T0 + n * 10_000,
})
const charge = (n: number): FundingCharge => ({
  id: n,
  instrument_id: 1 + (n % 2),
  size: '0.3',
  funding_rate: '0.0001',
  funding_asset: 'USDC',
  funding: n % 2 === 0 ? '0.003' : '-0.0011',
  timestamp: T0 + n * 3_600_000,
})

describeBackends('PnL across restarts', (b) => {
  it('start, fill, stop, start again: the same realized PnL, fees, funding and fills', async () => {
    const target = await b.fresh()
    const clock = new SimulatedClock()
    clock.set(T0)
    const settings = JournalSettings.parse({})
    const run = { version: 't', mode: 'live' as const, configHash: 'h' }
    // First run: what the pollers and the stream hand the ledger, recorded as the bot does.
    const first = createJournal({ db: await openJournalDb(target), clock, settings, run })
    const records = journalAccountRecords(first, clock)
    const ledger = new PnlLedger()
    for (let n = 1; n <= 12; n++) {
      const f = venueFill(n)
      if (ledger.applyFill(f)) records.fill(f)
      if (ledger.applyFill(f)) records.fill(f) // the REST read repeats a pushed fill: dropped
    }
    for (let n = 1; n <= 3; n++) if (ledger.applyFunding(charge(n))) records.funding(charge(n))
    clock.increment(12 * 3_600_000)
    await first.close('stopped')
    const before = ledger.snapshot()
    expect(before.account.fills).toBe(12)

    // Second start: the ledger begins at the journal's baseline.
    const db = await openJournalDb(target)
    const second = createJournal({ db, clock, settings, run })
    const baseline = await loadPnlBaseline(db, { recentSince: T0 + 11 * 10_000, scope: second.scope() })
    const again = new PnlLedger({ baseline })
    const after = again.snapshot()
    for (const k of [
      'fills',
      'makerFills',
      'liquidationFills',
      'volume',
      'realizedPnl',
      'fees',
      'funding',
    ] as const)
      expect(after.account[k]).toEqual(before.account[k])
    expect(after.instruments[1]?.realizedPnl).toBe(before.instruments[1]?.realizedPnl)
    expect(after.instruments[2]?.fees).toBe(before.instruments[2]?.fees)
    expect(after.instruments[2]?.lastFillAt).toBe(before.instruments[2]?.lastFillAt)
    // The fill poller's first read overlaps the minute before the start: those repeats are dropped.
    expect(again.applyFill(venueFill(12))).toBe(false)
    expect(again.applyFill(venueFill(11))).toBe(false)
    expect(again.applyFunding(charge(3))).toBe(false)
    // A new fill adds on top.
    expect(again.applyFill(venueFill(13))).toBe(true)
    expect(again.snapshot().account.fills).toBe(13)
    await second.close('stopped')
  })
})

describeBackends('the PnL baseline read in pages', (b) => {
  it('every fill counted once across pages, ties on time included', async () => {
    const db = await openJournalDb(await b.fresh())
    try {
      const scope = { account: `0x${'d'.repeat(40)}`, venue: 'V/1/1' }
      const rows: JournalRow[] = []
      // 4,501 fills, three to a millisecond: pages of 2,000 split ties.
      for (let n = 0; n < 4_501; n++)
        rows.push(
          fillRow(
            FillRecord.parse({ ...fill(n), tradeId: `t${n % 7}`, orderId: n, ts: T0 + Math.floor(n / 3) }),
            'rest',
            scope,
          ),
        )
      await writeRows(db.db, rows)
      const baseline = await loadPnlBaseline(db, { recentSince: T0, scope })
      const lines = Object.values(baseline.instruments)
      expect(lines.reduce((n, l) => n + l.fills, 0)).toBe(4_501)
      expect(lines.reduce((s, l) => s + Number(l.realizedPnl), 0)).toBeCloseTo(2_250 * 1.5, 6)
    } finally {
      await db.close()
    }
  })
})
