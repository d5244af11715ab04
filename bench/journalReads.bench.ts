/**
 * Issue 34 point 6: a journal of 1 M fills (and 90 days of minute snapshots on two instruments) at
 * start and under `/history`. Measured while each runs: the event loop's longest delay
 * (`monitorEventLoopDelay`, 10 ms resolution) and a `/livez`-style loopback probe every 20 ms (its
 * worst latency), beside the same run's baseline, the read path before the change:
 * - start: the PnL baseline on the main handle (paged, no checkpoint) against the reader thread, the
 *   first start (every fill summed, the checkpoint made) and the next (from the checkpoint);
 * - `/history?since=90d` asked 40 times at once: the old query (every minute of the window grouped,
 *   the count, on the main handle, each ask its own read) against the bot's source (reader thread,
 *   listed minutes, one shared read).
 *
 *   npm run journal:bench -- [--fills 1000000] [--windows] [--no-write]
 *
 * Unless `--no-write`, the table replaces the `journal-reads` region of docs/benchmarks.md, with the
 * machine, Node and load of the run.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { sql } from 'kysely'
import { type JournalDb, openJournalDb } from '../src/journal/database.ts'
import { loadPnlBaseline } from '../src/journal/pnlBaseline.ts'
import { loadJournalHistory } from '../src/journal/reading/history.ts'
import { sqliteDriver } from '../src/journal/sqlite/sqliteDriver.ts'
import { coalescedHistory } from '../src/ops/dashboard/history.ts'
import { loadNow, loadSpan, machineLine, utcStamp, writeRegion } from './docRegions.ts'
import { exitWithHelpOnRequest, numberFlag } from './stats.ts'

exitWithHelpOnRequest(import.meta.url)

const FILLS = numberFlag('fills', 1_000_000)
const WRITE = !process.argv.includes('--no-write')
const LOAD0 = loadNow()
const DAY = 86_400_000
const NOW = Date.UTC(2026, 11, 1)
const SPAN = 90 * DAY
const scope = { account: `0x${'a'.repeat(40)}`, venue: 'Polymarket/1/137' }

interface Figures {
  wallMs: number
  cpuMs: number
  loopMaxMs: number
  probeMaxMs: number
  probes: number
}

/** Runs `work` while the event loop's delay is sampled and a loopback probe asks every 20 ms. */
async function measured(work: () => Promise<unknown>): Promise<Figures> {
  const server = createServer((_req, res) => res.end('ok'))
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  const probes: number[] = []
  let probing = true
  const probe = async (): Promise<void> => {
    while (probing) {
      const t0 = performance.now()
      await new Promise<void>((resolve) => {
        const req = request({ host: '127.0.0.1', port, path: '/livez', agent: false }, (res) => {
          res.resume()
          res.on('end', () => resolve())
        })
        req.on('error', () => resolve())
        req.end()
      })
      probes.push(performance.now() - t0)
      await new Promise((r) => setTimeout(r, 20))
    }
  }
  const loop = monitorEventLoopDelay({ resolution: 10 })
  const prober = probe()
  // The longest gap of a 1 ms timer too: continuations chained in microtasks (an async SQLite read
  // after another) hold the loop without the delay histogram's timer seeing each turn.
  let last = performance.now()
  let stall = 0
  const ticker = setInterval(() => {
    const now = performance.now()
    stall = Math.max(stall, now - last)
    last = now
  }, 1)
  await new Promise((r) => setTimeout(r, 50))
  last = performance.now()
  stall = 0
  loop.enable()
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  await work()
  const wallMs = performance.now() - t0
  const cpu = process.cpuUsage(cpu0)
  await new Promise((r) => setTimeout(r, 30))
  loop.disable()
  clearInterval(ticker)
  probing = false
  await prober
  server.close()
  return {
    wallMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    loopMaxMs: Math.max(loop.max / 1e6, stall),
    probeMaxMs: Math.max(0, ...probes),
    probes: probes.length,
  }
}

/** The journal, built fast: one transaction of prepared inserts on a connection of its own. */
function build(path: string): void {
  const Database = sqliteDriver()
  const h = new Database(path)
  const fill = h.prepare(
    `insert into fills (account, venue, trade_id, order_id, iid, side, price, qty, taker, fee, fee_asset,
      realized_pnl, liquidation, ts, coid, source) values (?, ?, ?, ?, ?, ?, '100.25', '0.3', ?, '0.0301',
      'USDC', ?, 0, ?, null, 'stream')`,
  )
  const snap = h.prepare(
    `insert into pnl_snapshots (account, venue, minute, iid, position, realized_pnl, unrealized_pnl, fees,
      funding, volume, fills, mode, inventory_pnl, span_ms) values (?, ?, ?, ?, '0', ?, '0', '1', '0', '0', 0,
      'live', '0', 60000)`,
  )
  h.transaction(() => {
    // The fills spread over the 90 days before NOW.
    for (let n = 0; n < FILLS; n++)
      fill.run(
        scope.account,
        scope.venue,
        String(n),
        n,
        1 + (n % 2),
        n % 2 === 0 ? 'long' : 'short',
        n % 3 === 0 ? 1 : 0,
        n % 2 === 0 ? '0' : '-1.17',
        NOW - SPAN + Math.floor((n * SPAN) / FILLS),
      )
    const m0 = Math.floor((NOW - SPAN) / 60_000) * 60_000
    for (let m = m0; m <= NOW; m += 60_000)
      for (const iid of [1, 2]) snap.run(scope.account, scope.venue, m, iid, String((m - m0) / 60_000))
  })()
  h.close()
}

