/**
 * What one step of the instrument machine costs (issues 36 and 37): CPU µs and bytes allocated per
 * input event, for this tree's machine beside a baseline tree's in the same run.
 *
 *   npm run bench:machine -- [--events 200000] [--instruments 10] [--rounds 3] [--baseline 6e1c930]
 *                            [--mix stream|backtest] [--pretenuring on|off]
 *
 * Each variant runs in its own child process (rounds alternate baseline, current), so neither shares
 * a JIT or heap with the other. The baseline is `git archive <ref> src` unpacked under .scratch/
 * (git-ignored; its imports resolve this tree's packages, and it is compiled as this tree is: under
 * node_modules/ tsx compiled it as CommonJS, which cost the baseline ~15-20 % against the same code as
 * ESM); its default is the commit before the cut. Both drive their own `MachineDriver` (research/backtest/machineDriver.ts): the
 * machine on xstate's pure transitions, which the backtest runs and the live actor's step is built on.
 *
 * The event mix per instrument, on a virtual clock: a best bid/offer every 100 ms (half of them a new
 * touch), the index every second (a random walk of whole ticks; three in ten unchanged), the account
 * every 5 s and the open orders every 10 s, the machine's own wakes when due, and a venue that
 * accepts every order at once (its answer is the submitter's `PLAN_DONE`). The strategy quotes one bid
 * and one ask 0.1 % around the index: a move modifies both, as a quoting bot's does.
 * CPU is `process.cpuUsage` (GC threads included); bytes are V8's allocation over the measured part,
 * from the heap before and after each collection (`v8.GCProfiler`). The load average is printed:
 * the machine is shared, and CPU time too grows with load.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { GCProfiler } from 'node:v8'
import type {
  InstrumentDeps,
  InstrumentEvent,
  InstrumentInput,
} from '../src/bot/instrument/instrument.machine.ts'
import type { OrderPlan, PlanOutcome } from '../src/bot/quoting/orderPlan.ts'
import { createLogger } from '../src/logging/logger.ts'
import type { Order } from '../src/perps/schemas/orders.ts'
import { QuotingSettings, RiskSettings } from '../src/settings/schema.ts'
import type { StrategySnapshot } from '../src/strategy/strategy.ts'
import { exitWithHelpOnRequest, flag, numberFlag } from './stats.ts'

exitWithHelpOnRequest(import.meta.url)

const EVENTS = numberFlag('events', 200_000)
const INSTRUMENTS = numberFlag('instruments', 10)
const ROUNDS = numberFlag('rounds', 3)
/** The tree before issue 36/37's cut of the machine. */
const BASELINE = flag('baseline') ?? '6e1c930'
const CHILD = flag('child')
/**
 * `stream` (default): the live bot's mix above. `backtest`: the fast engine's, no best bid/offer, the
 * index every 2 s and the account every 3 s (its pollers' cadence), mostly a new value each time.
 */
const MIX = flag('mix') === 'backtest' ? 'backtest' : 'stream'
/**
 * V8's allocation-site pretenuring in both variants' processes: `on` (V8's default, as the live
 * actors run) or `off` (as the fast engine runs its machines, research/backtest/pretenuring.ts).
 */
const PRETENURING = flag('pretenuring') === 'off' ? 'off' : 'on'

/** The part of `MachineDriver` both trees share. */
interface Driver {
  readonly context: object
  send(event: InstrumentEvent): void
  wake(now: number): void
  nextDue(): number | undefined
}
type DriverClass = new (
  input: InstrumentInput,
  target: { submit(plan: OrderPlan): PlanOutcome; cancelAll(): void },
) => Driver

// The shipped defaults, as the bot builds its machines' risk from settings (actorWiring.ts).
const RISK = { ...RiskSettings.parse({}), ...QuotingSettings.parse({}) }

/** A deterministic generator (mulberry32), so both variants see the same events. */
function rng(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4_294_967_296
  }
}

/** One bid and one ask 0.1 % around the index, diffed against the resting orders. */
function quotePlan(s: StrategySnapshot): OrderPlan {
  const plan: OrderPlan = { modify: [], create: [], cancel: [] }
  if (s.index === undefined) return plan
  const ticks = Math.round(Number(s.index.price) * 10)
  for (const buy of [true, false]) {
    const p = ((buy ? Math.floor(ticks * 0.999) : Math.ceil(ticks * 1.001)) / 10).toFixed(1)
    const own = s.openOrders.find((o) => o.buy === buy)
    if (own === undefined) plan.create.push({ iid: s.instrument.id, buy, p, qty: '0.01', po: true })
    else if (own.p !== p) plan.modify.push({ oid: own.oid, p, qty: own.qty })
  }
  return plan
}

