/**
 * catalogue-bias: the index-peg ladder whose centre is shifted by a signal from the event catalogue.
 * The signal is the YES probability p of one market (its first outcome price, else the mid of best
 * bid/ask, else the last trade): shift = (p − 0.5) × 2 × maxBiasBps, rounded to whole bps (negated
 * when `invert`). A missing, stale or thin catalogue gives a neutral (zero) shift; no index, no quotes.
 * Quotes stay behind a fresh best bid/offer (`maxBboAgeMs`).
 */
import { z } from 'zod'
import { freshBbo } from '../src/strategy/book.ts'
import { buildLadder, freshIndexPrice, ladderMaxOrders } from '../src/strategy/ladder.ts'
import { bpsParam, ladderParamsShape, MsParam } from '../src/strategy/params.ts'
import { ageLimitEnds, earliestOf, ladderRevisitAt } from '../src/strategy/revisit.ts'
import {
  type CatalogueQuery,
  type CatalogueSignalEvent,
  type CatalogueSignalMarket,
  defineStrategy,
  type StrategySnapshot,
} from '../src/strategy/strategy.ts'

export const CatalogueBiasParams = z.strictObject({
  ...ladderParamsShape,
  /** The event to read; when omitted, the highest-24h-volume open event under `tagSlug`. */
  eventSlug: z.string().min(1).optional(),
  /** Catalogue tag searched when no `eventSlug` is given. */
  tagSlug: z.string().min(1).default('crypto'),
  /** The market within the event; when omitted, its highest-24h-volume market with a price. */
  marketSlug: z.string().min(1).optional(),
  /** Largest centre shift, at p = 0 or p = 1, bps. */
  maxBiasBps: bpsParam(0, 1_000).default(20),
  /** Shift down when YES is likely (for markets whose YES is bearish for the instrument). */
  invert: z.boolean().default(false),
  /** Markets with less 24h volume than this give no signal. */
  minVolume24hr: z.number().nonnegative().default(0),
  /** Catalogue refresh period requested from the bot. */
  refreshMs: z.number().int().min(1_000).default(60_000),
  /** A catalogue fetched longer ago than this is stale → neutral (0 = never stale). */
  maxCatalogueAgeMs: MsParam.default(600_000),
})
export type CatalogueBiasParams = z.infer<typeof CatalogueBiasParams>

const isProbability = (x: number | undefined): x is number =>
  x !== undefined && Number.isFinite(x) && x >= 0 && x <= 1

/** A market's YES probability, or undefined when it carries no usable price. */
export function yesProbability(m: CatalogueSignalMarket): number | undefined {
  const first = m.outcomePrices?.[0]
  if (isProbability(first)) return first
  if (isProbability(m.bestBid) && isProbability(m.bestAsk) && m.bestBid <= m.bestAsk)
    return (m.bestBid + m.bestAsk) / 2
  if (isProbability(m.lastTradePrice)) return m.lastTradePrice
  return undefined
}

function pickMarket(
  event: CatalogueSignalEvent,
  params: CatalogueBiasParams,
): CatalogueSignalMarket | undefined {
  const priced = event.markets.filter((m) => yesProbability(m) !== undefined)
  if (params.marketSlug !== undefined) return priced.find((m) => m.slug === params.marketSlug)
  // Highest volume first; ties keep catalogue order (sort is stable).
  return [...priced].sort((a, b) => (b.volume24hr ?? 0) - (a.volume24hr ?? 0))[0]
}

/** The signed centre shift in whole bps for this snapshot (0 = neutral). */
export function catalogueBiasBps(snapshot: StrategySnapshot, params: CatalogueBiasParams): number {
  const cat = snapshot.catalogue
  if (cat === undefined) return 0
  if (params.maxCatalogueAgeMs > 0 && snapshot.now - cat.fetchedAt > params.maxCatalogueAgeMs) return 0
  const events =
    params.eventSlug === undefined ? cat.events : cat.events.filter((e) => e.slug === params.eventSlug)
  for (const event of events) {
    const market = pickMarket(event, params)
    if (market === undefined) continue
    if ((market.volume24hr ?? 0) < params.minVolume24hr) return 0
    const p = yesProbability(market) as number
    const bias = Math.round((p - 0.5) * 2 * params.maxBiasBps)
    const signed = params.invert ? -bias : bias
    return Math.max(-params.maxBiasBps, Math.min(params.maxBiasBps, signed)) || 0
  }
  return 0
}

export function catalogueBiasQuery(params: CatalogueBiasParams): CatalogueQuery {
  if (params.eventSlug !== undefined) return { slugs: [params.eventSlug], refreshMs: params.refreshMs }
  return {
    tagSlug: params.tagSlug,
    closed: false,
    order: ['volume24hr'],
    ascending: false,
    limit: 10,
    refreshMs: params.refreshMs,
  }
}

export const strategy = defineStrategy({
  name: 'catalogue-bias',
  description:
    'Index-peg ladder whose centre moves up to maxBiasBps toward a catalogue market’s YES probability; neutral when the catalogue is missing or stale.',
  paramsSchema: CatalogueBiasParams,
  catalogue: catalogueBiasQuery,
  quote(snapshot, params) {
    const index = freshIndexPrice(snapshot, params.maxIndexAgeMs)
    if (index === undefined) return []
    return buildLadder(snapshot, params, {
      centre: index,
      reference: index,
      shiftBps: catalogueBiasBps(snapshot, params),
      bbo: freshBbo(snapshot, params.maxBboAgeMs),
    })
  },
  // Time changes the quotes only when the index, the best bid/offer or the catalogue turns stale.
  reads: ['catalogue', 'bbo'],
  maxOrders: (params) => ladderMaxOrders(params),
  revisitAt: (snapshot, params) =>
    earliestOf(
      ladderRevisitAt(snapshot, params),
      ageLimitEnds(snapshot.now, snapshot.catalogue?.fetchedAt, params.maxCatalogueAgeMs),
    ),
})