/** `/history` before the change: every minute of the window grouped (a modulo filter), on the main handle. */
async function oldHistory(db: JournalDb, since: number, until: number): Promise<unknown> {
  const stepMs = Math.max(1, Math.ceil((until - since) / 60_000 / 1_000)) * 60_000
  const real = (c: string) => sql<number>`sum(cast(${sql.ref(c)} as double precision))`
  const points = await db.db
    .selectFrom('pnl_snapshots')
    .select(['minute', real('realized_pnl').as('r'), real('fees').as('f')])
    .where('account', '=', scope.account)
    .where('venue', '=', scope.venue)
    .where('minute', '>=', since)
    .where('minute', '<=', until)
    .where(sql<boolean>`minute % ${stepMs} = 0`)
    .groupBy('minute')
    .orderBy('minute')
    .limit(1_001)
    .execute()
  const fills = await db.db
    .selectFrom('fills')
    .selectAll()
    .where('account', '=', scope.account)
    .where('venue', '=', scope.venue)
    .where('ts', '>=', since)
    .where('ts', '<=', until)
    .orderBy('ts', 'desc')
    .limit(200)
    .execute()
  const count = await db.db
    .selectFrom('fills')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('account', '=', scope.account)
    .where('venue', '=', scope.venue)
    .where('ts', '>=', since)
    .where('ts', '<=', until)
    .executeTakeFirst()
  return { points: points.length, fills: fills.length, count: count?.n }
}

const line = (name: string, f: Figures): string =>
  `${name.padEnd(46)} wall ${f.wallMs.toFixed(0).padStart(6)} ms  cpu ${f.cpuMs.toFixed(0).padStart(6)} ms  ` +
  `loop max ${f.loopMaxMs.toFixed(1).padStart(7)} ms  probe max ${f.probeMaxMs.toFixed(1).padStart(7)} ms (${f.probes})`

/** The docs region: who measured what, where, at what load, and the table. */
function regionText(results: readonly [string, Figures][]): string {
  const n = (x: number, digits = 0): string =>
    x.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })
  return [
    `Measured ${utcStamp()} by \`npm run journal:bench -- --fills ${FILLS}\` (bench/journalReads.bench.ts; rerunning replaces this block) on ${machineLine()}; ${loadSpan(LOAD0)} over the run.`,
    '',
    `| case (${n(FILLS)} fills) | wall ms | CPU ms | longest stall ms | probe max ms (probes) |`,
    '|---|---|---|---|---|',
    ...results.map(
      ([name, f]) =>
        `| ${name} | ${n(f.wallMs)} | ${n(f.cpuMs)} | ${n(f.loopMaxMs, 1)} | ${n(f.probeMaxMs, 1)} (${f.probes}) |`,
    ),
  ].join('\n')
}

const dir = mkdtempSync(join(tmpdir(), 'perpbot-reads-bench-'))
try {
  const path = join(dir, 'journal.sqlite')
  ;(await openJournalDb({ kind: 'sqlite', path }, { writerThread: false, readerThread: false })).close()
  const t0 = performance.now()
  build(path)
  console.log(
    `journal: ${FILLS.toLocaleString('en')} fills over 90 days and ${(2 * (SPAN / 60_000 + 1)).toLocaleString('en')} minute snapshots, built in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  )
  const main = await openJournalDb({ kind: 'sqlite', path }, { writerThread: false, readerThread: false })
  const threaded = await openJournalDb({ kind: 'sqlite', path }, { writerThread: false })
  const recentSince = NOW - 2 * 3_600_000
  const results: [string, Figures][] = []
  results.push([
    'start, baseline: main handle, paged',
    await measured(() => loadPnlBaseline(main, { recentSince, scope })),
  ])
  const saved: { name: string; value: unknown }[] = []
  results.push([
    'start, reader thread: first (checkpoint made)',
    await measured(() =>
      loadPnlBaseline(threaded, {
        recentSince,
        scope,
        checkpointBefore: NOW - 7 * DAY,
        saveCheckpoint: (name, value) => void saved.push({ name, value }),
      }),
    ),
  ])
  for (const x of saved)
    await main.db
      .insertInto('state')
      .values({ name: x.name, value: JSON.stringify(x.value), at: NOW })
      .execute()
  results.push([
    'start, reader thread: next (from the checkpoint)',
    await measured(() => loadPnlBaseline(threaded, { recentSince, scope, checkpointBefore: NOW - 7 * DAY })),
  ])
  results.push([
    '40 × /history 90d, baseline: old query, main',
    await measured(() => Promise.all(Array.from({ length: 40 }, () => oldHistory(main, NOW - SPAN, NOW)))),
  ])
  const source = coalescedHistory({
    read: (q) => loadJournalHistory(threaded, { since: NOW - (q.spanMs ?? SPAN), until: NOW, scope }),
  })
  results.push([
    '40 × /history 90d: reader thread, shared read',
    await measured(() => Promise.all(Array.from({ length: 40 }, () => source.read({ spanMs: SPAN })))),
  ])
  // Forty different windows (no sharing): what the reader thread costs when nothing coalesces.
  if (process.argv.includes('--windows'))
    results.push([
      '40 × /history 90d: reader thread, 40 windows',
      await measured(() =>
        Promise.all(
          Array.from({ length: 40 }, (_, i) =>
            loadJournalHistory(threaded, { since: NOW - SPAN + i, until: NOW, scope }),
          ),
        ),
      ),
    ])
  console.log(`${machineLine()}, ${loadSpan(LOAD0)}`)
  for (const [name, f] of results) console.log(line(name, f))
  if (WRITE) {
    writeRegion('docs/benchmarks.md', 'journal-reads', regionText(results))
    console.log('docs/benchmarks.md: journal-reads region rewritten')
  }
  await main.close()
  await threaded.close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}
