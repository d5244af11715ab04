/**
 * Soak: the real bot against the real mock for a bounded virtual duration, in one of two engines
 * (bench/soakEngines.ts):
 *
 * - `--engine stepped` (default; 24 virtual hours, 20 instruments): bot and mock in one process on the
 *   stepped virtual clock of `perpbot simulate` (src/sim/simulate/steppedAssembly.ts), as fast as the
 *   machine allows. Streams are off: the in-process transport carries no WebSocket, every input polls.
 *   The ops server is probed over 127.0.0.1 while the clock stands still; webhook payloads come from
 *   the real webhook sink through an in-process poster.
 * - `--engine wire` (5 virtual hours at speed 10): the loopback run of src/sim/botOnMock.ts over HTTP
 *   and WebSocket on 127.0.0.1 on the mock's accelerated clock (faster speeds expire signed commands'
 *   4 s `exp` under load).
 *
 *   npm run soak -- [--engine stepped|wire] [--hours H | --minutes M] [--instruments 20] [--seed 7]
 *                   [--scenario NAME] [--speed 10] [--report-every S] [--sample-every-min M]
 *                   [--max-real-seconds S] [--no-docs] [--help]
 *
 * Both share everything else. By default the mock's scenario follows the script of
 * bench/soakPhases.ts: calm → trending → crash (the `liquidation` scenario, one episode per hour of
 * the phase) → recovery (calm), a quarter each, switched when the virtual time passes each step; at
 * the recovery the account's collateral is topped up to what it started with (an operator's deposit);
 * `--scenario NAME` keeps one scenario throughout instead. The checks, each printed PASS/FAIL with its
 * figure (exit 1 on any FAIL): the run finished (a wall-time cap or SIGINT is a FAIL "did not
 * finish"), no crash, no unhandled rejection, no self-caused 429, no actor died, no signed command sent
 * twice, the venue books the bot's orders again after the top-up, memory flat (heap after GC), alert
 * episodes (every alert raised and resolved once per episode; each crash episode raises its
 * margin/liquidation alert and it is resolved by the end), the bot's open orders and positions equal
 * the mock's at the end, and the secrets scan (bench/secretsScan.ts) over every log line, alert,
 * webhook payload, /status, /metrics and dashboard payload finds nothing. Unless `--no-docs`, the
 * figures replace the soak regions of docs/reliability.md and docs/benchmarks.md.
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { compareDecimal, subDecimal } from '../src/decimal.ts'
import { generateInstruments } from '../src/mock/perps/instruments.ts'
import { indexPegInstruments } from '../src/sim/generatedInstruments.ts'
import { AlertEpisodes, type EpisodeCounts } from './alertEpisodes.ts'
import { type Check, loadNow, loadSpan, machineLine, printChecks, utcStamp } from './docRegions.ts'
import { probeOps } from './opsProbe.ts'
import { formatScan, SecretsScanner } from './secretsScan.ts'
import { compareViews, crashEpisodes, writeSoakDocs } from './soakChecks.ts'
import { startSoakEngine } from './soakEngines.ts'
import { parseSoakFlags } from './soakFlags.ts'
import { dueSteps, intervalGate, type SoakStep, soakSteps } from './soakPhases.ts'
import { LogTap, StateTap, WireTap } from './soakTaps.ts'
import { mb } from './stats.ts'

/** The machine's load as the run starts (the docs say it beside the figures). */
const LOAD0 = loadNow()

const {
  ENGINE,
  STEPPED,
  MINUTES,
  SPEED,
  SCENARIO,
  SEED,
  REPORT_EVERY_S,
  INSTRUMENTS,
  WRITE_DOCS,
  virtualMs,
  SAMPLE_EVERY_MS,
  MAX_REAL_S,
  FLAGS,
} = parseSoakFlags()
/** Stepped engine: instrument states sampled every this many virtual ms (the wire engine: every 250 ms wall). */
const STATE_SAMPLE_MS = 2_500
/** Memory flat: heap after GC at the end may exceed the warm-up figure by at most this much. */
const HEAP_GROWTH_BOUND = { bytes: 16 * 1024 * 1024, share: 0.25 }

