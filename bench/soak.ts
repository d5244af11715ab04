/**
 * Soak: the real bot against the real mock over loopback HTTP (127.0.0.1), on the mock's accelerated
 * virtual clock, for a bounded virtual duration. Same assembly as the integration tests
 * (src/sim/botOnMock.ts), but
 * with bounded memory (counters instead of recorded bodies and logs) so the heap figure means
 * something over a long run.
 *
 *   npm run soak -- [--minutes 30] [--speed 20] [--scenario calm|flaky|trending|…] [--seed 7]
 *                   [--instruments N] [--report-every 30] [--max-real-seconds S]
 *
 * Every `--report-every` real seconds it prints commands sent, batches, 429s (self-caused vs injected
 * by the mock's faults), unknown outcomes, reconciles, alerts, heap and instrument states. It stops by
 * itself after `--minutes` of virtual time (or `--max-real-seconds` of wall time, whichever is first).
 * Exit code: 0 when the run ends cleanly; 1 when the bot caused a 429 itself, an actor died, a
 * signed command was sent twice (same signature), or no trade command was sent at all.
 * `--instruments N` replaces the config's three instruments with N generated ones quoted by index-peg
 * (the mock lists the same generated set).
 */
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import type { Alert } from '../src/alerts/alert.ts'
import { mulDecimal } from '../src/decimal.ts'
import { generateInstruments, type InstrumentSpec } from '../src/mock/perps/instruments.ts'
import { rateLimitCode, startBotOnMock, type WireExchange } from '../src/sim/botOnMock.ts'
import { flag, mb, numberFlag } from './stats.ts'

const MINUTES = numberFlag('minutes', 30)
const SPEED = numberFlag('speed', 20)
const SCENARIO = flag('scenario') ?? 'calm'
const SEED = numberFlag('seed', 7)
const REPORT_EVERY_S = numberFlag('report-every', 30)
const INSTRUMENTS = numberFlag('instruments', 0)
const virtualMs = MINUTES * 60_000
const MAX_REAL_S = numberFlag('max-real-seconds', Math.ceil((virtualMs / SPEED / 1000) * 1.5) + 60)

const KEEP_LOG_LINES = 30

/** Contracts worth 50–500 in quote currency, as an exact power of ten (float only picks the exponent). */
function sizeFor(price: string): string {
  const e = Math.ceil(Math.log10(50 / Number(price)))
  return e >= 0 ? `1${'0'.repeat(e)}` : `0.${'0'.repeat(-e - 1)}1`
}

function instrumentOverrides(specs: readonly InstrumentSpec[]): Record<string, unknown>[] {
  return specs.map((s) => {
    const size = sizeFor(s.initialPrice)
    return {
      symbol: s.symbol,
      strategy: 'index-peg',
      params: { size, positionCap: mulDecimal(size, '10'), levels: 1 },
    }
  })
}

// ---------------------------------------------------------------------------------------------------
// Assembly (after test/integration/harness.ts)

const generated = INSTRUMENTS > 0 ? generateInstruments(INSTRUMENTS) : undefined

const wire = {
  commands: 0,
  commandsByPath: new Map<string, number>(),
  commandErrors: 0,
  sigs: new Set<string>(),
  duplicateSigs: 0,
  rateLimitedSelf: 0,
  rateLimitedInjected: 0,
  selfDetails: new Map<string, number>(),
  requests: 0,
}
const onExchange = ({ req, res, fault, command }: WireExchange): void => {
  wire.requests += 1
  if (command) {
    wire.commands += 1
    const key = `${req.method} ${req.path}`
    wire.commandsByPath.set(key, (wire.commandsByPath.get(key) ?? 0) + 1)
    if (res.status >= 400) wire.commandErrors += 1
    const sig = (req.body as { sig?: unknown } | undefined)?.sig
    if (typeof sig === 'string') {
      if (wire.sigs.has(sig)) wire.duplicateSigs += 1
      else wire.sigs.add(sig)
    }
  }
  if (res.status === 429) {
    if (fault === undefined) {
      wire.rateLimitedSelf += 1
      const key = `${req.method} ${req.path} ${rateLimitCode(res)}`
      wire.selfDetails.set(key, (wire.selfDetails.get(key) ?? 0) + 1)
    } else wire.rateLimitedInjected += 1
  }
}

