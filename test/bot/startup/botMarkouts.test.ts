/**
 * The bot's markouts part (botMarkouts.ts) on a stepped clock: the streams' BBOs pass through its
 * inbox to the actors and to the tracker, the account's records pass each new fill on and to the
 * tracker, its gauges count, and the journal part's stop settles what has passed; the mids land in
 * the journal. Without a journal, everything passes through untouched.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Registry } from 'prom-client'
import { afterAll, describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import type { AccountRecords } from '../../../src/bot/account/supervision/accountSupervision.ts'
import type { InstrumentEvent } from '../../../src/bot/instrument/context.ts'
import { createBotJournal } from '../../../src/bot/startup/botJournalPart.ts'
import { openJournalDb } from '../../../src/journal/database.ts'
import { createJournal } from '../../../src/journal/journal.ts'
import { JournalSettings } from '../../../src/journal/settings.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import type { Fill } from '../../../src/perps/schemas/account.ts'

const logger = createLogger({ level: 'silent', pretty: 'never' })
const T0 = Date.UTC(2026, 11, 7, 1, 0, 0)

const bbo = (bid: string, ask: string, at: number): InstrumentEvent => ({
  type: 'BBO',
  bbo: { bid: { price: bid, qty: '1' }, ask: { price: ask, qty: '1' } },
  receivedAt: at,
})

const fill: Fill = {
  tid: 77,
  oid: 5,
  iid: 1,
  side: 'short',
  p: '101',
  qty: '1',
  taker: false,
  fee: '0',
  fea: 'USDC',
  psz: '-1',
  pep: '0',
  pnl: '0',
  liq: false,
  ts: T0 + 200,
}

const records = (seen: Fill[]): AccountRecords => ({
  fill: (f) => void seen.push(f),
  funding: () => undefined,
  withdrawal: () => undefined,
  deposit: () => undefined,
})

describe('the markouts part', () => {
  const dir = mkdtempSync(join(tmpdir(), 'perpbot-markouts-part-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('taps the BBOs and fills it passes on, counts on /metrics and writes the mids', async () => {
    const clock = new SimulatedClock()
    clock.set(T0)
    const db = await openJournalDb({ kind: 'sqlite', path: join(dir, 'j.sqlite') })
    const journal = createJournal({
      db,
      clock,
      settings: JournalSettings.parse({ flushMs: 50 }),
      run: { version: 't', mode: 'live', configHash: 'h' },
    })
    const lines: string[] = []
    const logged = createLogger({
      level: 'warn',
      pretty: 'never',
      destination: { write: (l) => void lines.push(l) },
    })
    const part = createBotJournal({ journal, clock, logger: logged })
    const registry = new Registry()
    const markouts = part.markouts({ venueClock: clock, registry })
    const routed: InstrumentEvent[] = []
    const inbox = markouts.inbox({ instruments: [{ id: 1 }], route: (_ids, e) => void routed.push(e) })
    expect(inbox.instruments).toEqual([{ id: 1 }])
    const seen: Fill[] = []
    const account = markouts.account({ records: records(seen), store: 'kept' })
    expect(account.store).toBe('kept')

    inbox.route([1], bbo('100', '101', T0))
    clock.increment(300)
    account.records?.fill(fill)
    expect(seen).toEqual([fill])
    clock.increment(700)
    inbox.route([1], bbo('99', '100', clock.now())) // T0 + 1 s: the touch at the fill's 1 s (T0 + 1.2 s)
    clock.increment(1_500)
    inbox.route([1], bbo('98', '99', clock.now())) // T0 + 2.5 s: the 1 s moment has passed
    expect(routed).toHaveLength(3)
    // An instrument with no touch at all: said once, its fills unknown.
    account.records?.fill({ ...fill, iid: 2, tid: 78 })
    account.records?.fill({ ...fill, iid: 2, tid: 79 })
    expect(lines.filter((l) => l.includes('no best bid/offer received'))).toHaveLength(1)
    expect(markouts.stats()).toMatchObject({ fills: 3, pending: 3 })
    expect(markouts.stats()).toMatchObject({ written: 2 })
    expect(await registry.getSingleMetricAsString('perpbot_markout_fills_pending')).toMatch(/ 3$/)
    // The stop settles what has passed (nothing more here: 10 s is ahead); later moments stay unknown.
    part.stop()
    inbox.route([1], bbo('90', '91', T0 + 20_000))
    expect(markouts.stats().written).toBe(2)
    await journal.flush()
    const rows = await db.db
      .selectFrom('fill_mids')
      .select(['trade_id', 'order_id', 'fill_ts', 'horizon_ms', 'mid', 'at'])
      .orderBy('horizon_ms')
      .execute()
    expect(rows).toEqual([
      { trade_id: '77', order_id: 5, fill_ts: T0 + 200, horizon_ms: 0, mid: '100.5', at: T0 },
      { trade_id: '77', order_id: 5, fill_ts: T0 + 200, horizon_ms: 1_000, mid: '99.5', at: T0 + 1_000 },
    ])
    await journal.close('test over')
  })

  it('without a journal passes the inbox and the records through untouched', () => {
    const part = createBotJournal({ journal: undefined, clock: new SimulatedClock(), logger })
    const markouts = part.markouts({ venueClock: new SimulatedClock(), registry: new Registry() })
    const inbox = { instruments: [{ id: 1 }], route: () => undefined }
    expect(markouts.inbox(inbox)).toBe(inbox)
    const a = { records: records([]) }
    expect(markouts.account(a)).toBe(a)
  })
})
