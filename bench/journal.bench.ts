/**
 * The journal's costs, in one run:
 *  1. what the order path pays per record (`journal.command()`: a queue push), beside a plain array
 *     push of the same object (the baseline);
 *  2. a batch write (one transaction) of 1, 50 and 500 rows of the bot's mix, per batch and per row,
 *     on SQLite (WAL, synchronous=NORMAL) and on PostgreSQL (a throwaway local server, when installed);
 *  3. a simulated week of 10 instruments at the bot's rates (docs/benchmarks.md: 60,472 signed
 *     commands a day, 4.8 orders each (what command() builds), 1,597 fills a day; 2 order state changes per order; funding
 *     hourly per instrument; a snapshot per instrument per minute): write time and size on disk,
 *     and what retention (30 days of commands) keeps;
 *  4. how long a flush of 200 rows holds the bot's thread (the event loop's longest stall while the
 *     batch is written), SQLite writes on the bot's thread (the baseline) and on the writer thread.
 *
 *   node --import tsx bench/journal.bench.ts [--days 7] [--pg-days 1] [--no-pg]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import { SimulatedClock } from 'xstate'
import { type JournalDb, type JournalTarget, openJournalDb } from '../src/journal/database.ts'
import { createJournal, type Journal } from '../src/journal/journal.ts'
import { JournalSettings } from '../src/journal/settings.ts'
import { POSTGRES_AVAILABLE, startPostgres } from '../test/helpers/postgres.ts'
import { flag, mb, numberFlag } from './stats.ts'

const DAYS = numberFlag('days', 7)
const PG_DAYS = numberFlag('pg-days', 1)
const WITH_PG = flag('no-pg') === undefined && POSTGRES_AVAILABLE
const INSTRUMENTS = 10
const COMMANDS_PER_DAY = 60_472
const FILLS_PER_DAY = 1_597
const ORDER_EVENTS_PER_ITEM = numberFlag('order-events', 2)
const T0 = Date.UTC(2026, 10, 1)

const item = (i: number) => ({
  op: i % 3 === 0 ? 'cancel' : 'create',
  iid: 1 + (i % INSTRUMENTS),
  coid: `pb1-00${(i * 7919).toString(16).padStart(10, '0')}`,
  oid: 1_000_000 + i,
  side: i % 2 ? 'long' : 'short',
  price: `${65_000 + (i % 400)}.5`,
  qty: '0.012',
  answer: 'ok' as const,
})

const command = (n: number, ts: number) => ({
  ts,
  kind: n % 4 === 0 ? 'cancelOrders' : 'createOrders',
  items: Array.from({ length: n % 5 === 0 ? 4 : 5 }, (_, i) => item(n * 5 + i)),
  outcome: 'ok' as const,
  latencyMs: 3.2,
  weight: 5,
})

const fill = (n: number, ts: number) => ({
  tradeId: n,
  orderId: 1_000_000 + n,
  iid: 1 + (n % INSTRUMENTS),
  side: n % 2 ? 'long' : 'short',
  price: `${65_000 + (n % 400)}.5`,
  qty: '0.012',
  taker: n % 5 === 0,
  fee: n % 5 === 0 ? '0.31' : '-0.08',
  feeAsset: 'USDC',
  realizedPnl: n % 2 ? '1.25' : '0',
  liquidation: false,
  ts,
})

const snapshot = (minute: number, iid: number) => ({
  minute,
  iid,
  position: '0.036',
  realizedPnl: '12.5',
  unrealizedPnl: '-3.25',
  fees: '-1.2',
  funding: '0.4',
  volume: '125000.75',
  fills: 42,
  mode: 'quoting',
})

function openJournal(db: JournalDb, clock: SimulatedClock, batchRows = 500): Journal {
  return createJournal({
    db,
    clock,
    // The timer never fires on the simulated clock: the bench flushes when it wants.
    settings: JournalSettings.parse({ flushMs: 60_000, batchRows, queueCapacity: 2_000_000 }),
    run: { version: 'bench', mode: 'simulate', configHash: 'bench' },
  })
}

/** 1: the caller's cost per record against a plain push. */
function callerPath(db: JournalDb): void {
  const clock = new SimulatedClock()
  clock.set(T0)
  const N = 100_000
  const records = Array.from({ length: 1_000 }, (_, i) => command(i, T0 + i))
  const sink: unknown[] = []
  const time = (f: (i: number) => void): number => {
    for (let i = 0; i < 10_000; i++) f(i)
    const t = performance.now()
    for (let i = 0; i < N; i++) f(i)
    return ((performance.now() - t) * 1_000) / N
  }
  const base = time((i) => {
    sink.push(records[i % 1_000])
    if (sink.length > 50_000) sink.length = 0
  })
  const j = createJournal({
    db,
    clock,
    settings: JournalSettings.parse({ flushMs: 60_000, batchRows: 10_000, queueCapacity: 200_000 }),
    run: { version: 'bench', mode: 'simulate', configHash: 'bench' },
  })
  const ours = time((i) => j.command(records[i % 1_000] ?? command(0, T0)))
  console.log(
    `caller path, µs per record (${N} records): array push ${base.toFixed(3)}, journal.command ${ours.toFixed(3)}`,
  )
}

