/**
 * Input → signed batch latency (target: p99 < 5 ms with 100 instruments), in process, no network:
 * `node --import tsx bench/actorLatency.bench.ts [--samples 2000] [--quick]`.
 *
 * For each input, the time from `actors.route(INDEX)` to the moment the signed batch holding
 * that instrument's last command is handed to the transport (see inProcessBot.ts). The index moves by
 * 0.5 % each time, so every quote is repriced (modifyOrders). Wall clock throughout.
 *
 * Patterns:
 * - single: one instrument at a time (round robin), each input waits until the previous one settled;
 * - burst: every instrument gets an input in the same tick (the statistics poll's shape), so the
 *   per-input latency includes planning the others and the batches before its own;
 * - chunked: the same burst handed over 19 (or 9) instruments at a time with a `setImmediate` between
 *   chunks, to show what a feed that yields inside a burst would get.
 *
 * Also: a component breakdown (plan, sign), the same runs with the limiter removed and with the bot's
 * default budgets, the delay of an input that lands inside `minRepriceIntervalMs`, and a timer audit
 * (every `setTimeout` armed between the input and its hand-off, by call site), for target (c).
 */
import { performance } from 'node:perf_hooks'
import { createPlanFn } from '../src/bot/quoting/planFunction.ts'
import { systemClock } from '../src/clock.ts'
import { generateInstruments, instrumentToWire } from '../src/mock/perps/instruments.ts'
import { CommandSigner } from '../src/perps/signing/commandSigner.ts'
import { buildModifyOrders } from '../src/perps/signing/ops.ts'
import { seededRandom } from '../src/random.ts'
import { loadStrategies } from '../src/strategy/registry.ts'
import { instrumentForStrategy } from '../src/strategy/snapshot.ts'
import type { StrategySnapshot } from '../src/strategy/strategy.ts'
import { createInProcessBot, DEV_PROXY_PK, type InProcessBot, type LimiterMode } from './inProcessBot.ts'
import { type Distribution, distribution, emitResult, flag, ms, numberFlag, sleepMs } from './stats.ts'

type Pattern = 'single' | 'burst' | 'chunked'

interface Row {
  label: string
  instruments: number
  pattern: Pattern
  limiter: LimiterMode
  levels: number
  latency: Distribution
  /** Burst only: first input → last hand-off of the burst. */
  burstSpan?: Distribution | undefined
  batchesPerRound: number
}

const QUICK = flag('quick') !== undefined
const SAMPLES = numberFlag('samples', QUICK ? 400 : 2_000)
const WARMUP = QUICK ? 100 : 300
/**
 * Instruments per chunk in the `chunked` pattern: 19 × 2 orders = 38 (a weight-2 batch), or 9 × 2 = 18
 * (weight 1: 12 batches of weight 1 for 100 instruments, against 99+99+2 = weight 11).
 */
const CHUNKS = [19, 9] as const
/** ACCOUNT and STATISTICS are re-sent this often (wall time), well inside their staleness limits. */
const REFRESH_MS = 5_000

// ---------------------------------------------------------------------------------------------------
// Latency runs

/** Records, per instrument id, the last hand-off at or after `since` that carries its commands. */
function lastHandoffs(bot: InProcessBot, since: number): Map<number, number> {
  const last = new Map<number, number>()
  for (const h of bot.takeHandoffs()) {
    if (h.at < since) continue
    for (const id of bot.instrumentsOf(h)) last.set(id, Math.max(last.get(id) ?? 0, h.at))
  }
  return last
}