/** A venue that accepts every item at once. */
function venue(iid: number, clock: { now(): number }) {
  let next = iid * 1_000_000
  const open = new Map<number, Order>()
  return {
    open: (): Order[] => [...open.values()],
    submit(plan: OrderPlan): PlanOutcome {
      const now = clock.now()
      return {
        modify: plan.modify.map((m) => {
          const prev = open.get(m.oid)
          if (prev === undefined) return { status: 'err' as const, error: 'order_not_found' }
          const order: Order = { ...prev, p: m.p, qty: m.qty, uts: now }
          open.set(m.oid, order)
          return { status: 'ok' as const, order }
        }),
        create: plan.create.map((c) => {
          const oid = next++
          open.set(oid, {
            oid,
            iid,
            buy: c.buy,
            p: c.p,
            qty: c.qty,
            tif: 'gtc',
            po: c.po ?? false,
            ro: false,
            rest: c.qty,
            fill: '0',
            cts: now,
            uts: now,
            status: 'open',
          })
          return { status: 'ok' as const, oid }
        }),
        cancel: plan.cancel.map((oid) => {
          open.delete(oid)
          return { status: 'ok' as const }
        }),
      }
    },
    cancelAll: () => open.clear(),
  }
}

interface Figures {
  events: number
  cpuUsPerEvent: number
  bytesPerEvent: number
  submits: number
  /** Whether the machine's context is a fast-properties object at the end (not a dictionary). */
  fastContext: boolean
}

/** V8's own answer (only the child runs with `--allow-natives-syntax`, so made when asked). */
const hasFastProperties = (o: object): boolean =>
  (new Function('o', 'return %HasFastProperties(o)') as (o: object) => boolean)(o)

/** Drives `INSTRUMENTS` machines through `EVENTS` input events; the first fifth warms up. */
function drive(Driver: DriverClass): Figures {
  let now = 1_767_000_000_000
  const clock = { now: () => now }
  const logger = createLogger({ pretty: 'never', level: 'error', destination: { write: () => undefined } })
  const random = rng(7)
  let submits = 0
  const units = Array.from({ length: INSTRUMENTS }, (_, k) => {
    const iid = k + 1
    const v = venue(iid, clock)
    const deps: InstrumentDeps = {
      clock,
      logger,
      plan: quotePlan,
      reads: new Set(['bbo', 'equity']),
      revisitAt: () => undefined,
      risk: RISK,
      recheckMs: 1_000,
      minRepriceIntervalMs: 250,
      rejectBackoffMs: 1_000,
      maxOrderAgeMs: 120_000,
      guard: { maxIndexJump: '0.1', degradeAfter: 3 },
    }
    const driver = new Driver(
      {
        instrument: {
          id: iid,
          symbol: `I${iid}-USDC`,
          priceDecimals: 1,
          quantityDecimals: 3,
          priceBounds: '0.05',
          minNotional: '1',
          maxOrderCount: 200,
        },
        deps,
      },
      {
        submit: (plan) => {
          submits++
          return v.submit(plan)
        },
        cancelAll: v.cancelAll,
      },
    )
    return { driver, venue: v, slot: k % 10, ticks: 500_000 + k * 1_000, bid: 499_000, ask: 501_000 }
  })
  const margin = {
    accountValue: '10000',
    initialMargin: '100',
    maintenanceMargin: '50',
    marginRatio: 0.01,
    inLiquidation: false,
  }
  let events = 0
  const send = (d: Driver, e: InstrumentEvent): void => {
    d.send(e)
    events++
  }
  const warmup = Math.floor(EVENTS / 5)
  let start: { cpu: NodeJS.CpuUsage; events: number; submits: number } | undefined
  const profiler = new GCProfiler()
  for (let step = 0; events < EVENTS; step++) {
    if (start === undefined && events >= warmup) {
      start = { cpu: process.cpuUsage(), events, submits }
      profiler.start()
    }
    now += 100
    for (const u of units) {
      const d = u.driver
      if (MIX === 'backtest') {
        if (step % 20 === u.slot) {
          if (random() < 0.9) u.ticks += random() < 0.5 ? -7 : 7
          send(d, { type: 'INDEX', index: { price: (u.ticks / 10).toFixed(1), ts: now }, receivedAt: now })
        }
        if (step % 30 === u.slot) {
          const value = (10_000 + Math.round(random() * 100)).toString()
          send(d, {
            type: 'ACCOUNT',
            margin: { ...margin, accountValue: value },
            position: undefined,
            receivedAt: now,
          })
        }
        if (step % 100 === 0) send(d, { type: 'ORDERS', orders: u.venue.open(), receivedAt: now })
        for (let due = d.nextDue(), k = 0; due !== undefined && due <= now && k < 16; k++) {
          d.wake(now)
          events++
          due = d.nextDue()
        }
        continue
      }
      if (random() < 0.5) {
        u.bid += random() < 0.5 ? -10 : 10
        u.ask = u.bid + 20
      }
      send(d, {
        type: 'BBO',
        bbo: {
          bid: { price: (u.bid / 10).toFixed(1), qty: '1.5' },
          ask: { price: (u.ask / 10).toFixed(1), qty: '2' },
        },
        receivedAt: now,
      })
      if (step % 10 === u.slot) {
        if (random() < 0.7) u.ticks += random() < 0.5 ? -7 : 7
        send(d, { type: 'INDEX', index: { price: (u.ticks / 10).toFixed(1), ts: now }, receivedAt: now })
      }
      if (step % 50 === 0) send(d, { type: 'ACCOUNT', margin, position: undefined, receivedAt: now })
      if (step % 100 === 0) send(d, { type: 'ORDERS', orders: u.venue.open(), receivedAt: now })
      for (let due = d.nextDue(), k = 0; due !== undefined && due <= now && k < 16; k++) {
        d.wake(now)
        events++
        due = d.nextDue()
      }
    }
  }
  const cpu = process.cpuUsage(start?.cpu)
  const gcs = profiler.stop()
  const measured = events - (start?.events ?? 0)
  return {
    events: measured,
    cpuUsPerEvent: (cpu.user + cpu.system) / measured,
    bytesPerEvent: allocated(gcs, process.memoryUsage().heapUsed) / measured,
    submits: submits - (start?.submits ?? 0),
    fastContext: units.every((u) => hasFastProperties(u.driver.context)),
  }
}