// Counted, not fatal: the soak reports them instead of dying on the first one.
const processFaults = { unhandledRejections: 0, uncaughtExceptions: 0, last: '' }
process.on('unhandledRejection', (e) => {
  processFaults.unhandledRejections += 1
  processFaults.last = String(e).slice(0, 300)
})
process.on('uncaughtException', (e) => {
  processFaults.uncaughtExceptions += 1
  processFaults.last = String(e).slice(0, 300)
})

const KEEP_LOG_LINES = 30

// ---------------------------------------------------------------------------------------------------
// Assembly (after test/integration/harness.ts)

const generated = INSTRUMENTS > 0 ? generateInstruments(INSTRUMENTS) : undefined

let virtualNow = (): number => 0
const wire = new WireTap(() => virtualNow())
// The secrets scan sees every log line as it streams by; nothing is kept but the scanner's tail.
const scanner = new SecretsScanner()
const logs = new LogTap(scanner, KEEP_LOG_LINES)
const overrides: Record<string, unknown> = {}
// As in the integration test: on the wire, fault holds run on wall time while the bot's clock is
// accelerated, so a short request timeout keeps a held read from looking like minutes of stale data.
if (SCENARIO === 'flaky' && !STEPPED) overrides['perps.requestTimeoutMs'] = 2_000
if (generated) overrides.instruments = indexPegInstruments(generated)
// Every alert goes to a fake webhook whose URL carries a token: one more secret for the scan to look
// for, and the payloads are scanned too.
overrides['alerts.webhook.minSeverity'] = 'info'
const webhookToken = `whk${Buffer.from(`soak-${SEED}-${Date.now()}`).toString('hex')}`
const episodes = new AlertEpisodes()
let alertCount = 0
const steps: SoakStep[] =
  SCENARIO === undefined ? soakSteps(virtualMs) : [{ at: 0, phase: 'calm', scenario: 'calm' }]
const engine = await startSoakEngine(ENGINE, {
  seed: SEED,
  scenario: SCENARIO ?? steps[0]?.scenario ?? 'calm',
  speed: SPEED,
  instruments: generated,
  overrides,
  webhookToken,
  onExchange: wire.onExchange,
  onLogLine: logs.onLine,
  onAlert: (a) => {
    alertCount += 1
    episodes.observe(a)
    scanner.scan('alert', JSON.stringify(a))
  },
  onWebhookPayload: (body) => {
    scanner.scan('webhook', body)
    scanner.end('webhook')
  },
})
const { mock, bot } = engine
virtualNow = () => mock.clock.now()
// The operator's top-up: a crash episode seeds the account with thin collateral and liquidates it, so
// at the recovery phase the collateral goes back to what the run started with, as an operator would
// deposit; the orders the venue books after it show the bot trading again, not only sending.
const startCollateral = mock.exchange.accountOf(bot.proxyAddress)?.collateral
const topUp = { at: undefined as number | undefined, amount: '0', booked: new Set<number>() }
mock.exchange.onOrderChange((owner, oid, order) => {
  if (topUp.at === undefined || owner !== mock.exchange.accountOf(bot.proxyAddress)?.owner) return
  if (order().status === 'open') topUp.booked.add(oid)
})
// The scan's needles: every secret the run has (the throwaway proxy and owner keys, the proxy secret,
// the webhook URL), each in every encoding (bench/secretsScan.ts).
for (const [i, n] of engine.needles.filter((x) => /^0x[0-9a-fA-F]{64}$/.test(x)).entries())
  scanner.add(`private key ${i + 1}`, n)
for (const n of engine.needles)
  if (!n.startsWith('0x') && !/^[0-9a-f]+$/i.test(n) && n !== engine.webhookUrl) scanner.add('secret', n)
scanner.add('webhook URL', engine.webhookUrl)
scanner.add('webhook token', webhookToken)

// ---------------------------------------------------------------------------------------------------
// Reporting

