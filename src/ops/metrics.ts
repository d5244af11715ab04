/**
 * The bot's Prometheus metrics. Every bot gets its own prom-client `Registry` (never the global
 * default), so tests and several bots in one process cannot collide. The runtime feeds values through
 * the typed helpers below; values that change continuously (quote age, limiter window) are computed at
 * scrape time from what the runtime last reported, so a stalled runtime shows up as a growing age
 * instead of a frozen number.
 */
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { Alert, AlertSink } from '../alerts/alert.ts'
import { type Clock, systemClock } from '../clock.ts'

/** Prefix of every metric name, including the process default metrics. */
export const METRIC_PREFIX = 'perpbot_'

/** The limiter's two budgets: per-client (IP) request weight and per-account action weight. */
export type LimiterBudget = 'request' | 'action'

export const LIMITER_BUDGETS: readonly LimiterBudget[] = ['request', 'action']

export interface BudgetUsage {
  /** Weight spent in the current window. */
  used: number
  /** Weight allowed per window. */
  capacity: number
}

/** Read at every scrape; a budget left out keeps its last value. */
export type LimiterSource = () => Partial<Record<LimiterBudget, BudgetUsage>>

/** A limiter as the gauges read it: each budget's weight used and its limit per window. */
export interface LimiterReading {
  state(): Record<LimiterBudget, { used: number; limit: number }>
}

/** How a submitted batch ended, as a whole (per-order rejections inside an `ok` batch are data). */
export type BatchOutcome = 'ok' | 'error' | 'unknown'

/** Batch sizes around the `1 + floor(n / 20)` request-weight steps, up to the 200-order cap. */
export const BATCH_SIZE_BUCKETS: readonly number[] = [1, 5, 10, 19, 20, 39, 40, 59, 60, 99, 100, 199, 200]

/** Reprice latency in ms: pure decision code, expected well under a few ms. */
export const REPRICE_LATENCY_BUCKETS_MS: readonly number[] = [
  0.1, 0.25, 0.5, 1, 2, 3, 5, 7.5, 10, 15, 20, 30, 50,
]

export interface BotMetricsOptions {
  /** Reads time for quote ages (default: the system clock). */
  clock?: Clock | undefined
  /** Register the process default metrics (`perpbot_process_*`, `perpbot_nodejs_*`). Default true. */
  defaultMetrics?: boolean | undefined
  /**
   * State paths to export as 0 from an instrument's first report, so dashboards see every series
   * before the state is first entered. States not listed appear once entered.
   */
  instrumentStates?: readonly string[] | undefined
}

/** The prom-client objects, for callers that need more than the helpers. */
export interface BotMetricObjects {
  instrumentState: Gauge<'instrument' | 'state'>
  quoteAgeSeconds: Gauge<'instrument'>
  marginRatio: Gauge
  inLiquidation: Gauge
  limiterWeightUsed: Gauge<'budget'>
  limiterWeightCapacity: Gauge<'budget'>
  rateLimited: Counter<'code'>
  batchSize: Histogram<'command'>
  batches: Counter<'command' | 'outcome'>
  unknownOutcomes: Counter<'command'>
  alerts: Counter<'severity' | 'key'>
  repriceLatencyMs: Histogram<'instrument'>
}

export interface BotMetrics {
  readonly registry: Registry
  readonly metrics: BotMetricObjects
  /**
   * `perpbot_instrument_state{instrument,state}` is 1 for the current state path and 0 for every other
   * state this instrument has been in (or that was listed in `instrumentStates`).
   */
  setInstrumentState(instrument: string, state: string): void
  /** Drops every series of an instrument (it was removed from the bot). */
  removeInstrument(instrument: string): void
  /** When the instrument's quotes were last confirmed on the book (Unix ms); undefined = no quotes. */
  setLastQuoteAt(instrument: string, atMs: number | undefined): void
  /** Margin ratio (maintenance / equity; NaN when unknown, +Inf when equity is gone) and liquidation flag. */
  setAccount(account: { marginRatio: number | undefined; inLiquidation: boolean }): void
  /** Pushes one budget's usage now. */
  setLimiterUsage(budget: LimiterBudget, usage: BudgetUsage): void
  /** Pulls the limiter's usage at every scrape instead (or as well); undefined removes the source. */
  setLimiterSource(source: LimiterSource | undefined): void
  /** Reads this limiter's budgets at every scrape (its source). */
  watchLimiter(limiter: LimiterReading): void
  /** One HTTP 429, by its error code (`ip_rate_limited`, `action_rate_limited`, `open_orders_limit`, ...). */
  recordRateLimited(code: string): void
  /** One submitted batch: its size, and how it ended; `unknown` also counts an unknown outcome. */
  recordBatch(batch: { command: string; size: number; outcome: BatchOutcome }): void
  /** One alert; the key label is the key's family (text before the first `:`), to bound cardinality. */
  recordAlert(alert: Pick<Alert, 'severity' | 'key'>): void
  /** Time one reprice decision took, in ms. */
  observeRepriceLatency(instrument: string, ms: number): void
}

