/**
 * Tick-to-trade: the real bot (`startBot`) against the real mock over loopback HTTP and WebSocket
 * (127.0.0.1), fed by the streams or by polling. The mock's prices are frozen; the bench moves one
 * instrument's index at a time (round robin, `--moves` of them at `--moves-per-second` with seeded
 * jittered gaps, bench/tickToTradeMoves.ts) and measures, in wall time, from the
 * move to the arrival at the mock of the first signed command carrying an order of that instrument.
 * With streams the move is pushed at once as a change push (the moved instrument's ticker, BBO and
 * book, as the venue pushes a change; the whole tick of every ticker, BBO and the portfolio keeps its
 * 1 s cadence); with polling it waits for the next tickers read. Also: the age
 * of the index each actor holds (sampled every second, venue time), instruments halted for stale
 * data, request weight per minute spent on market data, rss (at the end, peak, and with --expose-gc
 * the heap after a full collection).
 *
 *   node --import tsx bench/tickToTrade.bench.ts --transport stream|poll [--instruments 100]
 *        [--seconds 30 | --moves N] [--speed 1] [--moves-per-second 4] [--warmup 8] [--seed 3]
 *        [--layout process|inline] [--open-order-cap 3000] [--heap-growth 25] [--journal]
 *        [--record] [--record-flush-s 5] [--record-received-only] [--ages-every-s 5]
 *        [--placement apart|shared]
 *
 * With streams the summary also splits the moves by when they were made: while the bot was reading
 * a venue tick (a light tap on its public sockets times the first and last `tickers::all` frame of
 * each tick) or not, with each group's latencies and how long reading a tick took.
 *
 * `--journal`: the bot keeps its journal (SQLite in a temp dir, the default settings) as `perpbot run`
 * does; without it, none. The same case with and without it shows the journal's cost on the order path.
 *
 * `--record`: the public stream is also recorded as `perpbot run --record` does (a tap on the bot's
 * own public sockets: the tickers and bbo it receives plus trades and books of every instrument on
 * extra sockets, parsed and written by a child process at a lower priority into a temp folder),
 * flushed every `--record-flush-s` seconds (default 5, twelve times `run`'s cadence, so
 * the window holds several flushes). The same case with and without it shows the recording's cost on
 * the order path.
 *
 * `--layout process` (the default at `--speed 1`) runs the mock in a child process (bench/
 * tickToTradeMock.ts, steered over IPC; node flags for it in `TICK_TO_TRADE_MOCK_FLAGS`, e.g.
 * `--cpu-prof`), so the bot has a core of its own as it would against the venue; the move and the
 * arrival are both timed there, on one clock. The summary also gives the mock's own share: how long
 * the push tick of each move took to write (inside the measured time). `inline` runs both in this
 * process (the mock's publishing and serving then compete with the bot for one thread); rss is then
 * bot and mock together, with `process` the bot alone. `--placement` (bench/placement.ts, with
 * `process` only): `apart` (the default where it applies) puts the mock on the last CPU and, after the
 * warm-up, the bot's event loop on the others with its other threads at idle priority; `shared` leaves
 * them where the kernel puts them.
 *
 * Warm-up: at least `--warmup` seconds, then (streams) until every instrument quotes and the bot's
 * request limiter has nothing queued and at most half its action budget spent (start-up places two
 * orders per instrument, at 1,000 instruments as hundreds of small batches that queue behind the
 * request budget for a minute or more), so start-up commands do not sit in the measured window;
 * bounded by `--warmup-max` (default 4 × warmup). The summary says how long it took and what was
 * still queued when measuring began. At more than 333 instruments the mock's open-order cap is raised
 * (`openOrderCap`: the venue's 1,000 per account cannot hold two quotes for each).
 *
 * `--speed` > 1 runs the mock's clock accelerated (for the 10-virtual-minute staleness case, inline:
 * the bot shares the mock's clock); the latency is then not reported (the bot's intervals shrink in
 * wall time). Prints one summary line naming `tick-to-trade`, the transport and the instrument count,
 * and a `BENCH_RESULT` line.
 */
