/**
 * The dashboard's long history from the journal, on SQLite and PostgreSQL: PnL per minute summed over
 * instruments (every `step`-th minute when the window holds more than the point bound), the newest
 * fills first within their bound, and the window's fill count.
 */

import { expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import { openJournalDb } from '../../src/journal/database.ts'
import { createJournal } from '../../src/journal/journal.ts'
import { historyStep, loadJournalHistory } from '../../src/journal/reading/history.ts'
import { SYMBOLS_STATE } from '../../src/journal/reading/reportQueries.ts'
import { JournalSettings } from '../../src/journal/settings.ts'
import { describeBackends } from './backends.ts'
import { SCOPE } from './fixtures.ts'

const T0 = Date.UTC(2026, 10, 1, 0, 0, 0)

it('chooses a step that keeps any window within the point bound', () => {
  expect(historyStep(T0, T0 + 60 * 60_000, 1_000)).toBe(1)
  expect(historyStep(T0, T0 + 7 * 86_400_000, 1_000)).toBe(11)
  expect(Math.ceil((7 * 1_440) / historyStep(T0, T0 + 7 * 86_400_000, 1_000))).toBeLessThanOrEqual(1_000)
})

describeBackends('journal history', (backend) => {
  it('sums the instruments per minute, samples long windows, lists the newest fills first', async () => {
    const db = await openJournalDb(await backend.fresh())
    const clock = new SimulatedClock()
    clock.set(T0)
    const journal = createJournal({
      db,
      clock,
      settings: JournalSettings.parse({}),
      run: { version: 't', mode: 'live', configHash: 'h' },
    })
    try {
      journal.saveState(SYMBOLS_STATE, { 1: 'BTC-USDC', 2: 'ETH-USDC' })
      for (let m = 0; m < 300; m++)
        for (const iid of [1, 2])
          journal.snapshot({
            minute: T0 + m * 60_000,
            iid,
            position: '0',
            realizedPnl: String(m * iid),
            unrealizedPnl: '0.5',
            fees: '0.25',
            funding: '0',
            volume: '0',
            fills: 0,
            mode: 'quoting',
          })
      for (let k = 0; k < 5; k++)
        journal.fill(
          {
            tradeId: `t${k}`,
            orderId: k,
            iid: 1,
            side: k % 2 === 0 ? 'long' : 'short',
            price: '100.5',
            qty: '0.1',
            taker: k === 4,
            fee: '0.01',
            feeAsset: 'USDC',
            realizedPnl: '0',
            liquidation: false,
            ts: T0 + k * 600_000,
          },
          'live',
        )
      await journal.flush()

      const all = await loadJournalHistory(db, { since: T0, until: T0 + 299 * 60_000, scope: SCOPE })
      expect(all.stepMinutes).toBe(1)
      expect(all.points).toHaveLength(300)
      // Minute 10: realized 10 + 20, unrealized 2 × 0.5, fees 2 × 0.25.
      expect(all.points[10]).toEqual({
        at: T0 + 600_000,
        realizedPnl: 30,
        unrealizedPnl: 1,
        fees: 0.5,
        funding: 0,
        netPnl: 30.5,
      })
      expect(all.fills.map((f) => f.at)).toEqual([4, 3, 2, 1, 0].map((k) => T0 + k * 600_000))
      expect(all.fills[0]).toMatchObject({ symbol: 'BTC-USDC', maker: false, price: '100.5' })
      expect(all.fillCount).toBe(5)

      // A bounded answer: 50 points of the 300 minutes (every 6th), 2 fills of the 5.
      const few = await loadJournalHistory(db, {
        since: T0,
        until: T0 + 299 * 60_000,
        scope: SCOPE,
        maxPoints: 50,
        maxFills: 2,
      })
      expect(few.stepMinutes).toBe(6)
      expect(few.points.length).toBeLessThanOrEqual(50)
      expect(few.points.every((p) => (p.at - T0) % 360_000 === 0)).toBe(true)
      expect(few.fills).toHaveLength(2)
      expect(few.fillCount).toBe(5)
    } finally {
      await journal.close('done')
    }
  })
})