async function run(
  label: string,
  n: number,
  pattern: Pattern,
  limiter: LimiterMode,
  samples: number,
  levels = 1,
  warmup = WARMUP,
  chunk = CHUNKS[0] as number,
): Promise<Row> {
  const bot = await createInProcessBot({ instruments: n, limiter, levels })
  await bot.feedInitial()
  const latencies: number[] = []
  const spans: number[] = []
  let missed = 0
  let refreshedAt = performance.now()
  let rounds = 0
  let measuredBatches = 0
  const total = samples + warmup
  let done = 0
  let k = 0
  while (done < total) {
    if (performance.now() - refreshedAt > REFRESH_MS) {
      bot.refreshSlowInputs()
      await bot.waitIdle()
      bot.takeHandoffs()
      refreshedAt = performance.now()
    }
    const targets = pattern === 'single' ? [bot.instruments[k++ % n]] : bot.instruments
    const sent = new Map<number, number>()
    const batches0 = bot.batcherState().batchesSent
    for (const [at, i] of targets.entries()) {
      if (pattern === 'chunked' && at > 0 && at % chunk === 0) await new Promise((r) => setImmediate(r))
      if (i) sent.set(i.id, bot.moveIndex(i))
    }
    await bot.waitIdle()
    const first = Math.min(...sent.values())
    const last = lastHandoffs(bot, first)
    const measuring = done >= warmup
    let lastAt = 0
    for (const [id, t0] of sent) {
      const at = last.get(id)
      if (at === undefined) {
        if (measuring) missed++
        continue
      }
      lastAt = Math.max(lastAt, at)
      if (measuring) latencies.push(at - t0)
    }
    if (measuring) {
      rounds++
      measuredBatches += bot.batcherState().batchesSent - batches0
      if (pattern !== 'single') spans.push(lastAt - first)
    }
    done += sent.size
  }
  await bot.stop()
  if (missed > 0) console.log(`  (${missed} input(s) produced no batch: not repriced)`)
  const row: Row = {
    label,
    instruments: n,
    pattern,
    limiter,
    levels,
    latency: distribution(latencies),
    burstSpan: pattern === 'single' ? undefined : distribution(spans),
    batchesPerRound: rounds === 0 ? 0 : measuredBatches / rounds,
  }
  printRow(row)
  return row
}

function printRow(r: Row): void {
  const d = r.latency
  const span = r.burstSpan ? `  burst span p50 ${ms(r.burstSpan.p50, 6)} max ${ms(r.burstSpan.max, 6)}` : ''
  console.log(
    `${r.label.padEnd(50)} n=${String(d.n).padStart(5)}  p50 ${ms(d.p50, 6)}  p90 ${ms(d.p90, 6)}  p99 ${ms(d.p99, 6)}  max ${ms(d.max, 7)} ms  batches/round ${r.batchesPerRound.toFixed(1)}${span}`,
  )
}

// ---------------------------------------------------------------------------------------------------
// Components: what one input costs without any waiting

async function components(): Promise<Record<string, Distribution>> {
  const signer = new CommandSigner({ privateKey: DEV_PROXY_PK, clock: systemClock, salts: seededRandom(3) })
  const mods = (k: number) =>
    buildModifyOrders({
      orders: Array.from({ length: k }, (_, i) => ({ oid: 1_000_000 + i, p: '65012.5', qty: '0.001' })),
    })
  const timeAsync = async (f: () => Promise<unknown>, reps: number): Promise<Distribution> => {
    for (let i = 0; i < 50; i++) await f()
    const out: number[] = []
    for (let i = 0; i < reps; i++) {
      const t = performance.now()
      await f()
      out.push(performance.now() - t)
    }
    return distribution(out)
  }
  const two = mods(2)
  const many = mods(99)
  const sign2 = await timeAsync(() => signer.signCommand(two, { expAfterMs: 4_000 }), 500)
  const sign99 = await timeAsync(() => signer.signCommand(many, { expAfterMs: 4_000 }), 300)

  // plan = strategy.quote + validation + diff, for a repricing of a resting bid/ask.
  const registry = await loadStrategies()
  const spec = generateInstruments(1)[0]
  if (spec === undefined) throw new Error('no instrument')
  const instrument = instrumentForStrategy(instrumentToWire(spec))
  const plan = createPlanFn(
    registry.resolve('index-peg', { size: '0.001', positionCap: '0.01', levels: 1, halfSpreadBps: 10 }),
    { priceTicks: 1, priceBps: 2, maxOrderAgeMs: 120_000 },
  )
  const now = Date.now()
  const order = (oid: number, buy: boolean, p: string) => ({
    oid,
    iid: instrument.id,
    buy,
    p,
    qty: '0.001',
    tif: 'gtc',
    po: true,
    ro: false,
    rest: '0.001',
    fill: '0',
    cts: now,
    uts: now,
    status: 'open',
  })
  const snapshot: StrategySnapshot = {
    now,
    instrument,
    index: { price: '65325', ts: now },
    statistics: { volume: '1000', openPrice: '65000', klines: [] },
    position: undefined,
    margin: {
      accountValue: '10000000',
      initialMargin: '0',
      maintenanceMargin: '0',
      marginRatio: 0,
      inLiquidation: false,
    },
    openOrders: [order(1, true, '64935'), order(2, false, '65065')],
    mode: 'normal',
  }
  const planTimes = await timeAsync(async () => plan(snapshot), 2_000)
  return {
    'sign modify ×2': sign2,
    'sign modify ×99': sign99,
    'plan (quote + diff), 1 instrument': planTimes,
  }
}

