/**
 * The mock catalogue's reference data, drawn once per seed: categories, tags (with their related tags),
 * series, collections, event creators, templates, and the topics events are generated from (crypto
 * daily/monthly, sports games, elections, macro, tech, weather, culture).
 */
import type { EventCreator } from '../../catalogue/schemas/resources.ts'
import type { Random } from '../../random.ts'
import { imageUrl } from './catalogueImages.ts'
import { drawTopics } from './catalogueTopics.ts'
import type { CatalogueUniverse } from './catalogueTypes.ts'
import { createReferenceFactory } from './referenceFactory.ts'
import { FIRST, LAST } from './universeNames.ts'
import { chance, compact, DAY_MS, hex } from './wireFormat.ts'

export { imageOptimization, imageUrl } from './catalogueImages.ts'
export type { CatalogueUniverse, Topic, TopicKind } from './catalogueTypes.ts'

/** Draws the reference data for one seed. */
export function buildUniverse(rng: Random, nowMs: number): CatalogueUniverse {
  const ref = createReferenceFactory(rng, nowMs)
  const { past, createdStamp } = ref
  const topics = drawTopics(rng, ref)

  // --- related tags: tags sharing a topic ---
  const related = new Map<string, Set<string>>()
  for (const t of topics) {
    for (const a of t.tagIds) {
      const set = related.get(a) ?? new Set<string>()
      for (const b of t.tagIds) if (b !== a) set.add(b)
      related.set(a, set)
    }
  }
  const relatedTagIds = new Map<string, readonly string[]>()
  for (const [k, v] of related)
    relatedTagIds.set(
      k,
      [...v].sort((x, y) => Number(x) - Number(y)),
    )

  // --- creators and authors ---
  const creators: EventCreator[] = []
  for (let i = 0; i < 8; i++) {
    const handle = `${rng.pick(FIRST).toLowerCase()}${rng.int(1, 999)}`
    const created = past(30, 400)
    creators.push(
      compact({
        id: String(i + 1),
        creatorName: `${rng.pick(FIRST)} ${rng.pick(LAST)}`,
        creatorHandle: handle,
        creatorUrl: `https://x.com/${handle}`,
        creatorImage: chance(rng, 0.7) ? imageUrl(`creator-${handle}`) : null,
        createdAt: createdStamp(created),
        updatedAt: createdStamp(created + rng.int(0, 30) * DAY_MS),
      }),
    )
  }
  const authors = ['2', '17', '341', `0x${hex(rng, 40)}`, `0x${hex(rng, 40)}`, `0x${hex(rng, 40)}`]

  return {
    categories: [...ref.categories.values()],
    tags: [...ref.tagsByLabel.values()],
    relatedTagIds,
    series: [...ref.allSeries],
    collections: [...ref.collections],
    creators,
    templates: [...ref.templates],
    topics,
    authors,
  }
}
