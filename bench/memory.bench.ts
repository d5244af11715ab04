/**
 * Memory of N instrument actors in one process (target: 1,000 instruments under 300 MB):
 * `node --expose-gc --import tsx bench/memory.bench.ts [--instruments 1000] [--klines 1440] [--rounds 3]`.
 *
 * Same in-process wiring as the latency bench (supervisor, actors, batcher, limiter with large
 * budgets, signing client over a MockAgent). Statistics reach the actors the way the statistics poll
 * delivers them: one response body for all instruments (`--klines` 1-minute klines each; the mock
 * serves 1,440, a day), `JSON.parse` + the client's zod schema, `statisticsForStrategy`, one STATISTICS
 * per actor; every round polls again, so the previous klines become garbage as in the bot.
 * After a forced GC it prints heap and RSS: for the process with everything imported but no bot
 * (baseline), with N actors fed, after `rounds` repricing rounds (every index moves, every quote is
 * modified), and after 10 more rounds (growth per round would be a leak). It also prints the parse
 * time of one statistics poll (the event loop is blocked that long) and the memory right after the
 * parse, before any GC (the transient peak of a poll). Run it in a fresh process per N.
 */
import { performance } from 'node:perf_hooks'
import { Statistics } from '../src/perps/schemas/info.ts'
import { statisticsForStrategy } from '../src/strategy/snapshot.ts'
import type { StrategyStatistics } from '../src/strategy/strategy.ts'
import type { BenchInstrument } from './inProcessBot.ts'
import { createInProcessBot } from './inProcessBot.ts'
import { emitResult, mb, numberFlag } from './stats.ts'

const gc = (globalThis as { gc?: () => void }).gc
if (gc === undefined) {
  console.error('run with node --expose-gc')
  process.exit(2)
}

interface MemorySample {
  heapUsed: number
  heapTotal: number
  rss: number
  external: number
  arrayBuffers: number
}

async function settle(): Promise<MemorySample> {
  for (let i = 0; i < 4; i++) {
    gc?.()
    await new Promise((r) => setImmediate(r))
  }
  const m = process.memoryUsage()
  return {
    heapUsed: m.heapUsed,
    heapTotal: m.heapTotal,
    rss: m.rss,
    external: m.external,
    arrayBuffers: m.arrayBuffers,
  }
}

const N = numberFlag('instruments', 1_000)
const KLINES = numberFlag('klines', 1_440)
const ROUNDS = numberFlag('rounds', 3)
const EXTRA_ROUNDS = numberFlag('extra-rounds', 10)

const show = (label: string, m: MemorySample): void =>
  console.log(
    `${label.padEnd(46)} heapUsed ${mb(m.heapUsed).padStart(9)}  heapTotal ${mb(m.heapTotal).padStart(9)}  rss ${mb(m.rss).padStart(9)}  external ${mb(m.external).padStart(8)}`,
  )

/** The `GET /v1/info/statistics` body for these instruments: `klines` 1-minute klines each, newest last. */
function statisticsBody(instruments: readonly BenchInstrument[], klines: number, now: number): string {
  const parts: string[] = []
  const minute = 60_000
  const start = Math.floor(now / minute) * minute - klines * minute
  let seed = 12_345
  const rnd = (): number => {
    seed = (Math.imul(seed, 1_103_515_245) + 12_345) >>> 0
    return seed / 4_294_967_296
  }
  for (const i of instruments) {
    const pd = i.instrument.priceDecimals
    const qd = i.instrument.quantityDecimals
    let price = Number(i.prices[0])
    const rows: string[] = []
    for (let k = 0; k < klines; k++) {
      const open = price
      price *= 1 + (rnd() - 0.5) * 0.002
      const hi = Math.max(open, price) * (1 + rnd() * 0.0005)
      const lo = Math.min(open, price) * (1 - rnd() * 0.0005)
      rows.push(
        `[${start + k * minute},"${open.toFixed(pd)}","${hi.toFixed(pd)}","${lo.toFixed(pd)}","${price.toFixed(pd)}","${(rnd() * 100).toFixed(qd)}",${Math.floor(rnd() * 50)}]`,
      )
    }
    parts.push(
      `{"instrument_id":${i.id},"symbol":"${i.symbol}","volume":"1000","open_price":"${i.prices[0]}","klines":[${rows.join(',')}]}`,
    )
  }
  return `[${parts.join(',')}]`
}

interface Poll {
  stats: Map<number, StrategyStatistics>
  bodyBytes: number
  parseMs: number
  /** Right after the parse, before any GC. */
  heapUsed: number
  rss: number
}

/** One statistics poll as the bot does it: body text → JSON.parse → zod → per-instrument statistics. */
function pollStatistics(instruments: readonly BenchInstrument[]): Poll {
  const body = statisticsBody(instruments, KLINES, Date.now())
  const t0 = performance.now()
  const items = Statistics.parse(JSON.parse(body))
  const stats = new Map<number, StrategyStatistics>()
  for (const item of items) stats.set(item.instrument_id, statisticsForStrategy(item))
  const parseMs = performance.now() - t0
  const m = process.memoryUsage()
  return { stats, bodyBytes: body.length, parseMs, heapUsed: m.heapUsed, rss: m.rss }
}

