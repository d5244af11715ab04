/**
 * Actor events and CPU at 1,000 instruments when nothing changes (issue 36, point 4): the venue's 1 s
 * tick of every ticker, BBO and the portfolio, unchanged, routed by the bot's stream routes
 * (`STREAM_ROUTES`) into real instrument actors on a stepped clock, for `--seconds` virtual seconds.
 * Two filters, alternated in one run: `refresh events` (the filter before issue 36's cut: an unchanged
 * BBO or margin re-sent to the actor at a third of its staleness bound) and `ages renewed` (the bot's
 * `botChangeFilter`: an unchanged BBO or margin only renews its age, which the actors read through
 * `InputAges`). Prints actor events per second, CPU ms per virtual second, and the scavenges and
 * full collections with their pause time.
 *
 *   node --import tsx bench/inputAges.bench.ts [--instruments 1000] [--seconds 60] [--rounds 2] [--revisit-ms 0]
 */
import { type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks'
import { createActor, fromPromise, SimulatedClock } from 'xstate'
import { planSubmitter } from '../src/bot/actors/planSubmitter.ts'
import {
  botChangeFilter,
  type ChangeFilter,
  createChangeFilter,
  routePush,
  STREAM_ROUTES,
  type StreamRouteTargets,
} from '../src/bot/inputs/streams/streamRoutes.ts'
import { type InstrumentDeps, instrumentMachine } from '../src/bot/instrument/instrument.machine.ts'
import type { OrderPlan, PlanOutcome } from '../src/bot/quoting/orderPlan.ts'
import { createLogger } from '../src/logging/logger.ts'
import { parsePush, type StreamPush } from '../src/perps/stream/schemas.ts'
import { QuotingSettings, RiskSettings } from '../src/settings/schema.ts'
import { numberFlag } from './stats.ts'

const N = numberFlag('instruments', 1_000)
const SECONDS = numberFlag('seconds', 60)
const ROUNDS = numberFlag('rounds', 2)
/**
 * The strategy's revisit period (ms; default 0: never, so only inputs and staleness wake an actor). With
 * revisits on, the stepped clock's own bookkeeping of a thousand delayed events dominates the CPU
 * (xstate's `SimulatedClock` scans its timers at every increment), which the bot's real timers do not.
 */
const REVISIT_MS = numberFlag('revisit-ms', 0)
// The shipped defaults, as the bot builds its machines' risk from settings (actorWiring.ts).
const QUOTING = QuotingSettings.parse({})
const RISK = { ...RiskSettings.parse({}), ...QUOTING }

function push(ch: string, data: unknown, ts: number): StreamPush {
  const parsed = parsePush({ ch, ts, sq: 1, data })
  if (!parsed.ok) throw new Error(`bad fixture ${ch}: ${parsed.issues.join('; ')}`)
  return parsed.push
}

const nothing = (): OrderPlan => ({ modify: [], create: [], cancel: [] })

interface Figures {
  events: Record<string, number>
  cpuMs: number
  scavenges: number
  fullGcs: number
  gcMs: number
  halted: number
}

async function run(label: string, filterOf: (now: () => number) => ChangeFilter): Promise<Figures> {
  const clock = new SimulatedClock()
  clock.set(1_767_000_000_000)
  const filter = filterOf(() => clock.now())
  const logger = createLogger({ pretty: 'never', level: 'error', destination: { write: () => undefined } })
  const machine = instrumentMachine.provide({
    actors: {
      submitter: planSubmitter(
        async (): Promise<PlanOutcome> => ({
          modify: [],
          create: [],
          cancel: [],
        }),
      ),
      cancelAll: fromPromise<void, { instrumentId: number }>(async () => undefined),
    },
  })
  const deps: InstrumentDeps = {
    clock,
    logger,
    plan: nothing,
    revisitAt: (s) => (REVISIT_MS > 0 ? s.now + REVISIT_MS : undefined),
    risk: RISK,
    recheckMs: 1_000,
    minRepriceIntervalMs: 250,
    rejectBackoffMs: 1_000,
    maxOrderAgeMs: 120_000,
    guard: { maxIndexJump: '0.1', degradeAfter: 3 },
    ages: filter,
  }
  const actors = new Map<number, ReturnType<typeof createActor<typeof machine>>>()
  for (let id = 1; id <= N; id++) {
    const a = createActor(machine, {
      clock,
      input: {
        instrument: {
          id,
          symbol: `I${id}`,
          priceDecimals: 1,
          quantityDecimals: 3,
          priceBounds: '0.05',
          minNotional: '1',
          maxOrderCount: 200,
        },
        deps,
      },
    })
    a.start()
    actors.set(id, a)
  }
  const events: Record<string, number> = {}
  const route: StreamRouteTargets['route'] = (ids, event) => {
    for (const id of ids) {
      events[event.type] = (events[event.type] ?? 0) + 1
      actors.get(id)?.send(event)
    }
  }
  const targets: StreamRouteTargets = {
    now: () => clock.now(),
    traded: new Set(actors.keys()),
    route,
    klinesKept: 0,
    changed: filter,
    orders: { observe: () => undefined },
    account: {
      observePortfolio: () => undefined,
      observeFill: () => undefined,
      observeWithdrawal: () => undefined,
    },
  }
  const portfolio = {
    positions: [],
    margin: {
      total_account_value: '1000',
      total_initial_margin: '0',
      total_maintenance_margin: '0',
      total_position_value: '0',
    },
    withdrawable: '1000',
    in_liquidation: false,
    timestamp: 1,
  }
  // Parsed once (the parse costs the same with either filter): the tick re-sends the same pushes.
  const pushes: StreamPush[] = []
  for (let iid = 1; iid <= N; iid++) {
    const ticker = {
      iid,
      idx: '100.5',
      mark: '100.6',
      last: '100.4',
      mid: '100.5',
      oi: '10',
      fr: '0.0001',
      nxf: 9_000,
    }
    pushes.push(
      push('tickers::all', ticker, 1),
      push(`bbo::${iid}`, { iid, bp: '99', bq: '1', ap: '101', aq: '2' }, 1),
    )
  }
  pushes.push(push('portfolio', portfolio, 1))
  const tick = (): void => {
    for (const p of pushes) routePush(STREAM_ROUTES, p, targets)
  }
  const second = (): void => {
    tick()
    for (let i = 0; i < 10; i++) clock.increment(100)
  }
  // Start-up: every actor gets its inputs (statistics once: their bound is 3 minutes), then settles.
  for (const a of actors.values())
    a.send({
      type: 'STATISTICS',
      statistics: { volume: '1', openPrice: '100', klines: [] },
      receivedAt: clock.now(),
    })
  for (const a of actors.values()) a.send({ type: 'ORDERS', orders: [], receivedAt: clock.now() })
  for (let s = 0; s < 10; s++) second()
  for (const k of Object.keys(events)) delete events[k]
  const gcs: PerformanceEntry[] = []
  const obs = new PerformanceObserver((list) => gcs.push(...list.getEntries()))
  obs.observe({ entryTypes: ['gc'] })
  const cpu0 = process.cpuUsage()
  for (let s = 0; s < SECONDS; s++) second()
  const cpu = process.cpuUsage(cpu0)
  await new Promise((resolve) => setTimeout(resolve, 100)) // gc entries are delivered on a later turn
  obs.disconnect()
  const halted = [...actors.values()].filter((a) => a.getSnapshot().matches('halted')).length
  for (const a of actors.values()) a.stop()
  const kindOf = (e: PerformanceEntry): number =>
    (e as PerformanceEntry & { detail?: { kind?: number } }).detail?.kind ?? 0
  const f: Figures = {
    events,
    cpuMs: (cpu.user + cpu.system) / 1_000,
    scavenges: gcs.filter((e) => kindOf(e) === 1).length,
    fullGcs: gcs.filter((e) => kindOf(e) === 4).length,
    gcMs: gcs.reduce((s, e) => s + e.duration, 0),
    halted,
  }
  const perS = (n: number): string => (n / SECONDS).toFixed(0)
  const total = Object.values(events).reduce((s, n) => s + n, 0)
  console.log(
    `${label.padEnd(16)} actor events/s ${perS(total).padStart(5)} (${Object.entries(events)
      .map(([k, n]) => `${k} ${perS(n)}`)
      .join(
        ', ',
      )})  CPU ${(f.cpuMs / SECONDS).toFixed(0)} ms per virtual s  scavenges ${f.scavenges}, full GCs ${f.fullGcs}, GC ${f.gcMs.toFixed(0)} ms  halted ${halted}/${N}`,
  )
  return f
}

const before = (now: () => number): ChangeFilter =>
  createChangeFilter(now, { index: QUOTING.staleIndexMs / 3, bbo: 1_500, margin: QUOTING.staleMarginMs / 3 })
console.log(
  `# input ages, ${N} instruments, ${SECONDS} virtual s of unchanged 1 s ticks, revisit ${REVISIT_MS} ms (Node ${process.version})`,
)
for (let r = 0; r < ROUNDS; r++) {
  await run('refresh events', before)
  await run('ages renewed', (now) => botChangeFilter(now, QUOTING))
}