const logCounts = new Map<string, number>()
const recentProblems: string[] = []
const LEVELS: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
}
const onLogLine = (line: string): void => {
  const level = /"level":(\d+)/.exec(line)?.[1]
  const name = LEVELS[Number(level)] ?? 'other'
  logCounts.set(name, (logCounts.get(name) ?? 0) + 1)
  if (name === 'warn' || name === 'error' || name === 'fatal') {
    recentProblems.push(line.trim().slice(0, 300))
    if (recentProblems.length > KEEP_LOG_LINES) recentProblems.shift()
  }
}
const overrides: Record<string, unknown> = {}
// As in the integration test: fault holds run on wall time while the bot's clock is accelerated, so a
// short request timeout keeps a held read from looking like minutes of stale data.
if (SCENARIO === 'flaky') overrides['perps.requestTimeoutMs'] = 2_000
if (generated) overrides.instruments = instrumentOverrides(generated)
const alerts: Alert[] = []
const run = await startBotOnMock({
  mock: {
    seed: SEED,
    scenario: SCENARIO,
    clock: 'accelerated',
    speed: SPEED,
    catalogue: { eventCount: 120 },
    ...(generated ? { exchange: { instruments: generated } } : {}),
  },
  overrides,
  onExchange,
  onLogLine,
  onAlert: (a) => void alerts.push(a),
})
const { mock, bot, server } = run

// ---------------------------------------------------------------------------------------------------
// Reporting

const loopDelay = monitorEventLoopDelay({ resolution: 10 })
loopDelay.enable()
let worstLoopP99 = 0
let worstLoopMax = 0
const startedVirtual = mock.clock.now()
const startedReal = performance.now()
const seenStopped = new Set<string>()
/** Instrument-samples (every 250 ms) and how many of them were in an active (quoting) state. */
const quoting = { samples: 0, active: 0 }
const haltReasons = new Map<string, number>()
const haltSummary = (): string => {
  const halted = [...haltReasons.values()].reduce((a, b) => a + b, 0)
  if (halted === 0) return 'never halted'
  return [...haltReasons]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 4)
    .map(([k, v]) => `${k} ${((100 * v) / halted).toFixed(0)} %`)
    .join('; ')
}
const quotingShare = (): string =>
  quoting.samples === 0 ? 'n/a' : `${((100 * quoting.active) / quoting.samples).toFixed(0)} %`
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

function snapshot(): Snapshot {
  const s = bot.status()
  const d = s.limiter.details as
    | { batchesSent?: number; itemsSent?: number; unknownBatches?: number; reconciles?: number }
    | undefined
  const states = new Map<string, number>()
  for (const i of s.instruments) {
    states.set(i.state, (states.get(i.state) ?? 0) + 1)
    if (i.state === 'stopped') seenStopped.add(i.symbol)
    quoting.samples += 1
    if (i.state.startsWith('active')) quoting.active += 1
    else if (i.state.startsWith('halted')) {
      // "index stale (16 s old); margin stale (31 s old)" → "index stale; margin stale"
      const reason = (i.reason ?? '?').replace(/\s*\([^)]*\)/g, '')
      haltReasons.set(reason, (haltReasons.get(reason) ?? 0) + 1)
    }
  }
  const trade = [...wire.commandsByPath]
    .filter(([k]) => k.includes('/v1/trade/'))
    .reduce((a, [, v]) => a + v, 0)
  return {
    virtualMin: (mock.clock.now() - startedVirtual) / 60_000,
    realS: (performance.now() - startedReal) / 1000,
    trade,
    batches: d?.batchesSent ?? 0,
    items: d?.itemsSent ?? 0,
    unknownBatches: d?.unknownBatches ?? 0,
    reconciles: d?.reconciles ?? 0,
    states,
    stopped: s.instruments.filter((i) => i.state === 'stopped').map((i) => i.symbol),
  }
}

function alertSummary(): string {
  const open = new Map<string, Alert>()
  for (const a of alerts) {
    if (a.resolved) open.delete(a.key)
    else open.set(a.key, a)
  }
  const bySeverity = new Map<string, number>()
  for (const a of alerts) if (!a.resolved) bySeverity.set(a.severity, (bySeverity.get(a.severity) ?? 0) + 1)
  const sev = [...bySeverity].map(([k, v]) => `${k} ${v}`).join(', ') || 'none'
  const keys = [...open.keys()].slice(0, 6).join(', ')
  return `${alerts.length} raised (${sev}); open: ${open.size === 0 ? 'none' : keys}${open.size > 6 ? ', …' : ''}`
}

const gc = (globalThis as { gc?: () => void }).gc