/** 2: one transaction of n rows of the mix (commands 85 %, order events…): ms per batch, µs per row. */
async function batches(db: JournalDb, label: string): Promise<void> {
  const clock = new SimulatedClock()
  clock.set(T0)
  for (const n of [1, 50, 200, 500]) {
    const j = openJournal(db, clock, n)
    await j.flush()
    const samples: number[] = []
    let seq = 0
    for (let b = 0; b < Math.max(20, Math.floor(4_000 / n)); b++) {
      for (let i = 0; i < n; i++) {
        const k = seq++
        if (k % 20 === 0) j.fill(fill(k + n * 1_000_000, T0 + k), 'stream')
        else if (k % 2 === 0)
          j.orderEvent({
            ts: T0 + k,
            iid: 1 + (k % 10),
            oid: k,
            state: 'open',
            price: '65000.5',
            qty: '0.012',
          })
        else j.command(command(k, T0 + k))
      }
      const t = performance.now()
      await j.flush()
      samples.push(performance.now() - t)
    }
    samples.sort((a, b) => a - b)
    const p50 = samples[Math.floor(samples.length / 2)] ?? 0
    const max = samples[samples.length - 1] ?? 0
    console.log(
      `${label.padEnd(10)} batch of ${String(n).padStart(3)} rows: p50 ${p50.toFixed(2)} ms, max ${max.toFixed(2)} ms per batch; ${((p50 * 1_000) / n).toFixed(1)} µs per row`,
    )
  }
}

/** 3: days of 10 instruments at the bot's rates; flushed as the writer would (every second of bot time). */
async function week(db: JournalDb, label: string, days: number): Promise<void> {
  const clock = new SimulatedClock()
  clock.set(T0)
  const j = openJournal(db, clock, 200)
  const t = performance.now()
  let rows = 0
  let fills = 0
  let commands = 0
  const perSecond = COMMANDS_PER_DAY / 86_400
  const fillsPerSecond = FILLS_PER_DAY / 86_400
  let cmdDebt = 0
  let fillDebt = 0
  for (let s = 0; s < days * 86_400; s++) {
    const ts = T0 + s * 1_000
    cmdDebt += perSecond
    fillDebt += fillsPerSecond
    for (; cmdDebt >= 1; cmdDebt--) {
      const c = command(commands++, ts)
      j.command(c)
      rows += 1
      for (const it of c.items)
        for (let e = 0; e < ORDER_EVENTS_PER_ITEM; e++) {
          j.orderEvent({
            ts,
            iid: it.iid,
            oid: it.oid,
            coid: it.coid,
            state: e === 0 ? 'open' : 'cancelled',
            price: it.price,
            qty: it.qty,
          })
          rows += 1
        }
    }
    for (; fillDebt >= 1; fillDebt--) {
      j.fill(fill(fills++, ts), 'stream')
      rows += 1
    }
    if (s % 60 === 0)
      for (let iid = 1; iid <= INSTRUMENTS; iid++) {
        j.snapshot(snapshot(ts - (ts % 60_000), iid))
        rows += 1
      }
    if (s % 3_600 === 0)
      for (let iid = 1; iid <= INSTRUMENTS; iid++) {
        j.funding({
          key: `iid:${iid}:${ts}`,
          iid,
          size: '0.036',
          rate: '0.0001',
          asset: 'USDC',
          amount: '0.23',
          ts,
        })
        rows += 1
      }
    if (s % 10 === 0 && j.stats().depth >= 200) await j.flush()
  }
  await j.flush()
  const secs = (performance.now() - t) / 1_000
  const size = await db.sizeBytes()
  const m = await j.metrics()
  console.log(
    `${label.padEnd(10)} ${days} day(s) of ${INSTRUMENTS} instruments: ${rows} rows (${commands} commands, ${fills} fills) written in ${secs.toFixed(1)} s (${((secs * 1e6) / rows).toFixed(1)} µs per row, max batch ${m.writeLatencyMaxMs.toFixed(1)} ms); size ${mb(size)}${days === 7 ? '' : `, a week ≈ ${mb((size * 7) / days)}`}`,
  )
}

