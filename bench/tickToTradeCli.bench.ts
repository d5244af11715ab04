/**
 * Tick-to-trade as a venue sees it (issue 36): the bot is the real command line, `perpbot run --live`
 * from the compiled build (bin/perpbot.js) in a process of its own, with everything `run` brings (its
 * journal, heap policy, ops server and dashboard timeline, logging to a pipe, dead-man switch,
 * optionally `--record`), against the mock in another process (bench/tickToTradeMock.ts) over
 * loopback HTTP and WebSocket. The mock's prices are frozen; the bench moves one instrument's index
 * at a time, round robin, and the mock times, on its own clock, from the price change (the change push
 * written) to the arrival of the first signed command carrying an order of that instrument: what an
 * independent venue can measure. The bench process only steers (IPC to the mock, /status of the bot).
 *
 *   node --import tsx bench/tickToTradeCli.bench.ts [--instruments 2] [--seconds 30 | --moves N]
 *        [--moves-per-second 4] [--warmup 8] [--no-journal] [--record] [--seed 3]
 *        [--placement apart|shared]   (bench/placement.ts; apart by default where it applies)
 *
 * The bot runs with the image's node options (src/cli/productionNodeOptions.ts); more node flags for
 * it in `TICK_TO_TRADE_BOT_FLAGS` (e.g. `--cpu-prof --cpu-prof-dir=/tmp/p`).
 * Needs a build (`npm run build`). Prints a summary line naming `tick-to-trade venue-view` and a
 * `BENCH_RESULT` line with the bot process's CPU seconds and rss (end and peak, from /proc).
 */
import { type ChildProcess, fork, spawn } from 'node:child_process'
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { performance } from 'node:perf_hooks'
import { fileURLToPath } from 'node:url'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { PRODUCTION_NODE_OPTIONS } from '../src/cli/productionNodeOptions.ts'
import { systemClock } from '../src/clock.ts'
import { generateInstruments } from '../src/mock/perps/instruments.ts'
import { createPerpsClient } from '../src/perps/client/createPerpsClient.ts'
import { CommandSigner } from '../src/perps/signing/commandSigner.ts'
import { perpsDomainFromExchangeInfo } from '../src/perps/signing/domain.ts'
import { SaltSource } from '../src/perps/signing/salt.ts'
import { seededRandom } from '../src/random.ts'
import { indexPegInstruments } from '../src/sim/generatedInstruments.ts'
import { placeEventLoop, placementFlag, placementText, placeVenue } from './placement.ts'
import { distribution, emitResult, exitWithHelpOnRequest, mb, numberFlag, sleepMs } from './stats.ts'
import type { MockReplyMessage, MockRequestMessage } from './tickToTradeMock.ts'
import { latencyText, moveSchedule, overTarget, TARGET_P99_MS } from './tickToTradeMoves.ts'
import { openOrderCap } from './tickToTradeProbe.ts'

exitWithHelpOnRequest(import.meta.url)

const ROOT = resolve(import.meta.dirname, '..')
const N = numberFlag('instruments', 2)
const WARMUP_S = numberFlag('warmup', 8)
const WARMUP_MAX_S = numberFlag('warmup-max', 4 * WARMUP_S + 60)
const SEED = numberFlag('seed', 3)
const MOVES = moveSchedule({ seconds: 30, seed: SEED })
const JOURNAL = !process.argv.includes('--no-journal')
const RECORD = process.argv.includes('--record')
const CAP = numberFlag('open-order-cap', openOrderCap(N))
const TICK_S = 100 // USER_HZ: /proc's CPU ticks

const specs = generateInstruments(N)
const dir = mkdtempSync(join(tmpdir(), 'perpbot-ttt-cli-'))

const PLACEMENT = placementFlag()