const loopDelay = monitorEventLoopDelay({ resolution: 10 })
loopDelay.enable()
let worstLoopP99 = 0
let worstLoopMax = 0
const startedVirtual = mock.clock.now()
const startedReal = performance.now()
const stateTap = new StateTap()
let peakHeap = 0
let peakRss = 0

interface Snapshot {
  virtualMin: number
  realS: number
  trade: number
  batches: number
  items: number
  unknownBatches: number
  reconciles: number
  states: Map<string, number>
  stopped: string[]
}

/** The venue's liquidation episodes of the bot's account (false → true of its `inLiquidation`, as sampled):
 * the mock cuts a position in steps, so one crash can take the account in and out of liquidation twice. */
const venueLiquidation = { inside: false, episodes: 0 }

function snapshot(): Snapshot {
  const s = bot.status()
  const inLiquidation = mock.exchange.accountOf(bot.proxyAddress)?.inLiquidation === true
  if (inLiquidation && !venueLiquidation.inside) venueLiquidation.episodes += 1
  venueLiquidation.inside = inLiquidation
  const d = s.limiter.details as
    | { batchesSent?: number; itemsSent?: number; unknownBatches?: number; reconciles?: number }
    | undefined
  const states = stateTap.sample(s.instruments)
  return {
    virtualMin: (mock.clock.now() - startedVirtual) / 60_000,
    realS: (performance.now() - startedReal) / 1000,
    trade: wire.tradeCommands(),
    batches: d?.batchesSent ?? 0,
    items: d?.itemsSent ?? 0,
    unknownBatches: d?.unknownBatches ?? 0,
    reconciles: d?.reconciles ?? 0,
    states,
    stopped: s.instruments.filter((i) => i.state === 'stopped').map((i) => i.symbol),
  }
}

function alertSummary(): string {
  const open = episodes.open()
  const keys = open.slice(0, 6).join(', ')
  return `${alertCount} alert messages; open: ${open.length === 0 ? 'none' : keys}${open.length > 6 ? ', …' : ''}`
}

const gc = (globalThis as { gc?: () => void }).gc

/** Heap after a full GC (live data only); the event-loop monitor is off meanwhile. */
function heapAfterGc(): NodeJS.MemoryUsage {
  loopDelay.disable()
  gc?.()
  const m = process.memoryUsage()
  loopDelay.reset()
  loopDelay.enable()
  return m
}

function report(label: string): Snapshot {
  const s = snapshot()
  // Event-loop delay since the last report (wall ms): at high --speed a long stall is many virtual
  // seconds, enough to expire a signed command's 4 s exp or make an input look stale.
  const loopP99 = loopDelay.percentile(99) / 1e6
  const loopMax = loopDelay.max / 1e6
  worstLoopP99 = Math.max(worstLoopP99, loopP99)
  worstLoopMax = Math.max(worstLoopMax, loopMax)
  const m = heapAfterGc()
  peakHeap = Math.max(peakHeap, m.heapUsed)
  peakRss = Math.max(peakRss, m.rss)
  heapSeries.push([s.virtualMin / 60, m.heapUsed])
  const states = [...s.states].map(([k, v]) => `${k} ${v}`).join(', ')
  const faults = Object.values(mock.state().faults.counts).reduce((a, b) => a + b, 0)
  console.log(
    [
      `[${label}] virtual ${(s.virtualMin / 60).toFixed(2)} / ${(MINUTES / 60).toFixed(2)} h (${currentPhase}), real ${s.realS.toFixed(0)} s`,
      `  commands sent ${wire.commands} (trade ${s.trade}, rejected ${wire.commandErrors}, expired ${wire.expired}); batches ${s.batches} carrying ${s.items} orders; requests ${wire.requests}`,
      `  429s: self-caused ${wire.rateLimitedSelf}, injected ${wire.rateLimitedInjected} (faults injected in all ${faults})`,
      `  unknown outcomes ${s.unknownBatches} batch(es); reconciles ${s.reconciles}; duplicate signed commands ${wire.duplicateSigs}`,
      `  alerts: ${alertSummary()}; unhandled rejections ${processFaults.unhandledRejections}, uncaught exceptions ${processFaults.uncaughtExceptions}`,
      `  heap ${mb(m.heapUsed)}${gc ? ' after GC' : ''}, rss ${mb(m.rss)} (bot and mock in one process)${STEPPED ? '' : `; event-loop delay p99 ${loopP99.toFixed(0)} ms, max ${loopMax.toFixed(0)} ms (wall)`}`,
      `  log lines ${[...logs.counts].map(([k, v]) => `${k} ${v}`).join(', ')}; scanned ${mb(scanner.summary().bytes)}, hits ${scanner.summary().hits.length}`,
      `  instruments: ${states}; active (quoting allowed) ${stateTap.quotingShare()} of the time so far`,
    ].join('\n'),
  )
  return s
}