/** 4: the longest the event loop cannot turn while a batch of 200 rows of the mix is written, per flush. */
async function loopHold(db: JournalDb, label: string): Promise<void> {
  const clock = new SimulatedClock()
  clock.set(T0)
  const j = openJournal(db, clock, 200)
  await j.flush()
  const stalls: number[] = []
  let seq = 0
  for (let b = 0; b < 40; b++) {
    for (let i = 0; i < 200; i++) {
      const k = seq++
      if (k % 20 === 0) j.fill(fill(k + 9_000_000, T0 + k), 'stream')
      else if (k % 2 === 0)
        j.orderEvent({ ts: T0 + k, iid: 1 + (k % 10), oid: k, state: 'open', price: '65000.5', qty: '0.012' })
      else j.command(command(k, T0 + k))
    }
    // The longest span the loop could not turn: the gap between two consecutive `setImmediate`s.
    let last = performance.now()
    let longest = 0
    let probing = true
    const probe = (): void => {
      const now = performance.now()
      longest = Math.max(longest, now - last)
      last = now
      if (probing) setImmediate(probe)
    }
    setImmediate(probe)
    await j.flush()
    // The probe's next turn measures the span that ended with the flush.
    await new Promise((r) => setImmediate(r))
    await new Promise((r) => setImmediate(r))
    probing = false
    stalls.push(longest)
  }
  stalls.sort((a, b) => a - b)
  const at = (q: number) =>
    (stalls[Math.min(stalls.length - 1, Math.floor(q * stalls.length))] ?? 0).toFixed(2)
  console.log(
    `${label.padEnd(34)} longest event-loop stall per flush of 200 rows: p50 ${at(0.5)} ms, p90 ${at(0.9)} ms, max ${at(1)} ms`,
  )
}

const dir = mkdtempSync(join(tmpdir(), 'perpbot-journal-bench-'))
const withDb = async (target: JournalTarget, f: (db: JournalDb) => Promise<void>): Promise<void> => {
  const db = await openJournalDb(target)
  try {
    await f(db)
  } finally {
    await db.close()
  }
}
try {
  console.log(`journal bench, Node ${process.version}`)
  await withDb({ kind: 'sqlite', path: join(dir, 'caller.sqlite') }, async (db) => callerPath(db))
  await withDb({ kind: 'sqlite', path: join(dir, 'batches.sqlite') }, (db) => batches(db, 'sqlite'))
  const pg = WITH_PG ? await startPostgres() : undefined
  try {
    if (pg)
      await withDb({ kind: 'postgres', url: await pg.createDatabase('batches') }, (db) =>
        batches(db, 'postgres'),
      )
    else console.log('postgres   skipped (no server binaries, or --no-pg)')
    for (const writerThread of [false, true]) {
      const db = await openJournalDb(
        { kind: 'sqlite', path: join(dir, `hold-${writerThread}.sqlite`) },
        { writerThread },
      )
      try {
        await loopHold(db, `sqlite, writes ${writerThread ? 'on the writer thread' : "on the bot's thread"}`)
      } finally {
        await db.close()
      }
    }
    await withDb({ kind: 'sqlite', path: join(dir, 'week.sqlite') }, (db) => week(db, 'sqlite', DAYS))
    if (pg)
      await withDb({ kind: 'postgres', url: await pg.createDatabase('week') }, (db) =>
        week(db, 'postgres', PG_DAYS),
      )
  } finally {
    await pg?.stop()
  }
} finally {
  rmSync(dir, { recursive: true, force: true })
}
