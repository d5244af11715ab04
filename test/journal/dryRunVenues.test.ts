/**
 * Issue 26 point 4: each dry run's embedded mock numbers its trades from 1 again. Two simulated dry
 * runs back to back into the same dry-run journal (the same seed: the very same trade ids, order ids
 * and times) keep both runs' fills, count none as a duplicate, and `perpbot report` shows both.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { sql } from 'kysely'
import { afterAll, describe, expect, it } from 'vitest'
import { openJournalDb } from '../../src/journal/database.ts'
import { perpbot } from '../cli/perpbotCli.ts'

describe('two dry runs into one dry-run journal', () => {
  const dir = mkdtempSync(join(tmpdir(), 'perpbot-dryruns-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('keeps both runs’ fills under their own mock, none as duplicates; the report counts both', async () => {
    const stateDir = join(dir, 'state')
    const file = join(stateDir, 'journal-dry-run.sqlite')
    const overlay = join(dir, 'overlay.json')
    writeFileSync(overlay, JSON.stringify({ ops: { stateDir } }))
    const simulate = [
      'simulate',
      // 3 virtual minutes: fills enough that the second run's trade ids repeat the first's from 1.
      ...['--hours', '0.05', '--instruments', '2', '--scenario', 'trending', '--seed', '7'],
      ...['--journal', file, '--out', join(dir, 'report.html')],
    ]
    const first = await perpbot(simulate)
    expect(first).toMatchObject({ code: 0 })
    const second = await perpbot(simulate)
    expect(second).toMatchObject({ code: 0 })
    for (const r of [first, second]) expect(r.out).toMatch(/journal: .* 0 dropped\)/)

    const db = await openJournalDb({ kind: 'sqlite', path: file }, { readonly: true })
    let perRun: { venue: string; n: number; first: string }[]
    let runs: { run_id: string }[]
    try {
      perRun = (
        await sql<{ venue: string; n: number; first: string }>`select venue, count(*) as n,
          min(cast(trade_id as integer)) as first from fills group by venue order by venue`.execute(db.db)
      ).rows
      runs = await db.db.selectFrom('runs').select('run_id').execute()
    } finally {
      await db.close()
    }
    // Two runs, each its own venue key, the same trades (same seed) kept twice: nothing collided.
    expect(runs).toHaveLength(2)
    expect(perRun.map((r) => r.venue).sort()).toEqual(runs.map((r) => `mock:${r.run_id}`).sort())
    const [a, b] = perRun
    expect(a?.n).toBeGreaterThan(0)
    expect(b?.n).toBe(a?.n)
    expect(Number(a?.first)).toBe(1)
    expect(Number(b?.first)).toBe(1)

    // The report reads one account on one venue: by default the newest run's (each dry run is a
    // throwaway account on its own mock), the other with --account; never both mixed.
    const report = (...more: string[]) =>
      perpbot([
        'report',
        '--config',
        overlay,
        '--since',
        '2026-01-04',
        '--until',
        '2026-01-06',
        '--format',
        'json',
        ...more,
      ])
    const newest = await report()
    expect(newest.err).toBe('')
    const n = JSON.parse(newest.out)
    expect(n.total.fills).toBe(a?.n ?? 0)
    expect(n.account).toMatch(/^0x[0-9a-f]{40}$/)
    expect(n.venue).toMatch(/^mock:/)
    const accounts = await (async () => {
      const d = await openJournalDb({ kind: 'sqlite', path: file }, { readonly: true })
      try {
        return await d.db.selectFrom('runs').select(['account', 'venue']).execute()
      } finally {
        await d.close()
      }
    })()
    expect(new Set(accounts.map((r) => r.account)).size).toBe(2)
    const other = accounts.find((r) => r.account !== n.account)
    const older = await report('--account', other?.account ?? '', '--venue', other?.venue ?? '')
    expect(JSON.parse(older.out).total.fills).toBe(b?.n ?? 0)
    expect(JSON.parse(older.out).venue).toBe(other?.venue)
  }, 60_000)
})