let currentPhase = steps[0]?.phase ?? 'calm'
const pace = STEPPED
  ? 'stepped clock (as fast as the machine allows)'
  : `speed ${SPEED} (≈ ${(virtualMs / SPEED / 60_000).toFixed(0)} min real)`
console.log(
  `# soak (${ENGINE} engine): ${SCENARIO === undefined ? 'calm → trending → crash → recovery' : `scenario ${SCENARIO}`}, ${(MINUTES / 60).toFixed(2)} virtual h on the ${pace}, cap ${MAX_REAL_S} s, ${bot.status().instruments.length} instrument(s), seed ${SEED}, ${engine.where}${STEPPED ? '; streams off (every input polls)' : ''}`,
)
console.log(
  `  steps: ${steps.map((st) => `${(st.at / 3_600_000).toFixed(2)} h ${st.phase}${st.episode ? ` #${st.episode}` : ''} (${st.scenario})`).join(', ')}\n`,
)

let interrupted = false
process.once('SIGINT', () => {
  interrupted = true
})
/** Warm-up: the first tenth of the run (at least 10 virtual min); its heap after GC is the baseline. */
const WARMUP_MS = Math.min(virtualMs / 2, Math.max(10 * 60_000, virtualMs / 10))
let warmHeap: number | undefined
/** Heap after GC at each full report: [virtual h, bytes]. */
const heapSeries: [number, number][] = []
/** Alert counts at each step, to tell which alerts each crash episode raised. */
const countsAtStep: Map<string, EpisodeCounts>[] = []
/** The venue's liquidation episodes so far at each step. */
const venueLiqAtStep: number[] = []
let nextStep = 1
const opsSeen = { probes: 0, status: 0, metrics: 0, dashboard: 0, events: 0 }
const probe = async (): Promise<void> => {
  if (bot.opsUrl === undefined) return
  // Stepped: the clock stands still meanwhile, so the event stream has its snapshot and no samples.
  const r = await probeOps(bot.opsUrl, scanner, STEPPED ? 300 : 1_500)
  opsSeen.probes += 1
  if (r.status) opsSeen.status += 1
  if (r.metrics) opsSeen.metrics += 1
  if (r.dashboard) opsSeen.dashboard += 1
  opsSeen.events += r.events
}
countsAtStep.push(episodes.counts())
venueLiqAtStep.push(venueLiquidation.episodes)
let stoppedEarly = ''
const stateGate = intervalGate(STATE_SAMPLE_MS, 0)
const sampleGate = intervalGate(SAMPLE_EVERY_MS, 0)
const wallGate = intervalGate(REPORT_EVERY_S * 1000, performance.now())
const capAt = startedReal + MAX_REAL_S * 1000

function progressLine(elapsed: number): void {
  const realS = (performance.now() - startedReal) / 1000
  const speed = realS > 0 ? elapsed / 1000 / realS : 0
  const etaS = speed > 0 ? (virtualMs - elapsed) / 1000 / speed : Number.NaN
  console.log(
    `… virtual ${(elapsed / 3_600_000).toFixed(2)} / ${(virtualMs / 3_600_000).toFixed(2)} h (${((100 * elapsed) / virtualMs).toFixed(1)} %), ${currentPhase}; wall ${realS.toFixed(0)} s, ${speed.toFixed(1)}× real time, ~${Number.isFinite(etaS) ? etaS.toFixed(0) : '?'} s to go; commands ${wire.commands}, alerts ${alertCount}`,
  )
}