import { type ChildProcess, fork } from 'node:child_process'
import { subscribe as subscribeChannel } from 'node:diagnostics_channel'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { constants, monitorEventLoopDelay, PerformanceObserver, performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { GCProfiler, getHeapSpaceStatistics } from 'node:v8'
import type { RunningBot } from '../src/bot/startBot.ts'
import { applyHeapPolicy } from '../src/cli/heapPolicy.ts'
import { systemClock } from '../src/clock.ts'
import { openJournalDb } from '../src/journal/database.ts'
import { createJournal } from '../src/journal/journal.ts'
import { JournalSettings } from '../src/journal/settings.ts'
import { generateInstruments } from '../src/mock/perps/instruments.ts'
import { STREAM_PATH } from '../src/mock/stream/streamServer.ts'
import type { StreamTap } from '../src/perps/stream/frameTap.ts'
import { instrumentOfSpec } from '../src/research/download/mockSource.ts'
import { clockImage } from '../src/research/record/recorderProcess.ts'
import { type RecordingTap, startRecordingTap } from '../src/research/record/recordingTap.ts'
import { DEFAULT_HEAP_GROWTH_PERCENT } from '../src/settings/heapDefault.ts'
import { COMMAND_PATHS, startBotAgainst, startBotOnMock } from '../src/sim/botOnMock.ts'
import { indexPegInstruments } from '../src/sim/generatedInstruments.ts'
import { type Placement, placeEventLoop, placementFlag, placementText, placeVenue } from './placement.ts'
import {
  distribution,
  emitResult,
  exitWithHelpOnRequest,
  flag,
  mb,
  numberFlag,
  pausedMs,
  sleepMs,
} from './stats.ts'
import type { MockReplyMessage, MockRequestMessage } from './tickToTradeMock.ts'
import { latencyText, moveSchedule, overTarget, TARGET_P99_MS } from './tickToTradeMoves.ts'
import { createTickToTradeProbe, openOrderCap, type ProbeTotals } from './tickToTradeProbe.ts'
import { startWindowProfile } from './windowProfile.ts'

exitWithHelpOnRequest(import.meta.url)

const TRANSPORT = flag('transport') ?? 'stream'
if (TRANSPORT !== 'stream' && TRANSPORT !== 'poll') throw new Error('--transport must be stream or poll')
const N = numberFlag('instruments', 100)
const SPEED = numberFlag('speed', 1)
const SEED = numberFlag('seed', 3)
const MOVES = moveSchedule({ seconds: 30, seed: SEED })
const WARMUP_S = numberFlag('warmup', 8)
const WARMUP_MAX_S = numberFlag('warmup-max', 4 * WARMUP_S)
const JOURNAL = process.argv.includes('--journal')
const RECORD = process.argv.includes('--record')
const RECORD_FLUSH_S = numberFlag('record-flush-s', 5)
/** `--record-received-only`: only the channels the bot reads (tickers, bbo) are recorded, no trades or books. */
const RECORD_RECEIVED_ONLY = process.argv.includes('--record-received-only')
const journalDir = JOURNAL ? mkdtempSync(join(tmpdir(), 'perpbot-ttt-journal-')) : undefined
const journal =
  journalDir === undefined
    ? undefined
    : createJournal({
        db: await openJournalDb({ kind: 'sqlite', path: join(journalDir, 'journal.sqlite') }),
        clock: systemClock,
        settings: JournalSettings.parse({}),
        run: { version: 'bench', mode: 'dry-run', configHash: 'tick-to-trade' },
      })
// The heap policy `perpbot run` applies (ops.heapGrowthPercent; 0 = V8's own, the baseline).
const HEAP = applyHeapPolicy(numberFlag('heap-growth', DEFAULT_HEAP_GROWTH_PERCENT))
/** The mock's open-order cap per account (the venue's: 1,000). */
const CAP = numberFlag('open-order-cap', openOrderCap(N))
const LAYOUT = flag('layout') ?? (SPEED === 1 ? 'process' : 'inline')
if (LAYOUT !== 'process' && LAYOUT !== 'inline') throw new Error('--layout must be process or inline')
if (LAYOUT === 'process' && SPEED !== 1) throw new Error('--layout process runs at --speed 1 only')
// Apart needs the mock in its own process (bench/placement.ts).
const PLACEMENT: Placement = LAYOUT === 'process' ? placementFlag() : 'shared'

const specs = generateInstruments(N)
const streams = TRANSPORT === 'stream'
if (RECORD && !streams) throw new Error('--record needs the streams (--transport stream)')
// As `run --record`: a tap on the bot's own public sockets for what it receives, trades and books on
// the recorder process's own sockets (with the mock's address; inline, on extra sockets of the bot's).
const recordDir = RECORD ? mkdtempSync(join(tmpdir(), 'perpbot-ttt-record-')) : undefined
let recorder: RecordingTap | undefined
async function recording(streamUrl: string | undefined): Promise<StreamTap | undefined> {
  if (recordDir === undefined) return undefined
  const tap = startRecordingTap({
    dir: recordDir,
    source: 'record:bench',
    instruments: specs.map(instrumentOfSpec),
    maxBytes: 1e9,
    flushMs: RECORD_FLUSH_S * 1000,
    sockets:
      streamUrl === undefined || RECORD_RECEIVED_ONLY
        ? undefined
        : { url: streamUrl, clock: clockImage(systemClock) },
  })
  recorder = tap
  await tap.ready
  return RECORD_RECEIVED_ONLY
    ? {
        attach: (bot) => {
          tap.attach(bot)
          return []
        },
        frame: (text, at, ch) => tap.frame(text, at, ch),
      }
    : tap
}
/**
 * When the bot read each `tickers::all` frame while measuring (wall ms since the epoch, and the
 * frame's instrument): a tap on the bot's public sockets beside the recording's, if any. It splits
 * each move's latency into the wait until the bot's thread read the move's push, and the rest (from
 * the read to the command at the venue), and tells the venue's ticks (a burst of a frame per
 * instrument) apart. It runs on the measured thread for every ticker frame, so it keeps to a channel
 * compare, a clock read, an `indexOf` and two typed-array writes (a regex and an object per frame
 * were ~1 ms of a tick's read under the profiler, 7 % of it, with the objects kept to the end).
 */
const tickerFrames = createFrameTimes(64 * 1024)
let watchTicks = false
function withTickWatch(inner: StreamTap | undefined): StreamTap {
  return {
    attach: (bot) => inner?.attach(bot) ?? [],
    frame(text, at, ch) {
      if (watchTicks && ch === 'tickers::all')
        tickerFrames.push(performance.timeOrigin + performance.now(), iidOf(text))
      inner?.frame(text, at, ch)
    },
  }
}
/** The number after the first `"iid":` of a frame's text (NaN when there is none). */
function iidOf(text: string): number {
  const from = text.indexOf('"iid":')
  if (from < 0) return Number.NaN
  let n = 0
  let i = from + 6
  for (let c = text.charCodeAt(i); c >= 48 && c <= 57; c = text.charCodeAt(++i)) n = n * 10 + (c - 48)
  return i === from + 6 ? Number.NaN : n
}
/** Read times and instruments in growing typed arrays (no object per frame on the measured thread). */
function createFrameTimes(capacity: number) {
  let at = new Float64Array(capacity)
  let iid = new Float64Array(capacity)
  let length = 0
  return {
    get length() {
      return length
    },
    push(t: number, i: number): void {
      if (length === at.length) {
        const grownAt = new Float64Array(2 * length)
        grownAt.set(at)
        at = grownAt
        const grownIid = new Float64Array(2 * length)
        grownIid.set(iid)
        iid = grownIid
      }
      at[length] = t
      iid[length] = i
      length++
    },
    at: (k: number): number => at[k] ?? Number.NaN,
    iid: (k: number): number => iid[k] ?? Number.NaN,
  }
}
/**
 * When undici made each command request and when it wrote its headers on the socket (wall ms since
 * the epoch), from undici's diagnostics channels: they split a move's time from the read of its push
 * to the command at the venue into the bot's own path (actor, plan, batcher, gate, signing: read →
 * request made), undici's wait to write it (made → written: an idle keep-alive socket is written in
 * the check phase, after the poll phase's other reads), and the wire and the venue's read (written →
 * arrival). A move's request is the first command made after its read (another instrument's command
 * made in between would be taken for it: rare at a few moves a second).
 */
const commandMade: number[] = []
const commandWritten: number[] = []
const isCommand = (m: unknown): boolean => {
  const r = (m as { request?: { method?: string; path?: string } }).request
  return (
    r?.method !== undefined && r.method !== 'GET' && COMMAND_PATHS.some((p) => r.path?.startsWith(p) === true)
  )
}
subscribeChannel('undici:request:create', (m) => {
  if (watchTicks && isCommand(m)) commandMade.push(performance.timeOrigin + performance.now())
})
subscribeChannel('undici:client:sendHeaders', (m) => {
  if (watchTicks && isCommand(m)) commandWritten.push(performance.timeOrigin + performance.now())
})
/** The first time in `times` (ascending) at or after `at`. */
function firstFrom(times: readonly number[], at: number): number | undefined {
  for (const t of times) if (t >= at) return t
  return undefined
}

/** The venue's ticks as the bot read them: runs of at least 100 ticker frames less than 30 ms apart, [first, last]. */
function tickBursts(frames: typeof tickerFrames): [number, number][] {
  const runs: { first: number; last: number; n: number }[] = []
  for (let k = 0; k < frames.length; k++) {
    const at = frames.at(k)
    const run = runs[runs.length - 1]
    if (run !== undefined && at - run.last < 30) {
      run.last = at
      run.n++
    } else runs.push({ first: at, last: at, n: 1 })
  }
  return runs.filter((r) => r.n >= 100).map((r) => [r.first, r.last])
}
/** When the bot read the push of a move of `iid` made at `at`: its first ticker frame of `iid` after `at`. */
function readAt(iid: number, at: number): number | undefined {
  for (let k = 0; k < tickerFrames.length; k++)
    if (tickerFrames.iid(k) === iid && tickerFrames.at(k) >= at) return tickerFrames.at(k)
  return undefined
}

// The bot is told the mock's cap, as an operator sets it to the account's tier.
const overrides = { instruments: indexPegInstruments(specs), 'quoting.accountOpenOrderCap': CAP }

/** The mock, wherever it runs: moves, latencies, totals, stop. */
interface MockSide {
  /** The mock's WebSocket, when the bot streams. */
  streamUrl: string | undefined
  move(iid: number, asset: string, up: boolean): void
  /** Latencies so far and each one's move (instrument, wall ms since the epoch), taken and cleared. */
  /** `venueGcPauses`: the mock's collections (its own process only), wall ms since the epoch. */
  take(): Promise<{
    latencies: number[]
    moves: { iid: number; at: number }[]
    venueGcPauses?: [number, number][]
  }>
  totals(): Promise<ProbeTotals>
  stop(): Promise<void>
}

async function inline(): Promise<{ bot: RunningBot; mock: MockSide }> {
  let probe: ReturnType<typeof createTickToTradeProbe> | undefined
  const run = await startBotOnMock({
    mock: {
      seed: SEED,
      scenario: 'calm',
      clock: SPEED === 1 ? 'real' : 'accelerated',
      speed: SPEED,
      catalogue: { eventCount: 20 },
      exchange: { instruments: specs, accountOpenOrderLimit: CAP },
    },
    overrides,
    streams,
    logLevel: 'warn',
    journal,
    streamTap: streams ? withTickWatch(await recording(undefined)) : undefined,
    onRequest: (req) =>
      probe?.onRequest(req.method !== 'GET' && COMMAND_PATHS.some((p) => req.path.startsWith(p))),
    onExchange: (x) => probe?.onExchange(x),
  })
  for (const s of specs) run.mock.exchange.setRegime(s.baseAsset, 'frozen')
  const p = createTickToTradeProbe(run.mock, run.stream)
  probe = p
  return {
    bot: run.bot,
    mock: {
      streamUrl: run.stream && `ws://127.0.0.1:${run.server.port}${STREAM_PATH}`,
      move: p.move,
      take: async () => ({ latencies: p.take(), moves: p.takeMoves() }),
      totals: async () => p.totals(),
      stop: async () => void (await run.stop('bench over')),
    },
  }
}

async function separate(): Promise<{ bot: RunningBot; mock: MockSide }> {
  const child: ChildProcess = fork(
    fileURLToPath(new URL('./tickToTradeMock.ts', import.meta.url)),
    [
      '--instruments',
      String(N),
      '--seed',
      String(SEED),
      '--streams',
      streams ? '1' : '0',
      '--cap',
      String(CAP),
    ],
    {
      execArgv: ['--import', 'tsx', ...(process.env.TICK_TO_TRADE_MOCK_FLAGS?.split(' ') ?? [])],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  )
  if (PLACEMENT === 'apart' && child.pid !== undefined) placeVenue(child.pid)
  const waiters: ((m: MockReplyMessage) => boolean)[] = []
  child.on('message', (m: MockReplyMessage) => {
    const i = waiters.findIndex((w) => w(m))
    if (i >= 0) waiters.splice(i, 1)
  })
  const ask = <T extends MockReplyMessage['type']>(
    type: T,
    request?: MockRequestMessage,
  ): Promise<Extract<MockReplyMessage, { type: T }>> =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`the mock process did not answer '${type}'`)), 60_000)
      waiters.push((m) => {
        if (m.type !== type) return false
        clearTimeout(timer)
        resolve(m as Extract<MockReplyMessage, { type: T }>)
        return true
      })
      if (request !== undefined) child.send(request)
    })
  child.once('exit', (code) => {
    if (code !== 0) console.error(`the mock process exited with ${code}`)
  })
  const ready = await ask('ready')
  try {
    const { bot } = await startBotAgainst({
      perpsUrl: ready.url,
      streamUrl: ready.streamUrl,
      clock: systemClock,
      overrides,
      logLevel: 'warn',
      journal,
      streamTap: streams ? withTickWatch(await recording(ready.streamUrl)) : undefined,
    })
    return {
      bot,
      mock: {
        streamUrl: ready.streamUrl,
        move: (iid, asset, up) =>
          void child.send({ type: 'move', iid, asset, up } satisfies MockRequestMessage),
        take: async () => {
          const { latencies, moves, gcPauses } = await ask('latencies', { type: 'take' })
          return { latencies, moves, venueGcPauses: gcPauses }
        },
        totals: async () => {
          const { type: _, ...totals } = await ask('totals', { type: 'totals' })
          return totals
        },
        stop: async () => {
          await bot.stop('bench over')
          await ask('stopped', { type: 'stop' })
        },
      },
    }
  } catch (e) {
    child.kill()
    throw e
  }
}

