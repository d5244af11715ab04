/**
 * Issue 33: a journal keyed by account and venue. Two accounts on one database (SQLite and a real
 * PostgreSQL) read only their own rows everywhere (PnL baseline, report, history, the reconcile's
 * start); a venue row the journal refuses is counted and told, never dropped silently; a restarted
 * venue's reused ids are still journaled; an earlier version's rows are claimed or kept apart; and a
 * position held before the account's first run is carried across restarts, net unchanged.
 */
import { sql } from 'kysely'
import { expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { PnlLedger } from '../../src/bot/account/pnlLedger.ts'
import { journalAccountRecords } from '../../src/bot/startup/botJournal.ts'
import { openJournalDb } from '../../src/journal/database.ts'
import { createJournal } from '../../src/journal/journal.ts'
import { claimUnknownRows, journalScopes } from '../../src/journal/journalScope.ts'
import { loadPnlBaseline } from '../../src/journal/pnlBaseline.ts'
import { loadJournalHistory } from '../../src/journal/reading/history.ts'
import { buildReport } from '../../src/journal/reading/report.ts'
import { loadReportInput, newestRecordAt } from '../../src/journal/reading/reportQueries.ts'
import { reconcileAtStart } from '../../src/journal/reconcile.ts'
import type { RefusedRow } from '../../src/journal/rows.ts'
import { JournalSettings } from '../../src/journal/settings.ts'
import type { Fill } from '../../src/perps/schemas/account.ts'
import { describeBackends } from './backends.ts'
import { fill, T0 } from './fixtures.ts'

const settings = JournalSettings.parse({ flushMs: 50, batchRows: 100 })
const run = { version: 't', mode: 'live' as const, configHash: 'h' }
const VENUE = 'Polymarket/1/137'
const A = `0x${'a'.repeat(40)}`
const B = `0x${'b'.repeat(40)}`
const PROXY = `0x${'c'.repeat(40)}`

describeBackends('a journal keyed by account and venue', (backend) => {
  it('two accounts on one database: each reader reads only its own', async () => {
    const target = await backend.fresh()
    const clock = new SimulatedClock()
    clock.set(T0)
    const db = await openJournalDb(target)
    const refused: RefusedRow[] = []
    const a = createJournal({
      db,
      clock,
      settings,
      run,
      account: A,
      venue: VENUE,
      onRefused: (r) => refused.push(r),
    })
    const b = createJournal({ db, clock, settings, run, account: B, venue: VENUE })
    // The same trade ids on both accounts (a fleet on one venue cannot share ids, a reused journal
    // after a venue reset can): each account keeps its own.
    for (let n = 1; n <= 3; n++) a.fill(fill(n), 'stream')
    for (let n = 1; n <= 5; n++) b.fill(fill(n, { realizedPnl: '-7' }), 'stream')
    a.funding({ key: 'id:1', iid: 1, size: '1', rate: '0.01', asset: 'USDC', amount: '0.5', ts: T0 + 10 })
    b.funding({ key: 'id:1', iid: 1, size: '1', rate: '0.01', asset: 'USDC', amount: '9', ts: T0 + 10 })
    for (const [j, u] of [
      [a, '1'],
      [b, '-100'],
    ] as const)
      j.snapshot({
        minute: T0,
        iid: 1,
        position: '1',
        realizedPnl: '0',
        unrealizedPnl: u,
        fees: '0',
        funding: '0',
        volume: '0',
        fills: 0,
        mode: 'quoting',
      })
    b.alert({ key: 'margin', severity: 'warning', title: 't', message: 'm', resolved: false, at: T0 + 5 })
    // A's net every 2 s: a swing of 13 inside one minute; B's never falls.
    for (const [k, net] of ['1', '4', '-9', '2'].entries()) a.equity({ at: T0 + 2_000 * (k + 1), net })
    b.equity({ at: T0 + 2_000, net: '-35' })
    await a.flush()
    await b.flush()

    // The same fill again (stream and REST both saw it): kept once, nothing refused.
    a.fill(fill(1), 'rest')
    // The same key with other content: refused, counted, told.
    a.fill(fill(2, { price: '101' }), 'rest')
    // A restarted venue's ids: trade t3 / order 1003 again, an hour later: a new fill, journaled.
    a.fill(fill(3, { ts: T0 + 3_600_000 }), 'rest')
    await a.flush()
    expect(refused).toEqual([
      {
        table: 'fills',
        key: `trade t2 / order 1002 at ${new Date(T0 + 2_000).toISOString()}`,
        differs: 'price 100.5 ≠ 101',
      },
    ])
    expect(a.stats().refused).toEqual({ fills: 1 })
    expect((await a.metrics()).rowsRefused).toBe(1)

    const sa = a.scope()
    const sb = b.scope()
    expect(sa).toEqual({ account: A, venue: VENUE })
    const ba = await loadPnlBaseline(db, { recentSince: 0, scope: sa })
    const bb = await loadPnlBaseline(db, { recentSince: 0, scope: sb })
    expect(Object.values(ba.instruments).reduce((n, l) => n + l.fills, 0)).toBe(4)
    expect(Object.values(bb.instruments).reduce((n, l) => n + l.fills, 0)).toBe(5)
    expect(ba.instruments[1]?.funding).toBe('0.5')
    expect(bb.instruments[1]?.funding).toBe('9')

    const ra = buildReport(await loadReportInput(db, T0 - 1, T0 + 7_200_000, sa), 'instrument').at(-1)
    const rb = buildReport(await loadReportInput(db, T0 - 1, T0 + 7_200_000, sb), 'instrument').at(-1)
    expect(ra).toMatchObject({
      fills: 4,
      realizedPnl: '4.5',
      funding: '0.5',
      unrealizedPnl: '1',
      alertsRaised: 0,
    })
    expect(rb).toMatchObject({
      fills: 5,
      realizedPnl: '-35',
      funding: '9',
      unrealizedPnl: '-100',
      alertsRaised: 1,
    })

    const ha = await loadJournalHistory(db, { since: T0 - 1, until: T0 + 7_200_000, scope: sa })
    const hb = await loadJournalHistory(db, { since: T0 - 1, until: T0 + 7_200_000, scope: sb })
    expect([ha.fillCount, hb.fillCount]).toEqual([4, 5])
    // The dashboard's drawdown is the report's: the same samples, the same function.
    expect(ha.maxDrawdown).toBe('13')
    expect(ra?.maxDrawdown).toBe('13')
    expect(hb.maxDrawdown).toBe(rb?.maxDrawdown)
    expect(ha.currency).toBe('USDC')
    expect(ha.points.map((p) => p.unrealizedPnl)).toEqual([1])
    expect(await newestRecordAt(db, sa)).toBe(T0 + 3_600_000)
    expect(await a.lastRecordTimes()).toEqual({ fill: T0 + 3_600_000, funding: T0 + 10 })
    expect(await b.lastRecordTimes()).toEqual({ fill: T0 + 5_000, funding: T0 + 10 })

    // The reconcile's start reads from the account's own last fill.
    const asked: number[] = []
    const venue = {
      async *fillPages(w: { since: number }) {
        asked.push(w.since)
        yield { rows: [], more: false }
      },
      async *fundingPages() {
        yield { rows: [], more: false }
      },
    }
    await reconcileAtStart({ db, venue, now: T0 + 7_200_000, maxPages: 1, firstLookbackMs: 1, scope: sb })
    expect(asked).toEqual([T0 + 5_000 - 60_000])

    await a.close('done')
    await b.close('done')
    const reopened = await openJournalDb(target)
    try {
      expect((await journalScopes(reopened)).map((s) => s.account).sort()).toEqual([A, B])
    } finally {
      await reopened.close()
    }
  })

  it('a journal bound after connecting writes nothing before, everything under its account after', async () => {
    const target = await backend.fresh()
    const clock = new SimulatedClock()
    clock.set(T0)
    const db = await openJournalDb(target)
    const j = createJournal({ db, clock, settings, run, bindLater: true })
    j.alert({ key: 'connect', severity: 'warning', title: 't', message: 'm', resolved: false, at: T0 })
    await j.flush()
    expect(await db.db.selectFrom('alerts').selectAll().execute()).toEqual([])
    j.bind({ account: A.toUpperCase().replace('0X', '0x'), venue: VENUE })
    await j.flush()
    expect(await db.db.selectFrom('alerts').select(['account', 'venue']).execute()).toEqual([
      { account: A, venue: VENUE },
    ])
    expect(await db.db.selectFrom('runs').select(['account', 'venue']).execute()).toEqual([
      { account: A, venue: VENUE },
    ])
    await j.close('done')
  })

  it("an earlier version's rows: claimed when the journal names one account key, ours; else kept apart", async () => {
    const insertOld = async (url: Awaited<ReturnType<typeof backend.fresh>>, keys: readonly string[]) => {
      const old = await openJournalDb(url, { migrateTo: '0003_venue' })
      await sql`insert into runs (run_id, started_at, version, mode, config_hash, pid)
        values ('r-old', 1, 't', 'live', 'h', 1)`.execute(old.db)
      await sql`insert into fills (venue, trade_id, order_id, iid, side, price, qty, taker, fee, fee_asset,
        realized_pnl, liquidation, ts, coid, source)
        values ('', 'x1', 5, 1, 'long', '1', '1', 0, '0', 'USDC', '-60.35', 0, 1, null, 'rest')`.execute(
        old.db,
      )
      for (const k of keys)
        await sql`insert into state (name, value, at) values (${`account-watch-${k}`}, '{}', 1)`.execute(
          old.db,
        )
      await old.close()
      return openJournalDb(url)
    }
    const one = await insertOld(await backend.fresh(), [PROXY])
    try {
      expect(await one.db.selectFrom('fills').select(['account', 'venue']).execute()).toEqual([
        { account: 'unknown', venue: '' },
      ])
      const c = await claimUnknownRows(
        one,
        { account: A, venue: VENUE },
        PROXY.toUpperCase().replace('0X', '0x'),
      )
      expect(c).toMatchObject({ claimed: 2, apart: { fills: 0, funding: 0, runs: 0 } })
      const b = await loadPnlBaseline(one, { recentSince: 0, scope: { account: A, venue: VENUE } })
      expect(b.instruments[1]?.realizedPnl).toBe('-60.35')
    } finally {
      await one.close()
    }
    // Three accounts' bots used it: whose rows these are cannot be known. None counts them.
    const three = await insertOld(await backend.fresh(), [PROXY, B, A])
    try {
      const c = await claimUnknownRows(three, { account: A, venue: VENUE }, PROXY)
      expect(c).toMatchObject({ claimed: 0, apart: { fills: 1, funding: 0, runs: 1 } })
      const b = await loadPnlBaseline(three, { recentSince: 0, scope: { account: A, venue: VENUE } })
      expect(b.instruments).toEqual({})
    } finally {
      await three.close()
    }
  })

  it('a position held before the first run, two restarts: net unchanged, the opening carried', async () => {
    const target = await backend.fresh()
    const clock = new SimulatedClock()
    clock.set(T0)
    const scope = { account: A, venue: VENUE }
    const btc = (unrealized: string) => [
      { instrument_id: 1, size: '0.5', entry_price: '99000', unrealized_pnl: unrealized },
    ]
    const start = async () => {
      const db = await openJournalDb(target)
      const journal = createJournal({ db, clock, settings, run, ...{ account: A, venue: VENUE } })
      const baseline = await loadPnlBaseline(db, { recentSince: 0, scope })
      const records = journalAccountRecords(journal, clock)
      const ledger = new PnlLedger({
        sinceStart: true,
        baseline,
        onOpening: (o) => records.opening?.(o),
        now: () => clock.now(),
      })
      return { journal, ledger, records }
    }
    // Run 1: 0.5 BTC held already, unrealized 500 (mark 100,000): not ours.
    const first = await start()
    first.ledger.observePositions(btc('500'), [1])
    expect(first.ledger.snapshot().account).toMatchObject({ netPnl: '0', since: T0 })
    // A round trip on another instrument: +2 realized, 0.1 fees.
    const trade: Fill = {
      tid: 77,
      oid: 78,
      iid: 2,
      side: 'long',
      p: '10',
      qty: '1',
      taker: true,
      fee: '0.1',
      fea: 'USDC',
      psz: '0',
      pep: '0',
      pnl: '2',
      liq: false,
      ts: T0 + 1_000,
    }
    if (first.ledger.applyFill(trade)) first.records.fill(trade)
    const net = first.ledger.snapshot().account.netPnl
    expect(net).toBe('1.9')
    clock.increment(3_600_000)
    await first.journal.close('restart')
    // Runs 2 and 3: the mark moved (unrealized 800, then 200): the inventory's, not in net.
    for (const unrealized of ['800', '200']) {
      const again = await start()
      again.ledger.observePositions(btc(unrealized), [1])
      const s = again.ledger.snapshot().account
      expect(s).toMatchObject({ netPnl: net, since: T0, realizedPnl: '2', fees: '0.1' })
      expect(s.inventoryPnl).toBe(String(Number(unrealized) - 500))
      clock.increment(3_600_000)
      await again.journal.close('restart')
    }
  })
})