/** Deposits what the account lost since the start (nothing when it lost nothing). */
function topUpAccount(elapsed: number): void {
  const venue = mock.exchange.accountOf(bot.proxyAddress)
  if (venue === undefined || startCollateral === undefined) return
  const missing = subDecimal(startCollateral, venue.collateral)
  topUp.at = elapsed
  if (compareDecimal(missing, '0') <= 0) return
  mock.exchange.deposit(venue.owner, missing)
  topUp.amount = missing
  console.log(`operator top-up: +${missing} USDC of collateral (${venue.collateral} → ${startCollateral})`)
}

/** One look at the run: scenario steps, warm-up, samples, reports. False stops the run. */
async function tick(elapsed: number): Promise<boolean> {
  if (performance.now() >= capAt) {
    stoppedEarly = `did not finish: stopped at the wall-time cap (${MAX_REAL_S} s)`
    return false
  }
  if (interrupted) {
    stoppedEarly = 'did not finish: stopped on SIGINT'
    return false
  }
  const taken = dueSteps(steps, nextStep, elapsed)
  nextStep = taken.next
  for (const step of taken.due) {
    countsAtStep.push(episodes.counts())
    venueLiqAtStep.push(venueLiquidation.episodes)
    mock.setScenario(step.scenario)
    currentPhase = step.phase
    if (step.phase === 'recovery') topUpAccount(elapsed)
    console.log(
      `\n## ${(elapsed / 3_600_000).toFixed(2)} h: ${step.phase}${step.episode ? ` episode ${step.episode}` : ''} (scenario ${step.scenario})\n`,
    )
  }
  if (warmHeap === undefined && elapsed >= WARMUP_MS) {
    warmHeap = heapAfterGc().heapUsed
    console.log(`warm-up over at ${(elapsed / 60_000).toFixed(1)} virtual min: heap after GC ${mb(warmHeap)}`)
  }
  // Actor deaths can be transient (restart): sample states often, not only at report time.
  if (!STEPPED || stateGate(elapsed)) {
    wire.pruneSigs()
    snapshot()
  }
  if (STEPPED) {
    if (wallGate(performance.now())) progressLine(elapsed)
    if (sampleGate(elapsed)) {
      report('sample')
      await probe()
    }
  } else if (wallGate(performance.now())) {
    report('progress')
    await probe()
  }
  return true
}

await engine.drive(virtualMs, tick)
if (stoppedEarly) console.log(`\n${stoppedEarly}`)
countsAtStep.push(episodes.counts())
venueLiqAtStep.push(venueLiquidation.episodes)

const final = report('final')
const endAccount = bot.status().account
await probe()
const endHeap = heapAfterGc().heapUsed
// Orders in flight can make the two views differ for a moment: compare a few times, a moment apart
// (1 virtual s on the stepped clock; 0.5 s of wall time on the wire). On the stepped engine every input
// polls, and an order filled at the venue leaves the bot's book at its next open-orders read
// (`polling.openOrdersMs`, 30 s): the comparison waits for one (a fill in the run's last 30 s was
// reported as a difference while the market traded ~20,000 fills a day).
const VIEW_ATTEMPTS = STEPPED ? 35 : 20
let views = compareViews(bot.status(), mock.exchange.accountOf(bot.proxyAddress))
let viewAttempts = 1
while (!views.equal && viewAttempts < VIEW_ATTEMPTS) {
  await engine.pause(STEPPED ? 1_000 : 500 * SPEED)
  views = compareViews(bot.status(), mock.exchange.accountOf(bot.proxyAddress))
  viewAttempts += 1
}
loopDelay.disable()
await engine.stop('soak over')

// ---------------------------------------------------------------------------------------------------
// Verdict

const checks: Check[] = []
const check = (name: string, pass: boolean, figure: string): void => void checks.push({ name, pass, figure })