const { bot, mock } = LAYOUT === 'process' ? await separate() : await inline()

const ageSamples: number[] = []
const staleHalted = new Set<string>()
/**
 * The probe, every second: halts for stale data from each instrument's state (`instrumentStates`, the
 * cheap read), and every `--ages-every-s` seconds the index each actor holds from the whole status.
 * That read builds the status of every instrument on the bot's thread (at 1,000 instruments several ms,
 * and 12 % of the window's allocation when it was read every second): the probe's cost, not the
 * bot's, so at 500 instruments and more it is read every 5 s, not to be what a move waits behind.
 */
const AGES_EVERY = numberFlag('ages-every-s', N >= 500 ? 5 : 1)
let samples = 0
function sample(): void {
  for (const i of bot.instrumentStates())
    if (i.state.startsWith('halted') && /stale/.test(i.reason ?? '')) staleHalted.add(i.symbol)
  if (samples++ % AGES_EVERY !== 0) return
  for (const i of bot.status().instruments) {
    const age = i.details?.indexAgeMs
    if (typeof age === 'number') ageSamples.push(age)
  }
}
const quoting = (): number => bot.status().instruments.filter((i) => i.state.startsWith('active')).length

/** True when the limiter has its action budget back (nothing queued, at most half of it spent). */
function limiterRested(): boolean {
  const { request, action } = bot.status().limiter.budgets
  if (request === undefined || action === undefined) return true
  return request.queued === 0 && action.queued === 0 && action.used <= action.capacity / 2
}

