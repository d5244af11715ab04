/**
 * A paper restart resumes the paper account from the journal: the bot trades the paper book (in
 * process, on the stand-in venue's public feed over loopback) with a journal under the venue label `paper` until
 * it holds a position; after the stop, a new paper venue on the same journal starts the account with
 * the cash and positions the first book ended with, and numbers its next fills and orders past every
 * id the journal holds (so no row of the second run collides with the first's).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { openJournalDb } from '../../src/journal/database.ts'
import { createJournal } from '../../src/journal/journal.ts'
import { JournalSettings } from '../../src/journal/settings.ts'
import { generateInstruments } from '../../src/mock/perps/instruments.ts'
import { PAPER_KEYS, PAPER_VENUE } from '../../src/paper/paperAccount.ts'
import { PAPER_BOOK_LABEL, startPaperVenue } from '../../src/paper/paperVenue.ts'
import { startBotAgainst, startLoopbackMock } from '../../src/sim/botOnMock.ts'
import { generatedInstrumentConfig } from '../../src/sim/generatedInstruments.ts'

describe('paper restart', { timeout: 180_000 }, () => {
  it('resumes cash, positions and id counters from the journal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-paper-'))
    const specs = generateInstruments(1)
    const venue = await startLoopbackMock({
      mock: {
        seed: 6,
        clock: 'accelerated',
        speed: 12,
        streamTape: 'tick',
        exchange: { instruments: specs },
      },
    })
    const clock = venue.mock.clock
    const target = { kind: 'sqlite', path: join(dir, 'journal-paper.sqlite') } as const
    const db = await openJournalDb(target)
    const paperOptions = {
      restUrl: venue.server.url,
      wsUrl: venue.streamUrl ?? '',
      symbols: specs.map((s) => s.symbol),
      startingCollateral: '100000',
      clock,
      journalDb: db,
    }
    try {
      const first = await startPaperVenue(paperOptions)
      expect(first.resumed.fills).toBe(0)
      const journal = createJournal({
        db,
        clock,
        settings: JournalSettings.parse({ flushMs: 50 }),
        venue: PAPER_VENUE,
        run: { version: 't', mode: 'paper', configHash: 'h' },
      })
      const { bot } = await startBotAgainst({
        perpsUrl: PAPER_BOOK_LABEL,
        streamUrl: PAPER_BOOK_LABEL,
        venue: (loaded) => first.port({ ...loaded, catalogueUrl: venue.server.url }),
        clock,
        clockRate: clock.info().rate,
        // A 1 bp half-spread fills quickly; the run stops once a position is open.
        overrides: {
          instruments: generatedInstrumentConfig(specs, 'index-peg', { levels: 1, halfSpreadBps: 1 }),
        },
        logLevel: 'warn',
        mode: 'paper',
        selfProvision: false,
        env: { PERPS_PROXY_PRIVATE_KEY: PAPER_KEYS.proxyKey, PERPS_PROXY_SECRET: PAPER_KEYS.secret },
        journal,
      })
      const account = () => first.book.exchange.synced().accounts.get(PAPER_KEYS.owner.toLowerCase())
      try {
        await vi.waitFor(
          () => {
            const a = account()
            expect(a?.fills.length ?? 0).toBeGreaterThanOrEqual(3)
            expect([...(a?.positions.values() ?? [])].some((p) => p.size !== 0n)).toBe(true)
          },
          { timeout: 120_000, interval: 250 },
        )
      } finally {
        await bot.stop('test over')
      }
      const ended = account()
      const book = {
        collateral: ended?.collateral,
        positions: [...(ended?.positions.values() ?? [])].map((p) => ({
          iid: p.iid,
          size: p.size,
          cost: p.cost,
        })),
        fills: ended?.fills.length ?? 0,
        lastOid: Math.max(...(ended?.orders.keys() ?? [0])),
      }
      // As run --paper stops: the book hands its whole history to the journal (a fill during the exit,
      // which the stopped bot never saw, included), then the journal closes.
      await first.close(journal)
      // The journal closes its database: the restart opens it again, as run --paper does.
      await journal.close('test over')
      const again = await openJournalDb(target)
      const n = await again.db.selectFrom('fills').select(again.db.fn.countAll().as('n')).executeTakeFirst()
      expect(Number(n?.n)).toBe(book.fills)
      paperOptions.journalDb = again

      const second = await startPaperVenue(paperOptions)
      try {
        expect(second.resumed.fills).toBe(book.fills)
        // Nothing but fills and funding moves the paper account's money (no scenario seed withdrawal).
        expect(
          second.book.exchange.synced().accounts.get(PAPER_KEYS.owner.toLowerCase())?.withdrawals,
        ).toEqual([])
        const resumed = second.book.exchange.synced()
        const a = resumed.accounts.get(PAPER_KEYS.owner.toLowerCase())
        expect(a?.collateral).toBe(book.collateral)
        expect(
          [...(a?.positions.values() ?? [])].map((p) => ({ iid: p.iid, size: p.size, cost: p.cost })),
        ).toEqual(book.positions)
        expect(resumed.fills).toBeGreaterThanOrEqual(book.fills)
        expect(resumed.nextOid).toBeGreaterThan(book.lastOid)
        // Open orders are not resumed: the bot quotes afresh.
        expect(second.book.exchange.openOrders(PAPER_KEYS.owner)).toEqual([])
      } finally {
        await second.close()
      }
    } finally {
      await paperOptions.journalDb.close().catch(() => undefined)
      await venue.close()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