const counts = episodes.counts()
const actorKeys = [...counts.keys()].filter((k) => k.startsWith('actor:'))
check(
  'ran the whole virtual duration',
  stoppedEarly === '',
  `${stoppedEarly ? `${stoppedEarly}; ` : ''}ran ${final.virtualMin.toFixed(0)} of ${MINUTES} virtual min in ${final.realS.toFixed(0)} s of wall time`,
)
check(
  'no crash',
  processFaults.uncaughtExceptions === 0,
  `${processFaults.uncaughtExceptions} uncaught exception(s)`,
)
check(
  'no unhandled rejection',
  processFaults.unhandledRejections === 0,
  `${processFaults.unhandledRejections}${processFaults.last ? ` (last: ${processFaults.last})` : ''}`,
)
check(
  'no actor died',
  actorKeys.length === 0 && stateTap.seenStopped.size === 0,
  actorKeys.length + stateTap.seenStopped.size === 0
    ? '0'
    : [...new Set([...actorKeys, ...stateTap.seenStopped])].join(', '),
)
check(
  'no self-caused 429',
  wire.rateLimitedSelf === 0,
  wire.rateLimitedSelf === 0 ? '0' : [...wire.selfDetails].map(([k, v]) => `${k} ×${v}`).join('; '),
)
check(
  'every signed command unique',
  wire.duplicateSigs === 0,
  `${wire.duplicateSigs} sent twice of ${wire.commands}`,
)
check('the bot quoted', final.trade > 0, `${final.trade} trade commands`)
if (SCENARIO === undefined)
  check(
    "the venue books the bot's orders again after the operator's top-up",
    topUp.at !== undefined && topUp.booked.size > 0,
    topUp.at === undefined
      ? 'the recovery phase never started'
      : `${topUp.booked.size} order(s) booked after +${topUp.amount} USDC at ${(topUp.at / 3_600_000).toFixed(2)} h`,
  )
const growth = warmHeap === undefined ? Number.NaN : endHeap - warmHeap
const growthBound =
  warmHeap === undefined ? 0 : Math.max(HEAP_GROWTH_BOUND.bytes, warmHeap * HEAP_GROWTH_BOUND.share)
check(
  'memory flat',
  warmHeap !== undefined && growth <= growthBound,
  `heap after GC ${warmHeap === undefined ? 'n/a' : mb(warmHeap)} after warm-up → ${mb(endHeap)} at the end (${growth >= 0 ? '+' : ''}${mb(growth)}; bound +${mb(growthBound)}: the larger of 16 MiB and 25 %)`,
)
check(
  'alert episodes: each raised and resolved once',
  episodes.violations.length === 0,
  episodes.violations.length === 0
    ? `${alertCount} alert messages over ${counts.size} keys, 0 raised twice, 0 resolved twice`
    : episodes.violations
        .slice(0, 5)
        .map((v) => `${v.key} (${v.severity}) ${v.kind}`)
        .join('; '),
)
const crashKeys = (k: string): boolean => k === 'margin' || k === 'liquidation'
const { ok: crashOk, figures: crashFigures } = crashEpisodes(
  steps,
  countsAtStep,
  counts,
  venueLiqAtStep,
  venueLiquidation.episodes,
)
const crashOpen = episodes.open(crashKeys)
if (crashFigures.length > 0 || SCENARIO === undefined) {
  check(
    'crash alerts: raised in every crash episode (liquidation at most once per venue liquidation episode), all resolved by the end',
    crashOk && crashOpen.length === 0 && crashFigures.length > 0,
    `${crashFigures.join('; ') || 'no crash episode ran'}; open at the end: ${crashOpen.join(', ') || 'none'}`,
  )
}
check(
  "bot's view of open orders and positions = the mock's",
  views.equal,
  `orders ${views.orders.bot} / ${views.orders.mock}, non-zero positions ${views.positions.bot} / ${views.positions.mock} (bot / mock, attempt ${viewAttempts})${views.equal ? '' : `: ${views.differences.slice(0, 5).join('; ')}`}`,
)
const scan = scanner.summary()
check(
  'secrets scan',
  scan.hits.length === 0 && opsSeen.status > 0 && opsSeen.metrics > 0,
  `${formatScan(scan, scanner.needleCount)}; ops probes ${opsSeen.probes} (/status ${opsSeen.status}, /metrics ${opsSeen.metrics}, dashboard ${opsSeen.dashboard}, SSE ${mb(opsSeen.events)}); webhook deliveries ${engine.webhookDeliveries()}${STEPPED ? ' (in-process poster)' : ''}`,
)