// ---------------------------------------------------------------------------------------------------
// An input inside minRepriceIntervalMs waits for the actor's next TICK (1 s), not for the interval end

async function deferredByRepriceInterval(samples: number): Promise<Distribution> {
  const bot = await createInProcessBot({ instruments: 1, limiter: 'large', minRepriceIntervalMs: 250 })
  await bot.feedInitial()
  const i = bot.instruments[0]
  if (i === undefined) throw new Error('no instrument')
  const out: number[] = []
  await sleepMs(300)
  for (let s = 0; s < samples; s++) {
    bot.refreshSlowInputs()
    await sleepMs(300)
    await bot.waitIdle()
    bot.moveIndex(i)
    await bot.waitIdle()
    bot.takeHandoffs()
    // 50 ms after a repricing: inside the 250 ms interval.
    await sleepMs(50)
    const t0 = bot.moveIndex(i)
    for (;;) {
      const h = bot.takeHandoffs().find((x) => x.at >= t0)
      if (h) {
        out.push(h.at - t0)
        break
      }
      await sleepMs(1)
    }
    await bot.waitIdle()
  }
  await bot.stop()
  return distribution(out)
}

// ---------------------------------------------------------------------------------------------------
// Timer audit (target c): every setTimeout armed between an input and its hand-off

interface TimerRecord {
  site: string
  delay: number
  armedAt: number
  firedAt: number | undefined
}

