import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import type { Alert } from '../../src/alerts/alert.ts'
import { createBatcher } from '../../src/bot/orders/batcher.ts'
import type { BatchSettled } from '../../src/bot/orders/batching/batchTypes.ts'
import { createOpenOrderBook } from '../../src/bot/orders/openOrderBook.ts'
import { createSignal } from '../../src/bot/shared/signal.ts'
import { SLICE } from '../../src/bot/shared/slices.ts'
import {
  journalAccountRecords,
  journalAlertSink,
  journalBatchRecorder,
  journalHealthAlerts,
  journalOrderStates,
  journalStateStore,
  modeOf,
  startPnlSnapshots,
} from '../../src/bot/startup/botJournal.ts'
import { RequestRejectedError } from '../../src/errors.ts'
import { openJournalDb } from '../../src/journal/database.ts'
import { createJournal, type Journal, type JournalStats } from '../../src/journal/journal.ts'
import { JournalSettings } from '../../src/journal/settings.ts'
import type { Order } from '../../src/perps/schemas/orders.ts'
import { flushMicrotasks, ManualClock } from '../bot/limiter/helpers.ts'
import { legacyBatchSend } from '../helpers/admission.ts'

describe('the bot side of the journal', () => {
  it('maps instrument machine states to report modes', () => {
    expect(modeOf('active.normal.repricing')).toBe('quoting')
    expect(modeOf('active.reduceOnly.quoting')).toBe('quoting.reduceOnly')
    expect(modeOf('halted.cancelling')).toBe('halted')
    expect(modeOf('syncing')).toBe('syncing')
    expect(modeOf(undefined)).toBe('unknown')
  })

  it('alerts, restart state and a snapshot per instrument each minute reach the database', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-botjournal-'))
    try {
      const clock = new SimulatedClock()
      clock.set(Date.UTC(2026, 10, 20, 12, 0, 30))
      const db = await openJournalDb({ kind: 'sqlite', path: join(dir, 'j.sqlite') })
      const journal = createJournal({
        db,
        clock,
        settings: JournalSettings.parse({}),
        run: { version: 't', mode: 'live', configHash: 'h' },
      })
      journalAlertSink(journal).send({
        key: 'margin',
        severity: 'critical',
        title: 'Margin',
        message: 'low',
        at: 5,
      })
      journal.saveState('account-watch-0xab', { marginLevel: 'critical' })
      await journal.flush()
      const store = await journalStateStore(journal, ['account-watch-0xab'])
      expect(store.read('account-watch-0xab')).toEqual({ marginLevel: 'critical' })
      store.write('account-watch-0xab', { marginLevel: 'ok' })
      const instruments = [
        { id: 1, symbol: 'BTC-USDC' },
        { id: 2, symbol: 'ETH-USDC' },
      ]
      const joined = createSignal<{ id: number }>()
      const snaps = startPnlSnapshots({
        journal,
        clock,
        instruments,
        joined,
        pnl: () => ({
          instruments: {
            1: {
              fills: 2,
              makerFills: 2,
              liquidationFills: 0,
              volume: '100',
              realizedPnl: '1',
              fees: '0.1',
              funding: '0',
              position: '0.5',
              entryPrice: '100',
              unrealizedPnl: '-2',
              netPnl: '-1.1',
              lastFillAt: 1,
              openingPosition: '0',
              openingUnrealizedPnl: '0',
              inventoryPnl: '0',
            },
          },
          account: {
            fills: 2,
            makerFills: 2,
            liquidationFills: 0,
            volume: '100',
            realizedPnl: '1',
            fees: '0.1',
            funding: '0',
            unrealizedPnl: '-2',
            netPnl: '-1.1',
            makerShare: 1,
            openingUnrealizedPnl: '0',
            inventoryPnl: '0',
          },
        }),
        states: () => [
          { id: 1, state: 'active.normal.quoting' },
          { id: 2, state: 'halted.idle' },
        ],
      })
      clock.increment(30_000) // the minute turns: one row per instrument
      // A reload adds SOL-USDC: its rows from the next minute, its name in the journal at once.
      instruments.push({ id: 3, symbol: 'SOL-USDC' })
      joined.emit({ id: 3 })
      clock.increment(60_000)
      snaps.stop()
      await journal.flush()
      const rows = await db.db
        .selectFrom('pnl_snapshots')
        .select(['minute', 'iid', 'mode', 'unrealized_pnl'])
        .execute()
      const m0 = Date.UTC(2026, 10, 20, 12, 1)
      expect(rows).toEqual(
        expect.arrayContaining([
          { minute: m0, iid: 1, mode: 'quoting', unrealized_pnl: '-2' },
          { minute: m0, iid: 2, mode: 'halted', unrealized_pnl: '0' },
          { minute: m0 + 60_000, iid: 1, mode: 'quoting', unrealized_pnl: '-2' },
          { minute: m0 + 60_000, iid: 3, mode: 'unknown', unrealized_pnl: '0' },
        ]),
      )
      expect(rows).toHaveLength(5)
      // The equity curve: the account's net sampled every 2 s, written only when it moved (once here).
      expect(await db.db.selectFrom('equity').select('net').execute()).toEqual([{ net: '-1.1' }])
      expect(await journal.loadState('account-watch-0xab')).toEqual({ marginLevel: 'ok' })
      expect(await journal.loadState('instruments')).toEqual({ 1: 'BTC-USDC', 2: 'ETH-USDC', 3: 'SOL-USDC' })
      expect(await db.db.selectFrom('alerts').select(['key', 'severity', 'resolved']).execute()).toEqual([
        { key: 'margin', severity: 'critical', resolved: 0 },
      ])
      await journal.close('done')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("many instruments: the minute's rows are written a slice at a time, and the stop writes what is left first", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-botjournal-'))
    try {
      const clock = new SimulatedClock()
      clock.set(Date.UTC(2026, 10, 20, 12, 0, 30))
      const db = await openJournalDb({ kind: 'sqlite', path: join(dir, 'j.sqlite') })
      const real = createJournal({
        db,
        clock,
        settings: JournalSettings.parse({}),
        run: { version: 't', mode: 'live', configHash: 'h' },
      })
      const written: { minute: number; iid: number; spanMs: number }[] = []
      const journal: Journal = {
        ...real,
        snapshot: (rec) => void written.push({ minute: rec.minute, iid: rec.iid, spanMs: rec.spanMs ?? 0 }),
      }
      const n = 2 * SLICE + 50
      const instruments = Array.from({ length: n }, (_, k) => ({ id: k + 1, symbol: `I${k + 1}-USDC` }))
      const snaps = startPnlSnapshots({
        journal,
        clock,
        instruments,
        pnl: () => ({
          instruments: {},
          account: {
            fills: 0,
            makerFills: 0,
            liquidationFills: 0,
            volume: '0',
            realizedPnl: '0',
            fees: '0',
            funding: '0',
            unrealizedPnl: '0',
            netPnl: '0',
            makerShare: undefined,
            openingUnrealizedPnl: '0',
            inventoryPnl: '0',
          },
        }),
        states: () => instruments.map((i) => ({ id: i.id, state: 'active.normal.quoting' })),
      })
      clock.increment(30_000) // the minute turns
      expect(written).toHaveLength(SLICE) // the first slice in the timer's turn
      await new Promise<void>((resolve) => setImmediate(resolve))
      expect(written).toHaveLength(2 * SLICE)
      clock.increment(10_000)
      snaps.stop() // the boundary's last 50 rows, then the stop's
      const m0 = Date.UTC(2026, 10, 20, 12, 1)
      const ids = instruments.map((i) => i.id)
      expect(written.map((r) => r.iid)).toEqual([...ids, ...ids])
      expect(written.slice(0, n).every((r) => r.minute === m0 && r.spanMs === 60_000)).toBe(true)
      expect(written.slice(n).every((r) => r.minute === m0 && r.spanMs === 10_000)).toBe(true)
      await new Promise<void>((resolve) => setImmediate(resolve))
      expect(written).toHaveLength(2 * n) // the slice still scheduled wrote nothing twice
      await real.close('done')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it("each command with the venue's answer per item, its latency and weight", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-botjournal-'))
    try {
      const clock = new ManualClock(1_000_000)
      const db = await openJournalDb({ kind: 'sqlite', path: join(dir, 'j.sqlite') })
      const journal = createJournal({
        db,
        clock,
        settings: JournalSettings.parse({}),
        run: { version: 't', mode: 'live', configHash: 'h' },
      })
      const counted: string[] = []
      const recorder = journalBatchRecorder(journal, clock, {
        recordBatch: (b) => counted.push(`${b.command} ${b.size} ${b.outcome}`),
      })
      const settled: BatchSettled[] = []
      let answer: (() => void) | undefined
      const batcher = createBatcher({
        clock,
        windowMs: 10,
        reconcile: async () => undefined,
        onBatchSettled: (b) => {
          settled.push(b)
          recorder.recordBatch({ command: b.type, size: b.size, outcome: b.outcome, settled: b })
        },
        send: legacyBatchSend({
          async createOrders(items, o) {
            await o.onAdmitted()
            await new Promise<void>((r) => {
              answer = r
            })
            return items.map((it, i) =>
              i === 1
                ? { status: 'err' as const, error: 'post-only would cross' }
                : { status: 'ok' as const, oid: 70 + i, coid: it.coid },
            )
          },
          modifyOrders: async () => [],
          async cancelOrders(_oids, o) {
            await o.onAdmitted()
            throw new RequestRejectedError('/v1/trade/orders', 400, 'invalid signature')
          },
        }),
      })
      const a = batcher.submit({
        type: 'createOrders',
        order: { iid: 3, buy: true, p: '10.5', qty: '2', coid: 'a'.repeat(32) },
      })
      const b = batcher.submit({ type: 'createOrders', order: { iid: 4, buy: false, p: '11', qty: '1' } })
      await clock.advance(10)
      await flushMicrotasks()
      await clock.advance(7) // the venue answers 7 ms after the request left
      answer?.()
      expect((await a).status).toBe('ok')
      expect(await b).toEqual({ status: 'err', error: 'post-only would cross' })
      expect((await batcher.submit({ type: 'cancelOrders', iid: 3, oid: 70 })).status).toBe('failed')
      await batcher.stop()
      expect(settled.map((s) => [s.type, s.latencyMs, s.weight, s.items.length])).toEqual([
        ['createOrders', 7, 1, 2],
        ['cancelOrders', 0, 1, 1],
      ])
      expect(counted).toEqual(['createOrders 2 ok', 'cancelOrders 1 error'])
      await journal.flush()
      const rows = await db.db
        .selectFrom('commands')
        .select(['kind', 'outcome', 'error', 'latency_ms', 'weight', 'item_count', 'items', 'pid'])
        .orderBy('seq')
        .execute()
      expect(rows.map((r) => ({ ...r, items: JSON.parse(r.items) }))).toEqual([
        {
          kind: 'createOrders',
          outcome: 'ok',
          error: null,
          latency_ms: 7,
          weight: 1,
          item_count: 2,
          pid: process.pid,
          items: [
            {
              op: 'create',
              iid: 3,
              side: 'buy',
              qty: '2',
              price: '10.5',
              coid: 'a'.repeat(32),
              answer: 'ok',
              oid: 70,
            },
            {
              op: 'create',
              iid: 4,
              side: 'sell',
              qty: '1',
              price: '11',
              answer: 'rejected',
              error: 'post-only would cross',
            },
          ],
        },
        {
          kind: 'cancelOrders',
          outcome: 'rejected',
          error: 'RequestRejectedError: /v1/trade/orders rejected with 400 invalid signature',
          latency_ms: 0,
          weight: 1,
          item_count: 1,
          pid: process.pid,
          items: [{ op: 'cancel', iid: 3, oid: 70, answer: 'rejected' }],
        },
      ])
      await journal.close('done')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('the journal database lost mid-run', () => {
  it('raises one `journal` alert episode and resolves it once, however the state flaps', () => {
    type Listener = Parameters<Journal['watchState']>[0]
    let listener: Listener | undefined
    let state: 'ok' | 'failing' = 'failing'
    const stats = (): JournalStats => ({
      refused: {},
      lastRefused: undefined,
      state,
      depth: 40,
      capacity: 100,
      written: 7,
      batches: 2,
      failures: 1,
      dropped: { commands: 3 },
      droppedTotal: 3,
      earliestEssentialDropAt: undefined,
      lastError: 'SQLITE_READONLY',
      failingSince: 1,
      lastWriteMs: 1,
      maxWriteMs: 1,
      totalWriteMs: 2,
      invalid: {},
      lastInvalid: undefined,
      where: '/tmp/j.sqlite',
      kind: 'sqlite',
      spooledRows: 0,
      spoolPath: undefined,
      replayedRows: 0,
    })
    const alerts: Alert[] = []
    const clock = new ManualClock(5_000)
    const h = journalHealthAlerts({
      journal: {
        stats,
        watchState: (l) => {
          listener = l
          return () => {
            listener = undefined
          }
        },
      },
      alerts: { send: (a) => void alerts.push(a) },
      clock,
    })
    // Already failing when the bot starts: raised at once; repeats of `failing` add nothing.
    listener?.('failing', stats())
    state = 'ok'
    listener?.('ok', stats())
    listener?.('ok', stats())
    h.stop()
    listener?.('failing', stats())
    expect(alerts.map((a) => [a.key, a.resolved === true, a.at])).toEqual([
      ['journal', false, 5_000],
      ['journal', true, 5_000],
    ])
    expect(alerts[0]?.message).toContain('/tmp/j.sqlite (SQLITE_READONLY)')
    expect(alerts[1]?.message).toContain('3 row(s) could not be kept')
  })
})

describe('order states and withdrawals into the journal', () => {
  it("records the venue's order changes (pushes, and what a read found new, changed or gone) and withdrawals", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-botjournal-'))
    try {
      const clock = new ManualClock(2_000_000)
      const db = await openJournalDb({ kind: 'sqlite', path: join(dir, 'j.sqlite') })
      const journal = createJournal({
        db,
        clock,
        settings: JournalSettings.parse({}),
        run: { version: 't', mode: 'live', configHash: 'h' },
      })
      const order = (oid: number, over: Partial<Order> = {}): Order => ({
        oid,
        iid: 1,
        buy: true,
        p: '100',
        qty: '1',
        tif: 'gtc',
        po: true,
        ro: false,
        rest: '1',
        fill: '0',
        cts: 10,
        uts: 10,
        status: 'open',
        ...over,
      })
      let venue: Order[] = [order(1), order(2)]
      const book = createOpenOrderBook({
        perps: { getOpenOrders: async () => venue },
        clock,
        instrumentIds: [1],
        record: journalOrderStates(journal),
      })
      await book.reconcile() // both new
      await book.reconcile() // nothing changed: nothing recorded
      book.observe(order(1, { uts: 20, status: 'partial', fill: '0.4', rest: '0.6' }))
      book.observe(order(1, { uts: 15, status: 'open' })) // older than what the book holds: not a change
      venue = [order(1, { uts: 20, status: 'partial', fill: '0.4', rest: '0.6' })]
      await book.reconcile() // order 2 gone
      const w = {
        withdraw_id: 9,
        asset: 'pUSD',
        amount: '250',
        to: `0x${'1'.repeat(40)}`,
        fee: '1',
        status: 'pending',
        hash: '0x',
        confirmations: 0,
        required_confirmations: 12,
        created_timestamp: 1_500_000,
        confirmed_timestamp: null,
      }
      const records = journalAccountRecords(journal, clock)
      records.withdrawal(w)
      await clock.advance(5_000)
      records.withdrawal({ ...w, status: 'confirmed', hash: `0x${'a'.repeat(64)}` })
      await journal.flush()
      expect(
        await db.db
          .selectFrom('order_events')
          .select(['oid', 'state', 'filled', 'ts'])
          .orderBy('seq')
          .execute(),
      ).toEqual([
        { oid: 1, state: 'open', filled: '0', ts: 10 },
        { oid: 2, state: 'open', filled: '0', ts: 10 },
        { oid: 1, state: 'partial', filled: '0.4', ts: 20 },
        { oid: 2, state: 'gone', filled: '0', ts: 2_000_000 },
      ])
      expect(await db.db.selectFrom('transfers').selectAll().execute()).toEqual([
        {
          kind: 'withdrawal',
          id: '9',
          asset: 'pUSD',
          amount: '250',
          fee: '1',
          status: 'confirmed',
          ts: 1_500_000,
          updated_at: 2_005_000,
          venue: '',
          account: 'unknown',
        },
      ])
      await journal.close('done')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
