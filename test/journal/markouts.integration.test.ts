/**
 * Markouts in the journal end to end (issue 39.3): the real bot on the mock over loopback (HTTP and
 * WebSocket, the shipped dry-run instruments, the default calm market on the mock's accelerated
 * clock) records the book's mid at its fills and 1 s, 10 s and 60 s after them; `perpbot report`
 * then prints measured markouts (n of m fills) and `--trades` carries the mids.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { describe, expect, it, vi } from 'vitest'
import { openJournalDb } from '../../src/journal/database.ts'
import { createJournal } from '../../src/journal/journal.ts'
import { JournalSettings } from '../../src/journal/settings.ts'
import { VirtualClock } from '../../src/mock/virtualClock.ts'
import { startBotOnMock } from '../../src/sim/botOnMock.ts'
import { perpbot } from '../cli/perpbotCli.ts'

describe('markouts recorded by the running bot', () => {
  it('the report prints measured markouts of the fills', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'perpbot-markouts-'))
    const stateDir = join(dir, 'state')
    const overlay = join(dir, 'overlay.json')
    writeFileSync(overlay, JSON.stringify({ ops: { stateDir } }))
    try {
      const db = await openJournalDb({ kind: 'sqlite', path: join(stateDir, 'journal-dry-run.sqlite') })
      // The journal on the mock's clock, as `perpbot run` opens it for a dry run.
      const clock = new VirtualClock({ mode: 'accelerated', factor: 10 })
      const journal = createJournal({
        db,
        clock,
        settings: JournalSettings.parse({ flushMs: 50 }),
        venue: 'per-run',
        bindLater: true,
        run: { version: 't', mode: 'dry-run', configHash: 'h' },
      })
      const run = await startBotOnMock({
        mock: { seed: 2, scenario: 'calm', clock, catalogue: { eventCount: 5 } },
        logLevel: 'warn',
        journal,
      })
      // Fills with every mid (at the fill, 1 s, 10 s, 60 s) recorded.
      const fullyMeasured = async (): Promise<number> => {
        await journal.flush()
        const r = await sql<{ n: number }>`select count(*) as n from (select trade_id from fill_mids
          group by account, venue, trade_id, order_id, fill_ts having count(*) = 4) as full`.execute(db.db)
        return Number(r.rows[0]?.n ?? 0)
      }
      try {
        // Fills within a few virtual minutes, each measured 60 virtual seconds later (6 s of wall).
        await vi.waitFor(async () => expect(await fullyMeasured()).toBeGreaterThanOrEqual(2), {
          timeout: 90_000,
          interval: 200,
        })
      } finally {
        await run.stop('test over')
      }
      // Each mid is of a touch received at most 3 s (the tracker's bound) before its moment, and near the fill.
      const rows = await sql<{ price: string; ts: number; horizon_ms: number; mid: string; at: number }>`
        select f.price, f.ts, m.horizon_ms, m.mid, m.at from fill_mids m join fills f
          on f.account = m.account and f.venue = m.venue and f.trade_id = m.trade_id
          and f.order_id = m.order_id and f.ts = m.fill_ts`.execute(db.db)
      expect(rows.rows.length).toBeGreaterThan(0)
      for (const r of rows.rows) {
        const moment = Number(r.ts) + Number(r.horizon_ms)
        expect(Number(r.at)).toBeLessThanOrEqual(moment)
        expect(moment - Number(r.at)).toBeLessThanOrEqual(3_000)
        expect(Math.abs(Number(r.mid) / Number(r.price) - 1)).toBeLessThan(0.02)
      }
      await journal.close('test over')

      const report = await perpbot(['report', '--config', overlay, '--by', 'instrument'])
      expect(report.err).toBe('')
      expect(report.code).toBe(0)
      const total = report.out.split('\n').find((l) => /^total\s+\d+\s/.test(l) && l.includes('('))
      expect(total, report.out).toBeDefined()
      // total  m  captured (n/m)  1 s (n/m)  10 s (n/m)  60 s (n/m)  adverse selection
      const m =
        /^total\s+(\d+)\s+(\S+) \((\d+)\/\d+\)\s+(\S+) \((\d+)\/\d+\)\s+(\S+) \((\d+)\/\d+\)\s+(\S+) \((\d+)\/\d+\)\s+(\S+) \((\d+)\/\d+\)$/.exec(
          total ?? '',
        )
      expect(m, total).not.toBeNull()
      const fills = Number(m?.[1])
      expect(Number(m?.[9])).toBeGreaterThanOrEqual(2)
      expect(Number(m?.[9])).toBeLessThanOrEqual(fills)
      for (const k of [2, 4, 6, 8]) expect(m?.[k]).toMatch(/^[+-]\d+\.\d\d$/)
      // Adverse selection over the fills measured at the fill and at 60 s.
      expect(m?.[10]).toMatch(/^[+-]\d+\.\d\d$/)
      expect(Number(m?.[11])).toBeGreaterThanOrEqual(1)
      expect(report.out).toContain('positive = good for us')

      // Per run (JSON): the run's row carries the same measured figures as the total.
      const byRun = JSON.parse(
        (await perpbot(['report', '--config', overlay, '--by', 'run', '--format', 'json'])).out,
      )
      expect(byRun.markouts.rows).toHaveLength(2)
      const [runRow, totalRow] = byRun.markouts.rows
      expect(runRow.key).toMatch(/Z [0-9a-f]{8}$/)
      expect(runRow.fills).toBe(fills)
      expect(runRow.markouts).toEqual(totalRow.markouts)
      expect(runRow.markouts[2]).toMatchObject({ horizonMs: 60_000, measured: Number(m?.[9]) })

      const trades = await perpbot(['report', '--config', overlay, '--trades'])
      const lines = trades.out.trim().split('\n')
      const head = lines[0]?.split(',') ?? []
      const at60 = head.indexOf('mid_60s')
      const bps60 = head.indexOf('markout_60s_bps')
      expect(at60).toBeGreaterThan(0)
      const measured = lines.slice(1).filter((l) => (l.split(',')[at60] ?? '') !== '')
      expect(measured.length).toBeGreaterThanOrEqual(2)
      for (const l of measured) expect(Number.isFinite(Number(l.split(',')[bps60]))).toBe(true)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