// Warm-up: every instrument quoting (and, with streams, the start-up orders out of the limiter's
// window) before anything is measured.
const warmStart = performance.now()
while (performance.now() - warmStart < WARMUP_S * 1000) await sleepMs(250)
while (
  streams &&
  performance.now() - warmStart < WARMUP_MAX_S * 1000 &&
  (quoting() < N || !limiterRested())
) {
  await sleepMs(250)
}
const warmedS = (performance.now() - warmStart) / 1000
// The bot's threads are all started now: its event loop gets its CPUs, the rest idle priority.
const idleThreads = PLACEMENT === 'apart' ? placeEventLoop(process.pid) : undefined
const quotingAtStart = quoting()
const budgetsAtStart = bot.status().limiter.budgets
const queuedAtStart = (budgetsAtStart.request?.queued ?? 0) + (budgetsAtStart.action?.queued ?? 0)
await mock.take()

// The bot's own CPU and collections over the measured window (with `--layout process` this process is
// the bot and the bench's probe; the mock runs in its own).
const gcKinds = { scavenges: 0, full: 0 }
/** Each collection's pause on the bot's thread (wall ms since the epoch), to tell which slow moves waited behind one. */
const gcPauses: [number, number][] = []
const gcObserver = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const from = performance.timeOrigin + e.startTime
    gcPauses.push([from, from + e.duration])
    const detail: unknown = 'detail' in e ? e.detail : undefined
    const kind = typeof detail === 'object' && detail !== null && 'kind' in detail ? detail.kind : undefined
    if (kind === constants.NODE_PERFORMANCE_GC_MINOR) gcKinds.scavenges++
    else if (kind === constants.NODE_PERFORMANCE_GC_MAJOR) gcKinds.full++
  }
})
gcObserver.observe({ entryTypes: ['gc'] })
// Bytes allocated in the window: the young and old heap grown between collections (V8's GC profiler
// reports the used heap before and after each one), plus what the last collection left to grow.
const gcProfiler = new GCProfiler()
gcProfiler.start()
const heapAtStart = process.memoryUsage().heapUsed
// `TICK_TO_TRADE_PROFILE=<dir>`: a CPU profile and an allocation profile of the measured window.
const profileDir = process.env.TICK_TO_TRADE_PROFILE
const windowProfile =
  profileDir === undefined
    ? undefined
    : await startWindowProfile(
        profileDir,
        `ttt-${TRANSPORT}-${N}${JOURNAL ? '-journal' : ''}${RECORD ? '-record' : ''}`,
      )
