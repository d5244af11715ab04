import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import {
  journalAlertSink,
  journalStateStore,
  modeOf,
  startPnlSnapshots,
} from '../../src/bot/startup/botJournal.ts'
import { openJournalDb } from '../../src/journal/database.ts'
import { createJournal } from '../../src/journal/journal.ts'
import { JournalSettings } from '../../src/journal/settings.ts'

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
      const snaps = startPnlSnapshots({
        journal,
        clock,
        instruments: [
          { id: 1, symbol: 'BTC-USDC' },
          { id: 2, symbol: 'ETH-USDC' },
        ],
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
        ]),
      )
      expect(rows).toHaveLength(4)
      expect(await journal.loadState('account-watch-0xab')).toEqual({ marginLevel: 'ok' })
      expect(await journal.loadState('instruments')).toEqual({ 1: 'BTC-USDC', 2: 'ETH-USDC' })
      expect(await db.db.selectFrom('alerts').select(['key', 'severity', 'resolved']).execute()).toEqual([
        { key: 'margin', severity: 'critical', resolved: 0 },
      ])
      await journal.close('done')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