interface GcRecord {
  beforeGC: { heapStatistics: { usedHeapSize: number } }
  afterGC: { heapStatistics: { usedHeapSize: number } }
}

/** Bytes allocated: what each collection found in use less what the previous one left, plus the rest. */
function allocated(gcs: { statistics: GcRecord[] } | undefined, usedAtEnd: number): number {
  const records = gcs?.statistics ?? []
  if (records.length === 0) return Number.NaN
  let bytes = 0
  let left = records[0]?.beforeGC.heapStatistics.usedHeapSize ?? 0
  // The first collection's start is unknown: count from it, and scale by the events after it.
  for (const r of records.slice(1)) {
    bytes += r.beforeGC.heapStatistics.usedHeapSize - left
    left = r.afterGC.heapStatistics.usedHeapSize
  }
  bytes += usedAtEnd - left
  return bytes
}

/**
 * `git archive <ref> src` unpacked where its imports resolve this tree's node_modules and tsx compiles
 * it as it compiles this tree (ESM, as package.json says; not under node_modules/, read as CommonJS).
 */
function exportTree(ref: string): string {
  const sha = execFileSync('git', ['rev-parse', '--short', ref], { encoding: 'utf8' }).trim()
  const dir = resolve('.scratch/machine-bench', sha)
  if (!existsSync(join(dir, 'src'))) {
    mkdirSync(dir, { recursive: true })
    execFileSync('sh', ['-c', `git archive ${sha} src | tar -x -C ${dir}`])
  }
  return dir
}

async function child(dir: string): Promise<void> {
  const mod: { MachineDriver: DriverClass } = await import(
    pathToFileURL(join(dir, 'src/research/backtest/machineDriver.ts')).href
  )
  console.log(JSON.stringify(drive(mod.MachineDriver)))
}

if (CHILD !== undefined) await child(CHILD)
else {
  const variants = [
    { label: `baseline (${BASELINE})`, dir: exportTree(BASELINE) },
    { label: 'this tree', dir: resolve('.') },
  ]
  const results = new Map<string, Figures[]>()
  const load0 = loadavg()[0] ?? 0
  for (let r = 0; r < ROUNDS; r++)
    for (const v of variants) {
      const out = spawnSync(
        process.execPath,
        [
          '--allow-natives-syntax',
          ...(PRETENURING === 'off' ? ['--no-allocation-site-pretenuring'] : []),
          '--import',
          'tsx',
          'bench/machineStep.bench.ts',
          '--child',
          v.dir,
          '--events',
          String(EVENTS),
          '--mix',
          MIX,
          '--instruments',
          String(INSTRUMENTS),
        ],
        { encoding: 'utf8' },
      )
      if (out.status !== 0) throw new Error(`${v.label} failed: ${out.stderr}`)
      const f = JSON.parse(out.stdout.trim().split('\n').pop() ?? '{}') as Figures
      results.set(v.label, [...(results.get(v.label) ?? []), f])
      console.log(
        `round ${r + 1} ${v.label}: ${f.cpuUsPerEvent.toFixed(2)} µs CPU/event, ${(f.bytesPerEvent / 1024).toFixed(2)} KB/event (${f.events} events, ${f.submits} submits; context ${f.fastContext ? 'fast' : 'a dictionary'})`,
      )
    }
  const best = (fs: Figures[], k: 'cpuUsPerEvent' | 'bytesPerEvent') => Math.min(...fs.map((f) => f[k]))
  console.log(
    `\nInstrument machine step, ${MIX} mix, ${INSTRUMENTS} instruments, ${EVENTS} events (a fifth warm-up), best of ${ROUNDS} rounds, V8's allocation-site pretenuring ${PRETENURING}, load ${load0.toFixed(1)}–${(loadavg()[0] ?? 0).toFixed(1)}:`,
  )
  console.log('| variant | µs CPU/event | KB allocated/event |\n|---|---|---|')
  for (const [label, fs] of results)
    console.log(
      `| ${label} | ${best(fs, 'cpuUsPerEvent').toFixed(2)} | ${(best(fs, 'bytesPerEvent') / 1024).toFixed(2)} |`,
    )
}