// How long the bot's thread was held at a time: the event loop's delay over the window (1 ms bins).
const loopDelay = monitorEventLoopDelay({ resolution: 1 })
loopDelay.enable()
const cpuAtStart = process.cpuUsage()
const startedWall = performance.now()
watchTicks = true
const startTotals = await mock.totals()
let next = 0
let moves = 0
let lastSample = performance.now()
/** The probe's reads (ms each), and how many still ran past the next move's time. */
const PROBE_CLEARANCE_MS = 60
const probeReads: number[] = []
let probeOverran = 0
while (moves < MOVES.count) {
  const spec = specs[next % specs.length]
  if (spec === undefined) break
  const up = Math.floor(next / specs.length) % 2 === 0
  next += 1
  mock.move(spec.id, spec.baseAsset, up)
  moves += 1
  // The probe reads the bot's state halfway between two moves, and only when that leaves at least
  // PROBE_CLEARANCE_MS before the next one (at 1,000 instruments a status read holds the bot's thread
  // for 10-45 ms on this machine: the probe's cost, never what a move should wait behind).
  const gap = MOVES.nextGapMs()
  await sleepMs(gap / 2)
  if (performance.now() - lastSample >= 1000 && gap / 2 >= PROBE_CLEARANCE_MS) {
    const t = performance.now()
    sample()
    lastSample = performance.now()
    probeReads.push(lastSample - t)
    if (lastSample - t > gap / 2) probeOverran++
  }
  await sleepMs(gap / 2)
}
const wallS = (performance.now() - startedWall) / 1000
watchTicks = false
const windowCpu = process.cpuUsage(cpuAtStart)
loopDelay.disable()
const loopMs = (ns: number): string => (ns / 1e6).toFixed(1)
const probeMs = distribution(probeReads)
const loopDelayText = `loop delay p99 ${loopMs(loopDelay.percentile(99))} / max ${loopMs(loopDelay.max)} ms · the probe's ${probeReads.length} reads of the bot's state p50 ${probeMs.p50.toFixed(1)} / max ${probeMs.max.toFixed(1)} ms, ${probeOverran} past the next move`
const cpuMsPerS = (windowCpu.user + windowCpu.system) / 1000 / wallS
const allocatedMbPerS = allocatedBytes(gcProfiler.stop()?.statistics ?? []) / 1024 / 1024 / wallS
const profiles = await windowProfile?.stop()