function report(label: string): Snapshot {
  const s = snapshot()
  // Event-loop delay since the last report (wall ms): at high --speed a long stall is many virtual
  // seconds, enough to expire a signed command's 4 s exp or make an input look stale.
  const loopP99 = loopDelay.percentile(99) / 1e6
  const loopMax = loopDelay.max / 1e6
  worstLoopP99 = Math.max(worstLoopP99, loopP99)
  worstLoopMax = Math.max(worstLoopMax, loopMax)
  // With --expose-gc (the npm script passes it) the heap is measured after a full GC: live data only.
  // The delay monitor is off meanwhile, so our own GC pause is not counted as the bot's.
  loopDelay.disable()
  gc?.()
  const m = process.memoryUsage()
  loopDelay.reset()
  loopDelay.enable()
  peakHeap = Math.max(peakHeap, m.heapUsed)
  peakRss = Math.max(peakRss, m.rss)
  const states = [...s.states].map(([k, v]) => `${k} ${v}`).join(', ')
  const faults = Object.values(mock.state().faults.counts).reduce((a, b) => a + b, 0)
  console.log(
    [
      `[${label}] virtual ${s.virtualMin.toFixed(1)} / ${MINUTES} min, real ${s.realS.toFixed(0)} s`,
      `  commands sent ${wire.commands} (trade ${s.trade}, rejected ${wire.commandErrors}); batches ${s.batches} carrying ${s.items} orders; requests ${wire.requests}`,
      `  429s: self-caused ${wire.rateLimitedSelf}, injected ${wire.rateLimitedInjected} (faults injected in all ${faults})`,
      `  unknown outcomes ${s.unknownBatches} batch(es); reconciles ${s.reconciles}; duplicate signed commands ${wire.duplicateSigs}`,
      `  alerts: ${alertSummary()}`,
      `  heap ${mb(m.heapUsed)}${gc ? ' after GC' : ''}, rss ${mb(m.rss)} (bot and mock in one process); event-loop delay p99 ${loopP99.toFixed(0)} ms, max ${loopMax.toFixed(0)} ms (wall)`,
      `  log lines ${[...logCounts].map(([k, v]) => `${k} ${v}`).join(', ')}`,
      `  instruments: ${states}; active (quoting allowed) ${quotingShare()} of the time so far`,
    ].join('\n'),
  )
  return s
}

console.log(
  `# soak: scenario ${SCENARIO}, ${MINUTES} virtual min at speed ${SPEED} (≈ ${(virtualMs / SPEED / 1000).toFixed(0)} s real, cap ${MAX_REAL_S} s), ${bot.status().instruments.length} instrument(s), mock on ${server.url}\n`,
)

let interrupted = false
process.once('SIGINT', () => {
  interrupted = true
})
let nextReport = performance.now() + REPORT_EVERY_S * 1000
for (;;) {
  await new Promise((r) => setTimeout(r, 250))
  const virtualDone = mock.clock.now() - startedVirtual >= virtualMs
  const realCap = performance.now() - startedReal >= MAX_REAL_S * 1000
  if (virtualDone || realCap || interrupted) {
    if (realCap && !virtualDone) console.log(`\nstopping at the wall-time cap (${MAX_REAL_S} s)`)
    if (interrupted) console.log('\nstopping on SIGINT')
    break
  }
  // Actor deaths can be transient (restart): sample states often, not only at report time.
  snapshot()
  if (performance.now() >= nextReport) {
    report('progress')
    nextReport += REPORT_EVERY_S * 1000
  }
}

const final = report('final')
const stopTimer = setTimeout(() => {
  console.error('bot did not stop within 15 s')
  process.exit(3)
}, 15_000)
await run.stop('soak over')
clearTimeout(stopTimer)

// ---------------------------------------------------------------------------------------------------
// Verdict

const actorAlerts = alerts.filter((a) => a.key.startsWith('actor:'))
const problems: string[] = []
if (wire.rateLimitedSelf > 0) {
  problems.push(
    `the bot caused ${wire.rateLimitedSelf} 429(s) itself: ${[...wire.selfDetails].map(([k, v]) => `${k} ×${v}`).join('; ')}`,
  )
}
if (actorAlerts.length > 0 || seenStopped.size > 0) {
  problems.push(
    `actor(s) died: ${[...new Set([...actorAlerts.map((a) => a.key), ...seenStopped])].join(', ')}`,
  )
}
if (wire.duplicateSigs > 0) problems.push(`${wire.duplicateSigs} signed command(s) sent twice`)
if (final.trade === 0) problems.push('no trade command was sent (the bot never quoted)')

console.log('\n# summary\n')
console.log(
  `scenario ${SCENARIO}, seed ${SEED}, speed ${SPEED}: ${final.virtualMin.toFixed(1)} virtual min in ${final.realS.toFixed(0)} s`,
)
console.log(`instruments active (quoting allowed) ${quotingShare()} of the time (sampled every 250 ms)`)
console.log(`halted because (share of halted samples): ${haltSummary()}`)
console.log(`commands by path: ${[...wire.commandsByPath].map(([k, v]) => `${k} ${v}`).join('; ')}`)
console.log(
  `peak heap ${mb(peakHeap)}, peak rss ${mb(peakRss)}, worst event-loop delay p99 ${worstLoopP99.toFixed(0)} ms, max ${worstLoopMax.toFixed(0)} ms (wall)`,
)
if (recentProblems.length > 0) {
  console.log(`last ${Math.min(10, recentProblems.length)} warn/error log lines:`)
  for (const l of recentProblems.slice(-10)) console.log(`  ${l}`)
}
if (problems.length === 0) console.log('\nOK: no self-caused 429, no actor died, every signed command unique')
else {
  console.log('\nFAILED:')
  for (const p of problems) console.log(`  - ${p}`)
}
process.exitCode = problems.length === 0 ? 0 : 1
