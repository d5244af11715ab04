/**
 * The `--data` flags of `perpbot simulate`: parsing, and preparing the replay (src/research/replay/)
 * with every dataset problem reported as one clear message (exit 2).
 */
import { resolve } from 'node:path'
import { InputValidationError } from '../../errors.ts'
import { DEFAULT_ENGINE, ENGINES, type Engine, isEngine } from '../../research/backtest/engine.ts'
import { DatasetError } from '../../research/dataset/format.ts'
import { DEFAULT_FILL_MODEL, type FillTier } from '../../research/replay/fillModel.ts'
import { type PreparedReplay, prepareReplay } from '../../research/replay/prepareReplay.ts'
import { parseTimeArg } from '../../research/timeArg.ts'
import { type CliContext, UsageError } from '../context.ts'

export const REPLAY_OPTIONS = {
  data: { type: 'string' },
  symbols: { type: 'string' },
  from: { type: 'string' },
  to: { type: 'string' },
  'fill-model': { type: 'string' },
  participation: { type: 'string', default: '100' },
  'order-latency': { type: 'string', default: '0' },
  'feed-latency': { type: 'string', default: '0' },
  engine: { type: 'string' },
} as const

export interface ReplayFlags {
  dir: string
  symbols: string[] | undefined
  from: string | undefined
  to: string | undefined
  tier: FillTier | undefined
  participationPct: number
  orderLatencyMs: number
  feedLatencyMs: number
  engine: Engine
}

interface ReplayValues {
  data?: string | undefined
  symbols?: string | undefined
  from?: string | undefined
  to?: string | undefined
  'fill-model'?: string | undefined
  participation?: string | undefined
  'order-latency'?: string | undefined
  'feed-latency'?: string | undefined
  engine?: string | undefined
}

export function parseReplayFlags(v: ReplayValues): ReplayFlags | undefined {
  if (v.data === undefined) {
    const stray = (['symbols', 'from', 'to', 'fill-model', 'engine'] as const).find((k) => v[k] !== undefined)
    if (stray !== undefined) throw new UsageError(`--${stray} needs --data DIR`)
    return undefined
  }
  const tier = v['fill-model']
  if (tier !== undefined && tier !== 'trades' && tier !== 'klines')
    throw new UsageError(`--fill-model must be trades or klines, got '${tier}'`)
  const engine = v.engine ?? DEFAULT_ENGINE
  if (!isEngine(engine)) throw new UsageError(`--engine must be ${ENGINES.join(' or ')}, got '${engine}'`)
  const num = (s: string | undefined, name: string, max: number, min = 0): number => {
    const x = Number(s)
    if (!Number.isFinite(x) || x < min || x > max)
      throw new UsageError(`--${name} must be a number from ${min} to ${max}, got '${s}'`)
    return x
  }
  return {
    dir: v.data,
    symbols: v.symbols?.split(',').map((s) => s.trim()),
    from: v.from,
    to: v.to,
    tier,
    participationPct: num(v.participation, 'participation', 100, 0.0001),
    orderLatencyMs: Math.round(num(v['order-latency'], 'order-latency', 60_000)),
    feedLatencyMs: Math.round(num(v['feed-latency'], 'feed-latency', 60_000)),
    engine,
  }
}

/** The prepared replay, or 'failed' after printing why (bad dataset, window, instrument). */
export function startReplay(f: ReplayFlags, ctx: Pick<CliContext, 'stderr'>): PreparedReplay | 'failed' {
  try {
    const now = Date.now()
    const model = {
      ...DEFAULT_FILL_MODEL,
      participationPpm: BigInt(Math.round(f.participationPct * 10_000)),
      orderLatencyMs: f.orderLatencyMs,
      feedLatencyMs: f.feedLatencyMs,
    }
    const request = {
      dir: resolve(f.dir),
      symbols: f.symbols,
      from: f.from === undefined ? undefined : parseTimeArg(f.from, now, '--from'),
      to: f.to === undefined ? undefined : parseTimeArg(f.to, now, '--to'),
    }
    const prepared = prepareReplay({ ...request, model: { ...model, tier: f.tier } })
    for (const g of prepared.missing)
      ctx.stderr(
        `gap in the data: ${g.symbol} has no prices from ${new Date(g.from).toISOString()} to ${new Date(g.to).toISOString()}; the run crosses it with prices held and no fills`,
      )
    return prepared
  } catch (e) {
    if (e instanceof DatasetError || e instanceof InputValidationError) {
      ctx.stderr(`perpbot simulate: ${e.message}`)
      return 'failed'
    }
    throw e
  }
}