/** Sum of heap growth between collections in the window (each collection's before − the previous after). */
function allocatedBytes(
  stats: readonly {
    beforeGC: { heapStatistics: { usedHeapSize: number } }
    afterGC: { heapStatistics: { usedHeapSize: number } }
  }[],
): number {
  let from = heapAtStart
  let total = 0
  for (const s of stats) {
    total += Math.max(0, s.beforeGC.heapStatistics.usedHeapSize - from)
    from = s.afterGC.heapStatistics.usedHeapSize
  }
  return total + Math.max(0, process.memoryUsage().heapUsed - from)
}
await sleepMs(50) // the last collections' entries arrive on a later turn
gcObserver.disconnect()
const endTotals = await mock.totals()
const { latencies, moves: measured, venueGcPauses = [] } = await mock.take()
const virtualMin = (endTotals.now - startTotals.now) / 60_000
const marketPerMin = (endTotals.marketWeight - startTotals.marketWeight) / virtualMin
const budget = 1000
const { rss, heapUsed } = process.memoryUsage()
// Peak rss of the bot's process over the whole run, and (with --expose-gc) what is left after a full
// collection: the live data, and the rss V8 still holds for the garbage it collected.
const peakRss = process.resourceUsage().maxRSS * 1024
const gc = (globalThis as { gc?: () => void }).gc
gc?.()
const afterGc = gc ? process.memoryUsage() : undefined
// Where the rss goes: V8's spaces (committed), what lives outside the heap (buffers, SQLite, WebAssembly).
const spaces = getHeapSpaceStatistics()
  .filter((s) => s.physical_space_size > 1024 * 1024)
  .map((s) => `${s.space_name.replace('_space', '')} ${mb(s.physical_space_size)}`)
  .join(', ')
const memory = afterGc ?? process.memoryUsage()
const rssParts = `heap committed ${mb(memory.heapTotal)} (${spaces}), external ${mb(memory.external)} (array buffers ${mb(memory.arrayBuffers)})`
const quotingAtEnd = quoting()
const recorded = await recorder?.stop()
if (recordDir !== undefined) rmSync(recordDir, { recursive: true, force: true })
await mock.stop()
const journalStats = await journal?.close('bench over')
if (journalDir !== undefined) rmSync(journalDir, { recursive: true, force: true })

