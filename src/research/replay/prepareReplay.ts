/**
 * Everything `simulate --data` checks and builds before the bot starts: the instruments (specs from
 * the manifest, the first price from the data), the window (inside the data), the gaps (missing
 * hours, named), and the replay driver with its fill model; a label for the report.
 */
import { z } from 'zod'
import { defineInstrument, type InstrumentSpec } from '../../mock/perps/index.ts'
import { ChunkCursor } from '../dataset/cursor.ts'
import { type DataKind, DatasetError, type DatasetInstrument, HOUR_MS } from '../dataset/format.ts'
import { DatasetStore } from '../dataset/store.ts'
import type { FillModelConfig, FillTier } from './fillModel.ts'
import { createReplayDriver, type DataGap, type ReplayDriver } from './replayDriver.ts'

export interface ReplayRequest {
  dir: string
  /** Symbols to replay; default every instrument in the dataset. */
  symbols?: readonly string[] | undefined
  /** Window (ms); default the whole span of the data. */
  from?: number | undefined
  to?: number | undefined
  /** `tier` undefined: `trades` when the data has trades for every instrument, else `klines`. */
  model: Omit<FillModelConfig, 'tier'> & { tier?: FillTier | undefined }
}

export interface PreparedReplay {
  instruments: InstrumentSpec[]
  startMs: number
  endMs: number
  driver: ReplayDriver
  /** Hours without data inside the window (the run crosses them holding prices, with no fills). */
  missing: DataGap[]
  label: string
}

const specInput = z.object({
  id: z.number().int(),
  symbol: z.string(),
  baseAsset: z.string(),
  category: z.enum(['equity', 'commodity', 'index', 'crypto']).catch('crypto'),
  priceDecimals: z.number().int(),
  quantityDecimals: z.number().int(),
  priceBounds: z.string().optional(),
  liquidationFee: z.string().optional(),
  maxOrderCount: z.number().int().optional(),
  minNotional: z.string().optional(),
  maxMarketNotional: z.string().optional(),
  maxLimitNotional: z.string().optional(),
  maxLeverage: z.number().int().optional(),
  fundingInterval: z.string().optional(),
  volatility: z.number().optional(),
  activityUsdPerSecond: z.number().optional(),
})

/** The mock instrument replaying `i`, starting at `firstPrice`. */
export function specOf(i: DatasetInstrument, firstPrice: string): InstrumentSpec {
  const parsed = specInput.safeParse({ ...i.spec, id: i.id, symbol: i.symbol, baseAsset: i.baseAsset })
  if (!parsed.success)
    throw new DatasetError(
      `the manifest's instrument ${i.symbol} is not usable: ${parsed.error.issues[0]?.message}`,
    )
  return defineInstrument({
    ...withoutUndefined(parsed.data),
    id: i.id,
    symbol: i.symbol,
    baseAsset: i.baseAsset,
    category: parsed.data.category,
    priceDecimals: i.priceDecimals,
    quantityDecimals: i.quantityDecimals,
    initialPrice: firstPrice,
  })
}

/** The object without its undefined fields (optional fields here are `exactOptionalPropertyTypes`). */
function withoutUndefined<T extends object>(o: T): { [K in keyof T]?: Exclude<T[K], undefined> } {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as {
    [K in keyof T]?: Exclude<T[K], undefined>
  }
}

const PRICE_KINDS: readonly DataKind[] = ['tickers', 'klines']

export function prepareReplay(r: ReplayRequest): PreparedReplay {
  const store = DatasetStore.open(r.dir)
  const known = Object.keys(store.manifest.instruments)
  const symbols = r.symbols ?? known
  for (const s of symbols)
    if (!known.includes(s))
      throw new DatasetError(
        `instrument ${s} is not in the dataset ${r.dir} (it has ${known.join(', ') || 'none'})`,
      )
  if (symbols.length === 0) throw new DatasetError(`the dataset ${r.dir} has no instruments`)
  const priceChunks = Object.values(store.manifest.chunks).filter(
    (c) => symbols.includes(c.symbol) && PRICE_KINDS.includes(c.kind),
  )
  if (priceChunks.length === 0)
    throw new DatasetError(`the dataset ${r.dir} has no prices for ${symbols.join(', ')}`)
  const dataFrom = Math.min(...priceChunks.map((c) => c.from))
  const dataTo = Math.max(...priceChunks.map((c) => c.to))
  const from = r.from ?? dataFrom
  const to = r.to ?? dataTo
  const span = `${iso(dataFrom)} to ${iso(dataTo)}`
  if (from >= to) throw new DatasetError(`the window ${iso(from)} to ${iso(to)} is empty`)
  if (from < dataFrom || to > dataTo)
    throw new DatasetError(`the window ${iso(from)} to ${iso(to)} lies outside the dataset (${span})`)
  const kinds = PRICE_KINDS.filter((k) => priceChunks.some((c) => c.kind === k))
  const missing: DataGap[] = []
  for (const symbol of symbols) {
    for (let h = Math.floor(from / HOUR_MS) * HOUR_MS; h < to; h += HOUR_MS) {
      const covered = kinds.some(
        (k) => store.chunks(k, symbol, Math.max(h, from), Math.min(h + HOUR_MS, to)).length > 0,
      )
      if (covered) continue
      const last = missing.at(-1)
      if (last !== undefined && last.symbol === symbol && last.to === h) last.to = Math.min(h + HOUR_MS, to)
      else missing.push({ symbol, from: Math.max(h, from), to: Math.min(h + HOUR_MS, to) })
    }
  }
  const instruments = symbols.map((s) => {
    const i = store.manifest.instruments[s]
    if (i === undefined) throw new DatasetError(`instrument ${s} is not in the dataset`)
    return specOf(i, firstPrice(store, s, from, to))
  })
  const hasTrades = symbols.every((s) => store.chunks('trades', s, from, to).length > 0)
  const hasBook = symbols.every((s) => store.chunks('bbo', s, from, to).length > 0)
  const m: FillModelConfig = { ...r.model, tier: r.model.tier ?? (hasTrades ? 'trades' : 'klines') }
  const driver = createReplayDriver({ store, symbols, from, to, model: m })
  const label =
    `fill model ${m.tier} (${m.tier === 'klines' ? 'fills only through our price by ≥ 1 tick' : `through fills; at our price after the queue ahead, ${hasBook ? 'from the recorded best bid/offer' : 'the whole level (no book recorded)'}`}; ` +
    `participation ${Number(m.participationPpm) / 10_000} %, order latency ${m.orderLatencyMs} ms, feed latency ${m.feedLatencyMs} ms); ` +
    `data ${r.dir} (${store.manifest.source}; ${symbols.length} instrument(s); ${iso(from)} to ${iso(to)})` +
    (missing.length > 0 ? `; ${missing.length} gap(s) crossed with prices held and no fills` : '')
  return { instruments, startMs: from, endMs: to, driver, missing, label }
}

function firstPrice(store: DatasetStore, symbol: string, from: number, to: number): string {
  const t = new ChunkCursor(store, 'tickers', symbol, from, to).peek()
  if (t !== undefined) return t.m
  const k = new ChunkCursor(store, 'klines', symbol, from - store.manifest.klineIntervalMs, to).peek()
  if (k !== undefined) return k.o
  throw new DatasetError(`the dataset has no price for ${symbol} in the window`)
}

export function iso(t: number): string {
  return new Date(t).toISOString().replace('.000Z', 'Z')
}