// ---- the venue: the mock in its own process, steered over IPC ----
const mockChild: ChildProcess = fork(
  fileURLToPath(new URL('./tickToTradeMock.ts', import.meta.url)),
  ['--instruments', String(N), '--seed', String(SEED), '--streams', '1', '--cap', String(CAP)],
  { execArgv: ['--import', 'tsx'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
)
if (PLACEMENT === 'apart' && mockChild.pid !== undefined) placeVenue(mockChild.pid)
const waiters: ((m: MockReplyMessage) => boolean)[] = []
mockChild.on('message', (m: MockReplyMessage) => {
  const i = waiters.findIndex((w) => w(m))
  if (i >= 0) waiters.splice(i, 1)
})
function ask<T extends MockReplyMessage['type']>(
  type: T,
  request?: MockRequestMessage,
): Promise<Extract<MockReplyMessage, { type: T }>> {
  return new Promise((ok, fail) => {
    const timer = setTimeout(() => fail(new Error(`the mock process did not answer '${type}'`)), 120_000)
    waiters.push((m) => {
      if (m.type !== type) return false
      clearTimeout(timer)
      ok(m as Extract<MockReplyMessage, { type: T }>)
      return true
    })
    if (request !== undefined) mockChild.send(request)
  })
}
const ready = await ask('ready')
if (ready.streamUrl === undefined) throw new Error('the mock serves no stream')

// ---- the operator's proxy, registered at the venue ----
const pub = createPerpsClient({ baseUrl: ready.url, clock: systemClock, random: seededRandom(1) })
const domain = perpsDomainFromExchangeInfo(await pub.getExchange())
const owner = new CommandSigner({
  privateKey: generatePrivateKey(),
  clock: systemClock,
  salts: new SaltSource(seededRandom(2)),
  domain,
})
const proxyKey = generatePrivateKey()
const { credentials } = await pub.createProxy(
  { proxy: privateKeyToAccount(proxyKey).address, expiry: Date.now() + 86_400_000, label: 'tick-to-trade' },
  { owner },
)
await pub.close()

// ---- the bot: perpbot run --live, compiled, in its own process ----
const opsPort = await new Promise<number>((ok, fail) => {
  const srv = createServer()
  srv.once('error', fail)
  srv.listen(0, '127.0.0.1', () => {
    const a = srv.address()
    srv.close(() => (typeof a === 'object' && a !== null ? ok(a.port) : fail(new Error('no port'))))
  })
})
const overlay = join(dir, 'live.json')
writeFileSync(
  overlay,
  JSON.stringify({
    ...JSON.parse(readFileSync(join(ROOT, 'config', 'live.json'), 'utf8')),
    instruments: indexPegInstruments(specs),
    quoting: { accountOpenOrderCap: CAP },
    ops: { stateDir: join(dir, 'state'), port: opsPort, exitPolicy: 'cancel-all' },
    journal: { enabled: JOURNAL },
  }),
)
const bot = spawn(
  process.execPath,
  [
    // The image's node options (production), then any the caller adds.
    ...PRODUCTION_NODE_OPTIONS,
    ...(process.env.TICK_TO_TRADE_BOT_FLAGS?.split(' ').filter((f) => f !== '') ?? []),
    join(ROOT, 'bin', 'perpbot.js'),
    'run',
    '--live',
    '--config',
    overlay,
    ...(RECORD ? ['--record', join(dir, 'rec')] : []),
  ],
  {
    cwd: ROOT,
    env: {
      PATH: process.env.PATH ?? '',
      PERPS_URL: ready.url,
      PERPS_WS_URL: ready.streamUrl,
      CATALOGUE_URL: ready.url,
      PERPS_PROXY_PRIVATE_KEY: proxyKey,
      PERPS_PROXY_SECRET: credentials.secret,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  },
)
let lastLines = ''
// TICK_TO_TRADE_BOT_LOG=<file>: everything the bot writes (its log, node's --trace-gc) kept there too.
const botLog = process.env.TICK_TO_TRADE_BOT_LOG
for (const s of [bot.stdout, bot.stderr]) {
  s?.setEncoding('utf8')
  // Drained as a log collector would; the last lines kept to say why a start failed.
  s?.on('data', (d: string) => {
    lastLines = (lastLines + d).slice(-2000)
    if (botLog !== undefined) appendFileSync(botLog, d)
  })
}
let botExited = false
const botExit = new Promise<number | null>((ok) =>
  bot.once('exit', (code) => {
    botExited = true
    ok(code)
  }),
)

interface StatusView {
  instruments: { state: string }[]
  limiter: { budgets: Record<string, { queued: number; used: number; capacity: number } | undefined> }
}
async function status(): Promise<StatusView | undefined> {
  try {
    const r = await fetch(`http://127.0.0.1:${opsPort}/status`, { signal: AbortSignal.timeout(2000) })
    return r.ok ? ((await r.json()) as StatusView) : undefined
  } catch {
    return undefined
  }
}
const quoting = (s: StatusView | undefined): number =>
  s?.instruments.filter((i) => i.state.startsWith('active')).length ?? 0
const rested = (s: StatusView | undefined): boolean => {
  const { request, action } = s?.limiter.budgets ?? {}
  if (request === undefined || action === undefined) return s !== undefined
  return request.queued === 0 && action.queued === 0 && action.used <= action.capacity / 2
}
/** The bot process's CPU seconds (all threads), rss and peak rss, from /proc. */
function botProc(): { cpuS: number; rss: number; peakRss: number } {
  const stat = readFileSync(`/proc/${bot.pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
  const st = readFileSync(`/proc/${bot.pid}/status`, 'utf8')
  const kb = (k: string): number => Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(st)?.[1] ?? 0) * 1024
  return { cpuS: (Number(stat[11]) + Number(stat[12])) / TICK_S, rss: kb('VmRSS'), peakRss: kb('VmHWM') }
}

try {
  const warmStart = performance.now()
  let s: StatusView | undefined
  for (;;) {
    await sleepMs(250)
    if (botExited) throw new Error(`the bot exited during its start:\n${lastLines}`)
    const elapsed = (performance.now() - warmStart) / 1000
    if (elapsed < WARMUP_S) continue
    s = await status()
    if ((quoting(s) >= N && rested(s)) || elapsed > WARMUP_MAX_S) break
  }
  const warmedS = (performance.now() - warmStart) / 1000
  // The bot's threads are all started now: its event loop gets its CPUs, the rest idle priority.
  const idle = PLACEMENT === 'apart' && bot.pid !== undefined ? placeEventLoop(bot.pid) : undefined
  const quotingAtStart = quoting(s)
  await ask('latencies', { type: 'take' })
  const cpu0 = botProc().cpuS
  const t0 = performance.now()
  let next = 0
  let moves = 0
  while (moves < MOVES.count) {
    const spec = specs[next % specs.length]
    if (spec === undefined) break
    const up = Math.floor(next / specs.length) % 2 === 0
    next += 1
    mockChild.send({ type: 'move', iid: spec.id, asset: spec.baseAsset, up } satisfies MockRequestMessage)
    moves += 1
    await sleepMs(MOVES.nextGapMs())
  }
  await sleepMs(500) // the last move's command
  const wallS = (performance.now() - t0) / 1000
  const proc = botProc()
  // TICK_TO_TRADE_SMAPS=<file>: the bot's memory map at the end (where its rss lives, by mapping).
  if (process.env.TICK_TO_TRADE_SMAPS)
    writeFileSync(process.env.TICK_TO_TRADE_SMAPS, readFileSync(`/proc/${bot.pid}/smaps`))
  const latencies = (await ask('latencies', { type: 'take' })).latencies
  const quotingAtEnd = quoting(await status())
  const lat = distribution(latencies)
  const cpuPerS = (proc.cpuS - cpu0) / wallS
  console.log(
    `tick-to-trade venue-view ${String(N).padStart(5)} instruments${JOURNAL ? ', journal on' : ', journal off'}${RECORD ? ', recording on' : ''}: ` +
      `${latencyText(lat, moves)}, ${overTarget(latencies)} over ${TARGET_P99_MS} ms (price change at the venue → order command there)` +
      ` · bot process ${cpuPerS.toFixed(2)} CPU-s per s while measured · rss ${mb(proc.rss)} (peak ${mb(proc.peakRss)})` +
      ` · quoting ${quotingAtStart}→${quotingAtEnd}/${N} · warm-up ${warmedS.toFixed(0)} s · ${placementText(PLACEMENT, idle)}`,
  )
  emitResult({
    bench: 'tickToTradeCli',
    instruments: N,
    placement: PLACEMENT,
    journal: JOURNAL,
    record: RECORD,
    latency: lat,
    overTargetMoves: overTarget(latencies),
    moves,
    botCpuPerSecond: cpuPerS,
    rss: proc.rss,
    peakRss: proc.peakRss,
    quoting: { start: quotingAtStart, end: quotingAtEnd },
    warmupSeconds: warmedS,
  })
} finally {
  if (!botExited) bot.kill('SIGTERM')
  await Promise.race([botExit, sleepMs(20_000)])
  if (!botExited) bot.kill('SIGKILL')
  await ask('stopped', { type: 'stop' }).catch(() => mockChild.kill())
  rmSync(dir, { recursive: true, force: true })
}