const lat = distribution(latencies)
// Each move's latency split at the bot's read of its push, and the moves made while the bot was
// reading a venue tick (from its first frame to its last) against the rest.
const bursts = tickBursts(tickerFrames)
const readWait = measured.map(({ iid, at }) => {
  const read = readAt(iid, at)
  return read === undefined ? Number.NaN : read - at
})
const afterRead = latencies.map((l, i) => l - (readWait[i] ?? Number.NaN)).filter(Number.isFinite)
const inTick = measured.map(({ at }) => bursts.some(([first, last]) => at >= first && at <= last))
const duringTick = latencies.filter((_, i) => inTick[i] === true)
const otherMoves = latencies.filter((_, i) => inTick[i] !== true)
const burstMs = distribution(bursts.map(([first, last]) => last - first))
// The slow moves (over the target) during which the bot's thread was paused by a collection, and those pauses' share of them.
const slow = measured.map((m, i) => ({ ...m, ms: latencies[i] ?? 0 })).filter((m) => m.ms > TARGET_P99_MS)
const slowGc = slow.map((m) => pausedMs(gcPauses, m.at, m.at + m.ms))
const slowVenueGc = slow.map((m) => pausedMs(venueGcPauses, m.at, m.at + m.ms))
const gcText =
  ` · of the ${slow.length} moves over ${TARGET_P99_MS} ms, ${slowGc.filter((g) => g > 0).length} overlapped a collection (${slowGc.reduce((a, b) => a + b, 0).toFixed(1)} of their ${slow.reduce((a, m) => a + m.ms, 0).toFixed(1)} ms in GC pauses)` +
  (LAYOUT === 'process'
    ? `, ${slowVenueGc.filter((g) => g > 0).length} one of the venue's (${slowVenueGc.reduce((a, b) => a + b, 0).toFixed(1)} ms)`
    : '')
const d2 = (d: { p50: number; p99: number; max: number }): string =>
  `p50 ${d.p50.toFixed(2)} / p99 ${d.p99.toFixed(2)} / max ${d.max.toFixed(2)} ms`
// The read → command time in three parts (see commandMade): the bot's path, undici's wait, the wire.
const phases = measured.map(({ iid, at }, i) => {
  const read = readAt(iid, at)
  const made = read === undefined ? undefined : firstFrom(commandMade, read)
  const written = made === undefined ? undefined : firstFrom(commandWritten, made)
  const arrived = at + (latencies[i] ?? Number.NaN)
  if (read === undefined || made === undefined || written === undefined || written > arrived) return undefined
  return { bot: made - read, undici: written - made, wire: arrived - written, read, made, written }
})
// The moves with their wall times (the read, the request made and written, as in `phases`), for
// bench/slowMoves.ts to cut the profiles at: into the profile directory, or `TICK_TO_TRADE_MOVES=<file>`
// without profiling (the profilers' threads take CPU the moves would have had).
const movesFile =
  profileDir === undefined
    ? process.env.TICK_TO_TRADE_MOVES
    : join(profileDir, `ttt-${TRANSPORT}-${N}-moves.json`)
if (movesFile !== undefined)
  writeFileSync(
    movesFile,
    JSON.stringify({
      // wall ms since the epoch − the monotonic clock's ms (a CPU profile's timestamps, in µs)
      monotonicToWallMs: performance.timeOrigin + performance.now() - Number(process.hrtime.bigint()) / 1e6,
      moves: measured.map((m, i) => ({
        ...m,
        ms: latencies[i],
        readWait: readWait[i],
        read: phases[i]?.read,
        made: phases[i]?.made,
        written: phases[i]?.written,
      })),
      gcPauses,
      venueGcPauses,
      bursts,
    }),
  )
const phaseText = (k: 'bot' | 'undici' | 'wire'): string =>
  d2(distribution(phases.flatMap((p) => (p === undefined ? [] : [p[k]]))))
const phaseSplit = phases.some((p) => p !== undefined)
  ? ` · from the read to the command (${phases.filter((p) => p !== undefined).length} moves): the bot's path to the request ${phaseText('bot')}, undici's wait to write it ${phaseText('undici')}, the wire and the venue's read ${phaseText('wire')}`
  : ''
const tickSplit =
  streams && SPEED === 1 && tickerFrames.length > 0
    ? ` · of each move: until the bot read its push ${d2(distribution(readWait.filter(Number.isFinite)))}, from the read to the command ${d2(distribution(afterRead))}` +
      ` · the venue's ticks took the bot p50 ${burstMs.p50.toFixed(1)} / max ${burstMs.max.toFixed(1)} ms to read (first to last ticker frame, ${bursts.length} ticks); moves made while it read one: ${duringTick.length}${duringTick.length > 0 ? ` (${d2(distribution(duringTick))})` : ''}, the others ${d2(distribution(otherMoves))}`
    : ''
