/**
 * An event's optional relations: external partner links (attached by `partner_slug`) and a game's
 * best lines (`include_best_lines`).
 */
import type { EventDetail } from '../../catalogue/schemas/event.ts'
import type { Random } from '../../random.ts'
import type { Topic } from './catalogueUniverse.ts'
import type { EventPlan } from './eventPlan.ts'
import type { EventGenerator } from './generateEvent.ts'
import { chance, scaledDecimal } from './wireFormat.ts'

/** An external partner's link to an event (attached by partner_slug; shape not shown by the spec). */
export interface ExternalPartnerLink {
  partnerSlug: string
  externalId: string
  url: string
}

/** One best line of a game (include_best_lines; shape not shown by the spec). */
export interface BestLine {
  marketId: string
  sportsMarketType: string
  line: number
  price: string
}

export function partnersFor(
  g: EventGenerator,
  topic: Topic,
  id: string,
): Record<string, ExternalPartnerLink[]> {
  const { rng } = g
  const out: Record<string, ExternalPartnerLink[]> = {}
  const slug =
    topic.kind === 'game'
      ? 'espn'
      : topic.kind.startsWith('crypto')
        ? 'coingecko'
        : topic.kind === 'election'
          ? 'decision-desk-hq'
          : 'newsroom'
  if (chance(rng, 0.6)) {
    const externalId = String(rng.int(100_000, 9_999_999))
    out[slug] = [
      { partnerSlug: slug, externalId, url: `https://partners.example/${slug}/${externalId}?event=${id}` },
    ]
  }
  return out
}

export function bestLinesFor(rng: Random, event: EventDetail, plan: EventPlan): BestLine[] | undefined {
  if (!plan.game) return undefined
  return (event.markets ?? [])
    .filter((m) => m.line !== undefined && m.line !== null)
    .map((m) => ({
      marketId: m.id,
      sportsMarketType: m.sportsMarketType ?? '',
      line: m.line ?? 0,
      price: scaledDecimal(rng.int(400, 600), 3),
    }))
}