/** Creates a bot's metrics on a fresh registry. */
export function createBotMetrics(options: BotMetricsOptions = {}): BotMetrics {
  const clock = options.clock ?? systemClock
  const knownStates = options.instrumentStates ?? []
  const registry = new Registry()
  const registers = [registry]
  if (options.defaultMetrics ?? true) collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX })

  const statesSeen = new Map<string, Set<string>>()
  /** The state each instrument's series last said: an unchanged state sets nothing (1,000 gauges a second). */
  const stateSet = new Map<string, string>()
  const lastQuoteAt = new Map<string, number>()
  const pushedUsage = new Map<LimiterBudget, BudgetUsage>()
  let limiterSource: LimiterSource | undefined

  // Usage for one budget at scrape time: the source wins, else the last pushed value.
  const usageAt = (budget: LimiterBudget): BudgetUsage | undefined => {
    const pulled = limiterSource?.()[budget]
    if (pulled) pushedUsage.set(budget, pulled)
    return pushedUsage.get(budget)
  }

  const metrics: BotMetricObjects = {
    instrumentState: new Gauge({
      name: `${METRIC_PREFIX}instrument_state`,
      help: 'Instrument actor state: 1 for the current state path, 0 for the others',
      labelNames: ['instrument', 'state'] as const,
      registers,
    }),
    quoteAgeSeconds: new Gauge({
      name: `${METRIC_PREFIX}quote_age_seconds`,
      help: 'Seconds since the instrument last confirmed its quotes on the book',
      labelNames: ['instrument'] as const,
      registers,
      collect() {
        this.reset()
        const now = clock.now()
        for (const [instrument, at] of lastQuoteAt) this.set({ instrument }, Math.max(0, (now - at) / 1000))
      },
    }),
    marginRatio: new Gauge({
      name: `${METRIC_PREFIX}margin_ratio`,
      help: 'Total maintenance margin / total account value (1 = liquidation threshold; NaN = unknown)',
      registers,
    }),
    inLiquidation: new Gauge({
      name: `${METRIC_PREFIX}in_liquidation`,
      help: '1 while the exchange reports the account under liquidation',
      registers,
    }),
    limiterWeightUsed: new Gauge({
      name: `${METRIC_PREFIX}limiter_weight_used`,
      help: 'Weight spent in the current limiter window, per budget',
      labelNames: ['budget'] as const,
      registers,
      collect() {
        for (const budget of LIMITER_BUDGETS) {
          const u = usageAt(budget)
          if (u) this.set({ budget }, u.used)
        }
      },
    }),
    limiterWeightCapacity: new Gauge({
      name: `${METRIC_PREFIX}limiter_weight_capacity`,
      help: 'Weight allowed per limiter window, per budget',
      labelNames: ['budget'] as const,
      registers,
      collect() {
        for (const budget of LIMITER_BUDGETS) {
          const u = usageAt(budget)
          if (u) this.set({ budget }, u.capacity)
        }
      },
    }),
    rateLimited: new Counter({
      name: `${METRIC_PREFIX}rate_limited_total`,
      help: 'HTTP 429 answers, by error code',
      labelNames: ['code'] as const,
      registers,
    }),
    batchSize: new Histogram({
      name: `${METRIC_PREFIX}batch_size`,
      help: 'Orders per submitted batch, by command',
      labelNames: ['command'] as const,
      buckets: [...BATCH_SIZE_BUCKETS],
      registers,
    }),
    batches: new Counter({
      name: `${METRIC_PREFIX}batches_total`,
      help: 'Submitted batches, by command and outcome (ok | error | unknown)',
      labelNames: ['command', 'outcome'] as const,
      registers,
    }),
    unknownOutcomes: new Counter({
      name: `${METRIC_PREFIX}unknown_outcomes_total`,
      help: 'Commands sent whose outcome is unknown (reconciled before any resend), by command',
      labelNames: ['command'] as const,
      registers,
    }),
    alerts: new Counter({
      name: `${METRIC_PREFIX}alerts_total`,
      help: 'Alerts raised, by severity and key family',
      labelNames: ['severity', 'key'] as const,
      registers,
    }),
    repriceLatencyMs: new Histogram({
      name: `${METRIC_PREFIX}reprice_latency_ms`,
      help: 'Time to compute one reprice decision, in milliseconds',
      labelNames: ['instrument'] as const,
      buckets: [...REPRICE_LATENCY_BUCKETS_MS],
      registers,
    }),
  }
  metrics.marginRatio.set(Number.NaN)
  metrics.inLiquidation.set(0)

  return {
    registry,
    metrics,
    setInstrumentState(instrument, state) {
      if (stateSet.get(instrument) === state) return
      stateSet.set(instrument, state)
      let seen = statesSeen.get(instrument)
      if (!seen) {
        seen = new Set(knownStates)
        statesSeen.set(instrument, seen)
      }
      seen.add(state)
      for (const s of seen) metrics.instrumentState.set({ instrument, state: s }, s === state ? 1 : 0)
    },
    removeInstrument(instrument) {
      for (const s of statesSeen.get(instrument) ?? [])
        metrics.instrumentState.remove({ instrument, state: s })
      statesSeen.delete(instrument)
      stateSet.delete(instrument)
      lastQuoteAt.delete(instrument)
      metrics.quoteAgeSeconds.remove({ instrument })
      metrics.repriceLatencyMs.remove({ instrument })
    },
    setLastQuoteAt(instrument, atMs) {
      if (atMs === undefined) lastQuoteAt.delete(instrument)
      else lastQuoteAt.set(instrument, atMs)
    },
    setAccount({ marginRatio, inLiquidation }) {
      metrics.marginRatio.set(marginRatio ?? Number.NaN)
      metrics.inLiquidation.set(inLiquidation ? 1 : 0)
    },
    setLimiterUsage(budget, usage) {
      pushedUsage.set(budget, { used: usage.used, capacity: usage.capacity })
    },
    setLimiterSource(source) {
      limiterSource = source
    },
    watchLimiter(limiter) {
      limiterSource = () => {
        const s = limiter.state()
        return {
          request: { used: s.request.used, capacity: s.request.limit },
          action: { used: s.action.used, capacity: s.action.limit },
        }
      }
    },
    recordRateLimited(code) {
      metrics.rateLimited.inc({ code })
    },
    recordBatch({ command, size, outcome }) {
      metrics.batchSize.observe({ command }, size)
      metrics.batches.inc({ command, outcome })
      if (outcome === 'unknown') metrics.unknownOutcomes.inc({ command })
    },
    recordAlert({ severity, key }) {
      metrics.alerts.inc({ severity, key: alertKeyFamily(key) })
    },
    observeRepriceLatency(instrument, ms) {
      metrics.repriceLatencyMs.observe({ instrument }, ms)
    },
  }
}