function callSite(stack: string | undefined): string {
  const frames = (stack ?? '')
    .split('\n')
    .slice(1)
    .map((l) => l.trim())
    .filter((l) => !l.includes('actorLatency.bench') && !l.includes('node:internal'))
  const describe = (l: string | undefined): string => {
    if (l === undefined) return '?'
    const fn = /^at (?:async )?([^\s(]+) \(/.exec(l)?.[1] ?? '<anonymous>'
    const mod = /node_modules\/((?:@[^/]+\/)?[^/]+)\/(?:.*\/)?([^/:]+):\d+/.exec(l)
    if (mod !== null) return `${mod[1]} ${mod[2]} ${fn}`
    const src = /\/((?:src|bench)\/[^:]+):\d+/.exec(l)?.[1]
    return src !== undefined ? `${src} ${fn}` : `${fn}`
  }
  const first = describe(frames[0])
  // systemClock.setTimeout is a pass-through: name its caller too.
  return first.startsWith('src/clock.ts') ? `${first} ← ${describe(frames[1])}` : first
}

async function timerAudit(n: number, pattern: Pattern, rounds: number): Promise<string[]> {
  const bot = await createInProcessBot({ instruments: n, limiter: 'large' })
  await bot.feedInitial()
  for (let k = 0; k < 50; k++) {
    const target = bot.instruments[k % n]
    if (target) bot.moveIndex(target)
    await bot.waitIdle()
  }
  bot.takeHandoffs()
  const g = globalThis as unknown as { setTimeout: (fn: () => void, ms?: number) => unknown }
  const real = g.setTimeout
  let records: TimerRecord[] | undefined
  g.setTimeout = (fn: () => void, delay?: number) => {
    const list = records
    if (list === undefined) return real(fn, delay)
    const rec: TimerRecord = {
      site: callSite(new Error().stack),
      delay: delay ?? 0,
      armedAt: performance.now(),
      firedAt: undefined,
    }
    list.push(rec)
    return real(() => {
      rec.firedAt = performance.now()
      fn()
    }, delay)
  }
  const perSite = new Map<string, { armed: number; waited: number; delays: Set<number> }>()
  try {
    for (let r = 0; r < rounds; r++) {
      const targets = pattern === 'single' ? [bot.instruments[r % n]] : bot.instruments
      records = []
      const sent = new Map<number, number>()
      for (const i of targets) if (i) sent.set(i.id, bot.moveIndex(i))
      await bot.waitIdle()
      const list = records
      records = undefined
      const first = Math.min(...sent.values())
      const last = lastHandoffs(bot, first)
      const end = Math.max(...last.values())
      for (const t of list) {
        if (t.armedAt > end) continue
        const e = perSite.get(t.site) ?? { armed: 0, waited: 0, delays: new Set<number>() }
        e.armed += 1
        if (t.firedAt !== undefined && t.firedAt <= end) e.waited += 1
        e.delays.add(t.delay)
        perSite.set(t.site, e)
      }
    }
  } finally {
    g.setTimeout = real
    records = undefined
  }
  await bot.stop()
  const lines: string[] = []
  const roundsLabel = pattern === 'single' ? 'per input' : `per burst of ${n}`
  for (const [site, e] of [...perSite].sort((a, b) => b[1].armed - a[1].armed)) {
    lines.push(
      `  ${site.padEnd(64)} armed ${(e.armed / rounds).toFixed(1).padStart(6)} ${roundsLabel}, fired before the hand-off ${(e.waited / rounds).toFixed(1).padStart(6)}, delays ${[...e.delays].sort((a, b) => a - b).join('/')} ms`,
    )
  }
  return lines
}

// ---------------------------------------------------------------------------------------------------

const started = performance.now()
console.log(
  `# Input → signed batch handed to the transport (wall clock, ${SAMPLES} samples per row after ${WARMUP} warm-up)\n`,
)
console.log('## Components (no waiting)\n')
const comp = await components()
for (const [k, d] of Object.entries(comp)) {
  console.log(`${k.padEnd(50)} n=${String(d.n).padStart(5)}  p50 ${ms(d.p50, 6)}  p99 ${ms(d.p99, 6)} ms`)
}

console.log('\n## Real limiter, budgets large enough never to throttle\n')
const rows: Row[] = []
for (const n of [1, 10, 100]) {
  rows.push(await run(`N=${n} one at a time`, n, 'single', 'large', SAMPLES))
  if (n > 1) rows.push(await run(`N=${n} all at once`, n, 'burst', 'large', SAMPLES))
}
rows.push(await run('N=100 all at once, 2 levels (4 orders each)', 100, 'burst', 'large', SAMPLES, 2))
for (const chunk of CHUNKS) {
  rows.push(
    await run(
      `N=100 all at once, fed ${chunk} at a time`,
      100,
      'chunked',
      'large',
      SAMPLES,
      1,
      WARMUP,
      chunk,
    ),
  )
}

console.log('\n## Limiter removed (schedule runs the job at once): the limiter’s share\n')
rows.push(await run('N=100 one at a time, no limiter', 100, 'single', 'none', SAMPLES))
rows.push(await run('N=100 all at once, no limiter', 100, 'burst', 'none', SAMPLES))
rows.push(
  await run(`N=100 all at once, fed ${CHUNKS[0]} at a time, no limiter`, 100, 'chunked', 'none', SAMPLES),
)

console.log('\n## Real limiter, the bot’s default budgets (samples capped to fit one 60 s window)\n')
rows.push(await run('N=100 one at a time, default budgets', 100, 'single', 'default', 600, 1, 100))
rows.push(await run('N=100 all at once, default budgets', 100, 'burst', 'default', 1_000, 1, 100))

console.log('\n## An input 50 ms after a repricing, minRepriceIntervalMs 250 (bot default), N=1\n')
const deferred = await deferredByRepriceInterval(QUICK ? 4 : 10)
console.log(
  `${'deferred input'.padEnd(50)} n=${String(deferred.n).padStart(5)}  p50 ${ms(deferred.p50, 6)}  max ${ms(deferred.max, 7)} ms`,
)

console.log('\n## Timer audit: setTimeout calls armed between the input and its hand-off (real limiter)\n')
console.log('N=100, one at a time:')
const auditSingle = await timerAudit(100, 'single', 100)
for (const l of auditSingle) console.log(l)
console.log('N=100, all at once:')
const auditBurst = await timerAudit(100, 'burst', 5)
for (const l of auditBurst) console.log(l)

const elapsed = (performance.now() - started) / 1000
console.log(`\n(done in ${elapsed.toFixed(0)} s)`)
emitResult({
  bench: 'actorLatency',
  samples: SAMPLES,
  components: comp,
  rows,
  deferred,
  timerAudit: { single: auditSingle, burst: auditBurst },
  elapsedSec: elapsed,
})