const age = distribution(ageSamples)
const publish = distribution(endTotals.publishMs)
const latency =
  SPEED === 1
    ? `${latencyText(lat, moves)}, ${overTarget(latencies)} over ${TARGET_P99_MS} ms`
    : 'not measured (accelerated)'
console.log(
  `tick-to-trade ${TRANSPORT.padEnd(6)} ${String(N).padStart(5)} instruments${JOURNAL ? ', journal on' : ''}${RECORD ? ', recording on' : ''}: ${latency}` +
    (SPEED === 1 && streams ? ` (the mock's push tick p50 ${publish.p50.toFixed(2)} ms)` : '') +
    tickSplit +
    phaseSplit +
    gcText +
    ` · bot CPU ${cpuMsPerS.toFixed(0)} ms/s, allocating ${allocatedMbPerS.toFixed(1)} MiB/s, ${gcKinds.scavenges} scavenges and ${gcKinds.full} full GCs in ${wallS.toFixed(0)} s, ${loopDelayText}` +
    ` · index age p50 ${(age.p50 / 1000).toFixed(2)} / p99 ${(age.p99 / 1000).toFixed(2)} s` +
    ` · market data ${marketPerMin.toFixed(0)} weight/min (${((100 * marketPerMin) / budget).toFixed(1)} % of ${budget})` +
    ` · stale halts ${staleHalted.size} · quoting ${quotingAtStart}→${quotingAtEnd}/${N}` +
    ` · rss ${mb(rss)} (peak ${mb(peakRss)}; heap growth ${HEAP.growthPercent === undefined ? "V8's default" : `${HEAP.growthPercent} %`}), heap ${mb(heapUsed)}` +
    (afterGc ? ` (after a full GC: rss ${mb(afterGc.rss)}, heap ${mb(afterGc.heapUsed)})` : '') +
    ` · ${rssParts}` +
    ` (${LAYOUT === 'process' ? 'bot alone; mock in its own process' : 'bot and mock in one process'}; ${placementText(PLACEMENT, idleThreads)})` +
    (journalStats
      ? ` · journal ${journalStats.written} rows in ${journalStats.batches} batches (${journalStats.droppedTotal} dropped)`
      : '') +
    (recorded
      ? ` · recorded ${recorded.rows} rows (${mb(recorded.bytes)} on disk, flushed every ${RECORD_FLUSH_S} s)`
      : '') +
    (profiles ? ` · window profiles ${profiles.join(', ')}` : '') +
    ` · warm-up ${warmedS.toFixed(0)} s (then ${queuedAtStart} limiter jobs queued) · ${virtualMin.toFixed(1)} virtual min in ${wallS.toFixed(0)} s`,
)
emitResult({
  bench: 'tickToTrade',
  transport: TRANSPORT,
  instruments: N,
  heapGrowthPercent: HEAP.growthPercent ?? null,
  layout: LAYOUT,
  placement: PLACEMENT,
  journal: JOURNAL,
  journalRows: journalStats?.written,
  record: RECORD,
  recordedRows: recorded?.rows,
  speed: SPEED,
  latency: SPEED === 1 ? lat : undefined,
  overTargetMoves: SPEED === 1 ? overTarget(latencies) : undefined,
  tickReadMs: bursts.length > 0 ? burstMs : undefined,
  untilReadMs: tickerFrames.length > 0 ? distribution(readWait.filter(Number.isFinite)) : undefined,
  afterReadMs: tickerFrames.length > 0 ? distribution(afterRead) : undefined,
  duringTick: duringTick.length > 0 ? distribution(duringTick) : undefined,
  otherMoves: otherMoves.length > 0 ? distribution(otherMoves) : undefined,
  mockPublishMs: publish,
  moves,
  indexAgeMs: age,
  marketWeightPerMinute: marketPerMin,
  staleHalts: staleHalted.size,
  quoting: { start: quotingAtStart, end: quotingAtEnd },
  rss,
  peakRss,
  heapUsed,
  heapAfterGc: afterGc?.heapUsed,
  warmupSeconds: warmedS,
  cpuMsPerS,
  allocatedMbPerS,
  loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
  loopDelayMaxMs: loopDelay.max / 1e6,
  scavenges: gcKinds.scavenges,
  fullGcs: gcKinds.full,
  limiterQueuedAtStart: queuedAtStart,
  virtualMinutes: virtualMin,
})
// At 1,000 instruments with the journal on the process was seen to stay alive after its result, until
// the runner's timeout: name what holds it, then end (the figures are out; a hang only costs the run).
setTimeout(() => {
  console.error(
    `tick-to-trade: still running 5 s after its result (${process.getActiveResourcesInfo().join(', ')}); exiting`,
  )
  process.exit(0)
}, 5_000).unref()
