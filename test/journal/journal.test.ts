import { expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { openJournalDb } from '../../src/journal/database.ts'
import { createJournal } from '../../src/journal/journal.ts'
import { JournalSettings } from '../../src/journal/settings.ts'
import { describeBackends } from './backends.ts'
import { fill, T0 } from './fixtures.ts'

const settings = JournalSettings.parse({ flushMs: 50, batchRows: 100 })

describeBackends('journal', (backend) => {
  const start = async (clock = new SimulatedClock()) => {
    clock.set(T0)
    const target = await backend.fresh()
    const db = await openJournalDb(target)
    const journal = createJournal({
      db,
      clock,
      settings,
      run: { version: '0.1.0', mode: 'live', configHash: 'abc' },
      pid: 42,
    })
    return { clock, db, journal, target }
  }

  it('writes every kind of record; a fill or funding repeat is kept once; upserts move on', async () => {
    const { clock, db, journal, target } = await start()
    journal.command({
      ts: T0,
      kind: 'createOrders',
      items: [
        { op: 'create', iid: 1, coid: 'c1', side: 'long', price: '100', qty: '1', answer: 'ok', oid: 7 },
        {
          op: 'create',
          iid: 1,
          coid: 'c2',
          side: 'short',
          price: '101',
          qty: '1',
          answer: 'rejected',
          error: 'post_only',
        },
      ],
      outcome: 'ok',
      latencyMs: 12.5,
      weight: 2,
    })
    journal.orderEvent({ ts: T0 + 1, iid: 1, oid: 7, coid: 'c1', state: 'open', price: '100', qty: '1' })
    journal.fill(fill(1), 'stream')
    journal.fill(fill(1), 'rest')
    journal.fill(fill(2), 'rest')
    journal.funding({
      key: 'id:5',
      iid: 1,
      size: '2',
      rate: '0.0001',
      asset: 'USDC',
      amount: '0.02',
      ts: T0 + 5,
    })
    journal.funding({
      key: 'id:5',
      iid: 1,
      size: '2',
      rate: '0.0001',
      asset: 'USDC',
      amount: '0.02',
      ts: T0 + 5,
    })
    journal.transfer({
      kind: 'withdrawal',
      id: '9',
      asset: 'USDC',
      amount: '250',
      fee: '1',
      status: 'pending',
      ts: T0,
      updatedAt: T0,
    })
    journal.transfer({
      kind: 'withdrawal',
      id: '9',
      asset: 'USDC',
      amount: '250',
      fee: '1',
      status: 'confirmed',
      ts: T0,
      updatedAt: T0 + 9,
    })
    journal.alert({
      key: 'margin',
      severity: 'warning',
      title: 'margin',
      message: 'low',
      resolved: false,
      at: T0 + 1,
    })
    journal.alert({
      key: 'margin',
      severity: 'warning',
      title: 'margin',
      message: 'ok',
      resolved: true,
      at: T0 + 2,
    })
    const snap = {
      minute: T0,
      iid: 1,
      position: '2',
      realizedPnl: '0',
      unrealizedPnl: '1',
      fees: '0',
      funding: '0',
      volume: '201',
      fills: 1,
      mode: 'quoting',
    }
    journal.snapshot(snap)
    journal.snapshot({ ...snap, unrealizedPnl: '3' })
    journal.saveState('account-watch-0xabc', {
      marginLevel: 'warning',
      withdrawals: [[9, { status: 'pending' }]],
    })
    expect(journal.stats().depth).toBe(15) // nothing written on the caller's path
    await journal.flush()
    expect(journal.stats()).toMatchObject({ depth: 0, droppedTotal: 0, invalid: {}, state: 'ok' })

    const d = db.db
    const commands = await d.selectFrom('commands').selectAll().execute()
    expect(commands).toHaveLength(1)
    expect(commands[0]).toMatchObject({
      kind: 'createOrders',
      item_count: 2,
      pid: 42,
      latency_ms: 12.5,
      weight: 2,
    })
    expect(JSON.parse(commands[0]?.items ?? '[]')[1]).toMatchObject({
      answer: 'rejected',
      error: 'post_only',
    })
    expect(await d.selectFrom('fills').select(['trade_id', 'source']).orderBy('trade_id').execute()).toEqual([
      { trade_id: 't1', source: 'stream' },
      { trade_id: 't2', source: 'rest' },
    ])
    expect(await d.selectFrom('funding').selectAll().execute()).toHaveLength(1)
    expect(await d.selectFrom('transfers').select(['status', 'updated_at']).execute()).toEqual([
      { status: 'confirmed', updated_at: T0 + 9 },
    ])
    expect(await d.selectFrom('alerts').select(['key', 'resolved']).orderBy('at').execute()).toEqual([
      { key: 'margin', resolved: 0 },
      { key: 'margin', resolved: 1 },
    ])
    expect(await d.selectFrom('pnl_snapshots').select(['unrealized_pnl', 'minute']).execute()).toEqual([
      { unrealized_pnl: '3', minute: T0 },
    ])
    expect(await journal.loadState('account-watch-0xabc')).toEqual({
      marginLevel: 'warning',
      withdrawals: [[9, { status: 'pending' }]],
    })
    expect(await journal.loadState('nothing')).toBeUndefined()
    expect(await journal.lastRecordTimes()).toEqual({ fill: T0 + 2_000, funding: T0 + 5 })

    clock.increment(60_000)
    const runId = journal.runId
    const final = await journal.close('stopped by signal')
    expect(final.written).toBeGreaterThan(0)
    const again = await openJournalDb(target)
    try {
      expect(await again.db.selectFrom('runs').selectAll().execute()).toEqual([
        {
          account: 'unknown',
          venue: '',
          clock_rate: 1,
          run_id: runId,
          started_at: T0,
          stopped_at: T0 + 60_000,
          stop_reason: 'stopped by signal',
          version: '0.1.0',
          mode: 'live',
          config_hash: 'abc',
          pid: 42,
        },
      ])
    } finally {
      await again.close()
    }
  })
})

describeBackends('journal retention and metrics', (backend) => {
  it('prunes commands, order events and snapshots past their days; keeps fills; metrics tell depth, latency and size', async () => {
    const clock = new SimulatedClock()
    const DAY = 86_400_000
    clock.set(T0 + 100 * DAY)
    const db = await openJournalDb(await backend.fresh())
    const journal = createJournal({
      db,
      clock,
      settings: JournalSettings.parse({ retention: { commandsDays: 30, snapshotsDays: 60 } }),
      run: { version: 't', mode: 'live', configHash: 'h' },
    })
    for (const age of [10, 40, 70]) {
      const ts = T0 + (100 - age) * DAY
      journal.command({ ts, kind: 'cancelOrders', items: [], outcome: 'ok', latencyMs: 1, weight: 1 })
      journal.orderEvent({ ts, iid: 1, state: 'cancelled' })
      journal.snapshot({
        minute: ts,
        iid: 1,
        position: '0',
        realizedPnl: '0',
        unrealizedPnl: '0',
        fees: '0',
        funding: '0',
        volume: '0',
        fills: 0,
        mode: 'quoting',
      })
      journal.fill(fill(age, { ts }), 'rest')
    }
    expect((await journal.metrics()).queueDepth).toBe(13)
    await journal.flush()
    expect(await journal.prune()).toEqual({ commands: 2, orderEvents: 2, snapshots: 1 })
    expect(await db.db.selectFrom('fills').selectAll().execute()).toHaveLength(3)
    const m = await journal.metrics()
    expect(m).toMatchObject({ state: 0, queueDepth: 0, rowsWritten: 13, rowsDropped: 0, rowsInvalid: 0 })
    expect(m.writeLatencyMaxMs).toBeGreaterThan(0)
    expect(m.sizeBytes).toBeGreaterThan(0)
    await journal.close('done')
  })

  it('a record that breaks its schema is counted, not written, and does not block the batch', async () => {
    const clock = new SimulatedClock()
    clock.set(T0)
    const db = await openJournalDb(await backend.fresh())
    const journal = createJournal({
      db,
      clock,
      settings,
      run: { version: 't', mode: 'live', configHash: 'h' },
    })
    journal.fill(fill(1, { price: '1e5' }), 'rest')
    journal.fill(fill(2), 'rest')
    await journal.flush()
    expect(journal.stats()).toMatchObject({ invalid: { fills: 1 } })
    expect(journal.stats().lastInvalid).toContain('decimal')
    expect(await db.db.selectFrom('fills').select('trade_id').execute()).toEqual([{ trade_id: 't2' }])
    await journal.close('done')
  })
})