/** `withdrawal:42` → `withdrawal`: episode keys carry ids, which would make unbounded label values. */
export function alertKeyFamily(key: string): string {
  const i = key.indexOf(':')
  return i < 0 ? key : key.slice(0, i)
}

/** An `AlertSink` that only counts alerts (fan it out beside the real sinks). */
export function metricsAlertSink(metrics: Pick<BotMetrics, 'recordAlert'>): AlertSink {
  return {
    send(alert) {
      metrics.recordAlert(alert)
    },
  }
}

/** An XState state value (a string, or nested objects for compound and parallel states). */
export type StateValueLike = string | { readonly [key: string]: StateValueLike | undefined }

/**
 * Flattens a state value into a dotted path: compound states nest (`halted.idle`), parallel regions
 * (an object with several keys) are joined in definition order without their region names, and
 * regions listed in `ignoreRegions` are left out, so with `['ticker']`
 * `{ active: { risk: 'widened', work: 'repricing', ticker: 'waiting' } }` becomes
 * `active.widened.repricing`.
 */
export function formatStatePath(value: StateValueLike, ignoreRegions: readonly string[] = []): string {
  if (typeof value === 'string') return value
  // One pass without intermediate arrays: `/status` and the metrics format every instrument's path.
  let regions = 0
  let onlyKey = ''
  let onlyChild: StateValueLike = ''
  for (const key in value) {
    const child = value[key]
    if (child === undefined) continue
    regions++
    onlyKey = key
    onlyChild = child
  }
  if (regions === 1) {
    const rest = formatStatePath(onlyChild, ignoreRegions)
    return rest === '' ? onlyKey : `${onlyKey}.${rest}`
  }
  let path = ''
  for (const key in value) {
    const child = value[key]
    if (child === undefined || ignoreRegions.includes(key)) continue
    const part = formatStatePath(child, ignoreRegions)
    if (part !== '') path = path === '' ? part : `${path}.${part}`
  }
  return path
}
