/**
 * Tick-to-trade: the real bot (`startBot`) against the real mock over loopback HTTP and WebSocket
 * (127.0.0.1), fed by the streams or by polling. The mock's prices are frozen; the bench moves one
 * instrument's index at a time (round robin, `--moves-per-second`) and measures, in wall time, from the
 * move to the arrival at the mock of the first signed command carrying an order of that instrument.
 * With streams the move is pushed at once (as the venue pushes on change); with polling it waits for
 * the next tickers read. Also: the age of the index each actor holds (sampled every second, venue
 * time), instruments halted for stale data, request weight per minute spent on market data, rss.
 *
 *   node --import tsx bench/tickToTrade.bench.ts --transport stream|poll [--instruments 100]
 *        [--seconds 30] [--speed 1] [--moves-per-second 4] [--warmup 8] [--seed 3]
 *
 * `--speed` > 1 runs the mock's clock accelerated (for the 10-virtual-minute staleness case); the
 * latency is then not reported (the bot's intervals shrink in wall time). Prints one summary line
 * naming `tick-to-trade`, the transport and the instrument count, and a `BENCH_RESULT` line.
 */
import { performance } from 'node:perf_hooks'
import { mulDecimal } from '../src/decimal.ts'
import { generateInstruments } from '../src/mock/perps/instruments.ts'
import { requestWeight } from '../src/mock/requestLimiter.ts'
import { COMMAND_PATHS, startBotOnMock } from '../src/sim/botOnMock.ts'
import { indexPegInstruments } from '../src/sim/generatedInstruments.ts'
import { distribution, emitResult, flag, mb, numberFlag, sleepMs } from './stats.ts'

const TRANSPORT = flag('transport') ?? 'stream'
if (TRANSPORT !== 'stream' && TRANSPORT !== 'poll') throw new Error('--transport must be stream or poll')
const N = numberFlag('instruments', 100)
const SECONDS = numberFlag('seconds', 30)
const SPEED = numberFlag('speed', 1)
const MOVES_PER_S = numberFlag('moves-per-second', 4)
const WARMUP_S = numberFlag('warmup', 8)
const SEED = numberFlag('seed', 3)

/** Paths whose reads are market data (the rest of the reads are account and orders). */
const MARKET_DATA = ['/v1/info/index', '/v1/info/tickers', '/v1/info/statistics']

const specs = generateInstruments(N)
const latencies: number[] = []
const pending = new Map<number, number>()
/** Arrival times of the commands being handled (the mock verifies signatures asynchronously). */
const inFlight: number[] = []
const marketWeight = { total: 0, since: 0 }

const run = await startBotOnMock({
  mock: {
    seed: SEED,
    scenario: 'calm',
    clock: SPEED === 1 ? 'real' : 'accelerated',
    speed: SPEED,
    catalogue: { eventCount: 20 },
    exchange: { instruments: specs },
  },
  overrides: { instruments: indexPegInstruments(specs) },
  streams: TRANSPORT === 'stream',
  logLevel: 'warn',
  onRequest: (req) => {
    if (req.method !== 'GET' && COMMAND_PATHS.some((p) => req.path.startsWith(p)))
      inFlight.push(performance.now())
  },
  onExchange: ({ req, command }) => {
    if (req.method === 'GET' && MARKET_DATA.some((p) => req.path.startsWith(p)))
      marketWeight.total += requestWeight(req)
    if (command) inFlight.shift()
  },
})
const { mock, bot } = run
const exchange = mock.exchange
for (const s of specs) exchange.setRegime(s.baseAsset, 'frozen')
// Only order changes made while a command is handled count (a move can also fill a resting quote);
// with two commands in flight the earlier arrival is taken (the larger latency).
exchange.onOrderChange((_owner, _oid, order) => {
  const arrival = inFlight[0]
  if (arrival === undefined) return
  const iid = order().iid
  const t0 = pending.get(iid)
  if (t0 === undefined) return
  pending.delete(iid)
  latencies.push(arrival - t0)
})

const ageSamples: number[] = []
const staleHalted = new Set<string>()
function sample(): void {
  for (const i of bot.status().instruments) {
    const age = i.details?.indexAgeMs
    if (typeof age === 'number') ageSamples.push(age)
    if (i.state.startsWith('halted') && /stale/.test(i.reason ?? '')) staleHalted.add(i.symbol)
  }
}

// Warm-up: every instrument quoting before anything is measured.
const warmEnd = performance.now() + WARMUP_S * 1000
while (performance.now() < warmEnd) await sleepMs(250)
const quotingAtStart = bot.status().instruments.filter((i) => i.state.startsWith('active')).length

const startedWall = performance.now()
const startedVirtual = mock.clock.now()
marketWeight.since = marketWeight.total
let next = 0
let moves = 0
const moveEvery = 1000 / MOVES_PER_S
let lastSample = performance.now()
while (performance.now() - startedWall < SECONDS * 1000) {
  const spec = specs[next % specs.length]
  if (spec === undefined) break
  const up = Math.floor(next / specs.length) % 2 === 0
  next += 1
  const price = exchange.index(spec.baseAsset).index_price
  pending.set(spec.id, performance.now())
  exchange.setIndexPrice(spec.baseAsset, mulDecimal(price, up ? '1.0005' : '0.9995'))
  run.stream?.publishNow()
  moves += 1
  await sleepMs(moveEvery)
  if (performance.now() - lastSample >= 1000) {
    sample()
    lastSample = performance.now()
  }
}
const wallS = (performance.now() - startedWall) / 1000
const virtualMin = (mock.clock.now() - startedVirtual) / 60_000
const marketPerMin = (marketWeight.total - marketWeight.since) / virtualMin
const budget = 1000
const rss = process.memoryUsage().rss
const quotingAtEnd = bot.status().instruments.filter((i) => i.state.startsWith('active')).length
await run.stop('bench over')

const lat = distribution(latencies)
const age = distribution(ageSamples)
const latency =
  SPEED === 1 ? `p50 ${lat.p50.toFixed(2)} / p99 ${lat.p99.toFixed(2)} ms` : 'not measured (accelerated)'
console.log(
  `tick-to-trade ${TRANSPORT.padEnd(6)} ${String(N).padStart(5)} instruments: ${latency} (${lat.n} of ${moves} moves)` +
    ` · index age p50 ${(age.p50 / 1000).toFixed(2)} / p99 ${(age.p99 / 1000).toFixed(2)} s` +
    ` · market data ${marketPerMin.toFixed(0)} weight/min (${((100 * marketPerMin) / budget).toFixed(1)} % of ${budget})` +
    ` · stale halts ${staleHalted.size} · quoting ${quotingAtStart}→${quotingAtEnd}/${N}` +
    ` · rss ${mb(rss)} (bot and mock) · ${virtualMin.toFixed(1)} virtual min in ${wallS.toFixed(0)} s`,
)
emitResult({
  bench: 'tickToTrade',
  transport: TRANSPORT,
  instruments: N,
  speed: SPEED,
  latency: SPEED === 1 ? lat : undefined,
  moves,
  indexAgeMs: age,
  marketWeightPerMinute: marketPerMin,
  staleHalts: staleHalted.size,
  quoting: { start: quotingAtStart, end: quotingAtEnd },
  rss,
  virtualMinutes: virtualMin,
})