console.log('\n# summary\n')
const summaryLines = [
  `${ENGINE} engine (${STEPPED ? 'stepped virtual clock, in-process transport, streams off: every input polls' : `loopback HTTP and WebSocket, accelerated clock at speed ${SPEED}`}), ${SCENARIO === undefined ? 'calm → trending → crash → recovery' : `scenario ${SCENARIO}`}, seed ${SEED}, ${final.states.size > 0 ? bot.status().instruments.length : 0} instruments: ${(final.virtualMin / 60).toFixed(2)} virtual h in ${(final.realS / 60).toFixed(1)} min of wall time (${(final.virtualMin / (final.realS / 60 || 1)).toFixed(1)}× real time; ${final.virtualMin > 0 ? ((final.realS * 60) / final.virtualMin).toFixed(0) : 'n/a'} wall s per virtual hour)`,
  `commands ${wire.commands} (trade ${final.trade}; rejected ${wire.commandErrors}, of which expired ${wire.expired}); batches ${final.batches} carrying ${final.items} orders; unknown outcomes ${final.unknownBatches}, reconciles ${final.reconciles}`,
  `instruments active (quoting allowed) ${stateTap.quotingShare()} of the time (sampled every ${STEPPED ? `${STATE_SAMPLE_MS / 1000} virtual s` : '250 ms'}); halted because: ${stateTap.haltSummary()}`,
  `alerts by key: ${
    [...counts]
      .sort((a, b) => b[1].raised - a[1].raised)
      .slice(0, 10)
      .map(([k, c]) => `${k} ${c.raised}/${c.resolved}`)
      .join(', ') || 'none'
  } (raised/resolved)`,
  `account at the end: margin ratio ${endAccount.marginRatio?.toFixed(3) ?? 'n/a'}, level ${endAccount.marginLevel ?? 'n/a'}, in liquidation ${endAccount.inLiquidation}, last portfolio read ${endAccount.updatedAt === undefined ? 'never' : `${((mock.clock.now() - endAccount.updatedAt) / 1000).toFixed(0)} s before the end`}`,
  `peak heap ${mb(peakHeap)}, peak rss ${mb(peakRss)}${STEPPED ? '' : `, worst event-loop delay p99 ${worstLoopP99.toFixed(0)} ms, max ${worstLoopMax.toFixed(0)} ms (wall)`}; heap after GC by virtual hour: ${heapSeries
    .filter((_, i, a) => a.length <= 13 || i % Math.ceil(a.length / 12) === 0 || i === a.length - 1)
    .map(([h, b]) => `${h.toFixed(1)} h ${(b / 1024 / 1024).toFixed(0)}`)
    .join(', ')} MiB`,
]
for (const l of summaryLines) console.log(l)
console.log(`commands by path: ${[...wire.commandsByPath].map(([k, v]) => `${k} ${v}`).join('; ')}`)
if (logs.recentProblems.length > 0) {
  console.log(`last ${Math.min(10, logs.recentProblems.length)} warn/error log lines:`)
  for (const l of logs.recentProblems.slice(-10)) console.log(`  ${l}`)
}
const failed = printChecks(checks)

if (WRITE_DOCS) {
  const head = `Generated by \`npm run soak -- ${FLAGS}\` on ${utcStamp()} on ${machineLine()}, ${loadSpan(LOAD0)} over the run (bench/soak.ts; rerunning replaces this block).`
  writeSoakDocs(
    `${(MINUTES / 60).toFixed(0)} virtual hours against the mock (${ENGINE} engine)`,
    head,
    summaryLines,
    checks,
  )
}
process.exitCode = failed.length === 0 ? 0 : 1
