/**
 * An event's optional relations, in the official client's shapes: external partner mappings (attached
 * as `externalPartners` by `partner_slug`) and a game's best lines (`bestLines`, `include_best_lines`).
 */
import type { EventDetail } from '../../catalogue/schemas/event.ts'
import type { BestLine, ExternalPartner, Partner } from '../../catalogue/schemas/relations.ts'
import type { Random } from '../../random.ts'
import type { EventGenerator, Topic } from './catalogueTypes.ts'
import type { EventPlan } from './eventPlan.ts'
import { chance } from './wireFormat.ts'

export type { BestLine, ExternalPartner } from '../../catalogue/schemas/relations.ts'

export const PARTNER_SLUGS = ['espn', 'coingecko', 'decision-desk-hq', 'newsroom'] as const
type PartnerSlug = (typeof PARTNER_SLUGS)[number]

const PARTNERS: Readonly<Record<PartnerSlug, Partner>> = {
  espn: { id: 1, slug: 'espn', name: 'ESPN', createdAt: '2024-03-01T00:00:00Z' },
  coingecko: { id: 2, slug: 'coingecko', name: 'CoinGecko', createdAt: '2024-05-14T00:00:00Z' },
  'decision-desk-hq': {
    id: 3,
    slug: 'decision-desk-hq',
    name: 'Decision Desk HQ',
    createdAt: '2024-08-20T00:00:00Z',
  },
  newsroom: { id: 4, slug: 'newsroom', name: 'Newsroom', createdAt: '2025-01-09T00:00:00Z' },
}

/** The mapping of event `id` to a partner's own id for it, keyed by partner slug (some events have none). */
export function partnersFor(
  g: EventGenerator,
  topic: Topic,
  id: string,
  createdAt: string | null | undefined,
): Record<string, ExternalPartner[]> {
  const { rng } = g
  const out: Record<string, ExternalPartner[]> = {}
  const slug: PartnerSlug =
    topic.kind === 'game'
      ? 'espn'
      : topic.kind.startsWith('crypto')
        ? 'coingecko'
        : topic.kind === 'election'
          ? 'decision-desk-hq'
          : 'newsroom'
  if (chance(rng, 0.6)) {
    const partner = PARTNERS[slug]
    out[slug] = [
      {
        // One mapping per (event, partner): a derived id needs no draw.
        id: Number(id) * PARTNER_SLUGS.length + PARTNER_SLUGS.indexOf(slug),
        eventId: id,
        partnerId: partner.id,
        externalId: String(rng.int(100_000, 9_999_999)),
        partner,
        createdAt: createdAt ?? null,
        updatedAt: createdAt ?? null,
      },
    ]
  }
  return out
}

/** A game's lines (spreads, totals): one per market with a line. */
export function bestLinesFor(rng: Random, event: EventDetail, plan: EventPlan): BestLine[] | undefined {
  if (!plan.game) return undefined
  return (event.markets ?? [])
    .filter((m) => m.line !== undefined && m.line !== null)
    .map((m) => ({
      // Market id × 1000 + a draw: unique per market, and the draw keeps later events of a seed as before.
      id: String(Number(m.id) * 1000 + rng.int(400, 600)),
      lineType: m.sportsMarketType ?? null,
      line: m.line ?? 0,
    }))
}