const polls: Poll[] = []

async function repriceRounds(bot: Awaited<ReturnType<typeof createInProcessBot>>, rounds: number) {
  let batches = 0
  let ms = 0
  for (let r = 0; r < rounds; r++) {
    // A statistics poll every 5th round (the bot polls statistics every 15 s, the index every 2 s).
    let stats: Map<number, StrategyStatistics> | undefined
    if (r % 5 === 0) {
      const poll = pollStatistics(bot.instruments)
      polls.push({ ...poll, stats: new Map() })
      stats = poll.stats
    }
    const before = bot.batcherState().batchesSent
    const t0 = performance.now()
    if (stats) bot.refreshSlowInputs(stats)
    for (const i of bot.instruments) bot.moveIndex(i)
    await bot.waitIdle(120_000)
    ms += performance.now() - t0
    bot.takeHandoffs()
    batches += bot.batcherState().batchesSent - before
  }
  return { batches, ms }
}

console.log(
  `# Memory: ${N} instrument actors under one supervisor, statistics with ${KLINES} klines each (node ${process.version})\n`,
)
// Load every module the bot uses (and the strategies) before the baseline, with a throwaway bot of 1.
{
  const warm = await createInProcessBot({ instruments: 1 })
  await warm.feedInitial()
  await warm.stop()
}
const baseline = await settle()
show('baseline (modules loaded, no bot)', baseline)

const t0 = performance.now()
const bot = await createInProcessBot({ instruments: N, limiter: 'large' })
const firstPoll = pollStatistics(bot.instruments)
polls.push({ ...firstPoll, stats: new Map() })
const statisticsBodyBytes = firstPoll.bodyBytes
await bot.feedInitial(firstPoll.stats)
// Only the actors keep statistics from here on.
firstPoll.stats.clear()
const fedMs = performance.now() - t0
const afterFeed = await settle()
show(`${N} actors fed, quotes resting`, afterFeed)

const first = await repriceRounds(bot, ROUNDS)
const afterRounds = await settle()
show(`… after ${ROUNDS} repricing rounds`, afterRounds)

await repriceRounds(bot, EXTRA_ROUNDS)
const afterMore = await settle()
show(`… after ${EXTRA_ROUNDS} more rounds`, afterMore)

const orders = [...bot.openOrders().values()].reduce((a, b) => a + b, 0)
const parse = polls.map((p) => p.parseMs).sort((a, b) => a - b)
const peakRss = Math.max(...polls.map((p) => p.rss), afterMore.rss)
const peakHeap = Math.max(...polls.map((p) => p.heapUsed))
console.log(
  `\nstatistics poll: body ${mb(statisticsBodyBytes)}, JSON.parse + zod ${parse[Math.floor(parse.length / 2)]?.toFixed(0)} ms median, ${parse[parse.length - 1]?.toFixed(0)} ms max (event loop blocked); ` +
    `right after a parse, before GC: heapUsed up to ${mb(peakHeap)}, rss up to ${mb(peakRss)}`,
)
await bot.stop()

const perActor = (afterRounds.heapUsed - baseline.heapUsed) / N
const growthPerRound = (afterMore.heapUsed - afterRounds.heapUsed) / EXTRA_ROUNDS
console.log(
  `\nper actor (heapUsed above baseline): ${(perActor / 1024).toFixed(1)} KB; resting orders ${orders}; ` +
    `heap change per further round ${(growthPerRound / 1024).toFixed(1)} KB; ` +
    `feed ${fedMs.toFixed(0)} ms; a round of ${N} repricings ${(first.ms / ROUNDS).toFixed(0)} ms, ${(first.batches / ROUNDS).toFixed(1)} batches`,
)
const target = 300 * 1024 * 1024
// The OS's high-water mark over the whole run (includes this bench's own synthetic response bodies).
const maxRss = process.resourceUsage().maxRSS * 1024
console.log(
  `target rss < 300 MB: ${afterMore.rss < target ? 'met' : 'NOT met'} after GC (${mb(afterMore.rss)} after ${ROUNDS + EXTRA_ROUNDS} rounds); ` +
    `${peakRss < target ? 'met' : 'NOT met'} at the peak of a statistics poll (${mb(peakRss)}); ` +
    `process max RSS (OS) ${mb(maxRss)}`,
)
emitResult({
  bench: 'memory',
  instruments: N,
  klines: KLINES,
  statisticsBodyBytes,
  statisticsParseMs: parse,
  peakRss,
  peakHeap,
  maxRss,
  baseline,
  afterFeed,
  afterRounds,
  afterMore,
  perActorBytes: perActor,
  growthPerRoundBytes: growthPerRound,
  roundMs: first.ms / ROUNDS,
  batchesPerRound: first.batches / ROUNDS,
  restingOrders: orders,
})
