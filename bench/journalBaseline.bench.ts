/**
 * The PnL baseline at start with a large journal (issue 34 point 6): how long reading every fill of
 * the account holds the bot's event loop, paged (`loadPnlBaseline`: keyset pages of 2,000, the loop
 * turning between them) beside the same run's baseline (one select of every fill, summed: the read
 * before paging). Figures: wall and CPU time, and the event loop's longest stall (a 1 ms timer's
 * largest gap) while each reads.
 *
 *   node --import tsx bench/journalBaseline.bench.ts [--fills 1000000]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { addDecimal } from '../src/decimal.ts'
import { openJournalDb } from '../src/journal/database.ts'
import { loadPnlBaseline } from '../src/journal/pnlBaseline.ts'
import { type JournalRow, writeRows } from '../src/journal/rows.ts'
import { numberFlag } from './stats.ts'

const FILLS = numberFlag('fills', 1_000_000)
const T0 = Date.UTC(2026, 0, 1)
const scope = { account: `0x${'a'.repeat(40)}`, venue: 'Polymarket/1/137' }

/** Runs `work` while a 1 ms timer measures the event loop's longest stall. */
async function measured<T>(
  work: () => Promise<T>,
): Promise<{ wallMs: number; cpuMs: number; stallMs: number }> {
  let last = performance.now()
  let stall = 0
  const timer = setInterval(() => {
    const now = performance.now()
    stall = Math.max(stall, now - last)
    last = now
  }, 1)
  await new Promise((r) => setTimeout(r, 20))
  last = performance.now()
  stall = 0
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  await work()
  const wallMs = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  await new Promise((r) => setTimeout(r, 5))
  clearInterval(timer)
  return { wallMs, cpuMs: (cpu.user + cpu.system) / 1000, stallMs: stall }
}

const dir = mkdtempSync(join(tmpdir(), 'perpbot-baseline-bench-'))
try {
  const db = await openJournalDb({ kind: 'sqlite', path: join(dir, 'j.sqlite') }, { writerThread: false })
  const t0 = performance.now()
  for (let start = 0; start < FILLS; start += 10_000) {
    const rows: JournalRow[] = []
    for (let n = start; n < Math.min(FILLS, start + 10_000); n++)
      rows.push({
        table: 'fills',
        row: {
          ...scope,
          trade_id: String(n),
          order_id: n,
          iid: 1 + (n % 10),
          side: n % 2 === 0 ? 'long' : 'short',
          price: '100.25',
          qty: '0.3',
          taker: n % 3 === 0 ? 1 : 0,
          fee: '0.0301',
          fee_asset: 'USDC',
          realized_pnl: n % 2 === 0 ? '0' : '-1.17',
          liquidation: 0,
          ts: T0 + n * 1_000,
          coid: null,
          source: 'stream',
        },
      })
    await writeRows(db.db, rows)
  }
  console.log(
    `journal of ${FILLS.toLocaleString('en')} fills written in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  )
  const paged = await measured(() => loadPnlBaseline(db, { recentSince: T0, scope }))
  // The baseline, same run: every fill in one select, summed (the read before paging).
  const whole = await measured(async () => {
    const all = await db.db
      .selectFrom('fills')
      .select(['iid', 'price', 'qty', 'taker', 'fee', 'realized_pnl', 'liquidation', 'ts'])
      .where('account', '=', scope.account)
      .where('venue', '=', scope.venue)
      .execute()
    let fees = '0'
    for (const f of all) fees = addDecimal(fees, f.fee)
    return fees
  })
  const line = (name: string, m: { wallMs: number; cpuMs: number; stallMs: number }) =>
    `${name.padEnd(28)} wall ${m.wallMs.toFixed(0).padStart(7)} ms  cpu ${m.cpuMs.toFixed(0).padStart(7)} ms  longest stall ${m.stallMs.toFixed(1).padStart(8)} ms`
  console.log(
    `load average ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  )
  console.log(line('paged (loadPnlBaseline)', paged))
  console.log(line('one select (baseline)', whole))
  await db.close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
