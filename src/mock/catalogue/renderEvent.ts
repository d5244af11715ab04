/**
 * Projects a stored event onto the two wire forms. Listing: no `liquidityAmm` and no AMM market fields
 * but `marketMakerAddress`; markets keep `clobRewards`/`fee_schedule`; chats, templates and
 * `bestLines` only by their include flags; `externalPartners` only with a partner slug (the relations
 * under the official client's keys and shapes, see docs/decisions.md). Single event: AMM
 * fields, chats and templates (unless explicitly excluded), no listing-only market relations. Key
 * order follows the stored order, so the same store gives byte-identical JSON.
 */
import { MARKET_DETAIL_FIELDS } from '../../catalogue/schemas/event.ts'
import type { StoredEvent } from './generateEvent.ts'

export interface ListingIncludes {
  chat: boolean
  template: boolean
  bestLines: boolean
  /** When set, `externalPartners` is attached (possibly empty). */
  partnerSlug: string | undefined
}

export interface DetailIncludes {
  chat: boolean
  template: boolean
  bestLines: boolean
}

type Json = Record<string, unknown>

/**
 * Detail-only market keys the listing drops. `marketMakerAddress` stays: the real listing carries it
 * (`""` for CLOB-only markets) and the official client's market schema requires it as a string.
 */
const MARKET_DETAIL_KEYS: ReadonlySet<string> = new Set<string>(
  [...MARKET_DETAIL_FIELDS.string, ...MARKET_DETAIL_FIELDS.boolean, ...MARKET_DETAIL_FIELDS.number].filter(
    (k) => k !== 'marketMakerAddress',
  ),
)
const LISTING_ONLY_MARKET_KEYS: ReadonlySet<string> = new Set(['clobRewards', 'fee_schedule'])

/** Copies `obj` without undefined values and without `skip` keys. */
function copy(obj: object, skip: (key: string) => boolean): Json {
  const src = obj as Json
  const out: Json = {}
  for (const k in src) {
    const v = src[k]
    if (v !== undefined && !skip(k)) out[k] = v
  }
  return out
}

function renderSeries(series: unknown, chat: boolean): unknown {
  if (!Array.isArray(series)) return series
  return series.map((s: object) => copy(s, (k) => k === 'chats' && !chat))
}

export function renderListingEvent(stored: StoredEvent, inc: ListingIncludes): Json {
  const out = copy(
    stored.event,
    (k) => k === 'liquidityAmm' || (k === 'chats' && !inc.chat) || (k === 'templates' && !inc.template),
  )
  out.markets = (stored.event.markets ?? []).map((m) => copy(m, (k) => MARKET_DETAIL_KEYS.has(k)))
  out.series = renderSeries(stored.event.series, inc.chat)
  if (inc.partnerSlug !== undefined) out.externalPartners = stored.partners[inc.partnerSlug] ?? []
  if (inc.bestLines) out.bestLines = stored.bestLines ?? []
  return out
}

export function renderDetailEvent(stored: StoredEvent, inc: DetailIncludes): Json {
  const out = copy(stored.event, (k) => (k === 'chats' && !inc.chat) || (k === 'templates' && !inc.template))
  out.markets = (stored.event.markets ?? []).map((m) => copy(m, (k) => LISTING_ONLY_MARKET_KEYS.has(k)))
  out.series = renderSeries(stored.event.series, inc.chat)
  if (inc.bestLines) out.bestLines = stored.bestLines ?? []
  return out
}
