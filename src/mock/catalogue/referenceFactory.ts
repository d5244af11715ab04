/**
 * Builders of the catalogue's reference resources (categories, tags, chats, templates, collections,
 * series), each drawing from the one seeded `Random` in call order, with the id counters and the
 * registries they fill. `buildUniverse` calls them while it lays out the topics.
 */
import type { Series } from '../../catalogue/schemas/event.ts'
import type { Category, Chat, Collection, Tag, Template } from '../../catalogue/schemas/resources.ts'
import type { Random } from '../../random.ts'
import { imageOptimization, imageUrl } from './catalogueImages.ts'
import { amount, chance, compact, DAY_MS, hex, isoMicros, isoSeconds, slugify } from './wireFormat.ts'

export interface ReferenceFactory {
  /** A Unix ms between `minDays` and `maxDays` before now. */
  past(minDays: number, maxDays: number): number
  /** A createdAt/updatedAt stamp within the day before `ms`. */
  createdStamp(ms: number): string
  category(label: string, parent?: Category): Category
  /** The id of the tag with this label (drawn on first use). */
  tag(label: string): string
  chat(name: string, startMs: number, live: boolean): Chat
  template(eventTitle: string, marketTitle: string, seriesSlug: string, negRisk: boolean): Template
  collection(title: string, tagLabels: readonly string[]): Collection
  series(
    title: string,
    recurrence: 'daily' | 'weekly' | 'monthly',
    cat: Category,
    tagIds: readonly string[],
    extra?: { pythTokenID?: string; cgAssetName?: string },
  ): Series
  /** Everything drawn so far, in draw order. */
  readonly categories: ReadonlyMap<string, Category>
  readonly tagsByLabel: ReadonlyMap<string, Tag>
  readonly templates: readonly Template[]
  readonly collections: readonly Collection[]
  readonly allSeries: readonly Series[]
}

export function createReferenceFactory(rng: Random, nowMs: number): ReferenceFactory {
  let nextCategoryId = 100
  let nextTagId = 1
  let nextSeriesId = 10_000
  let nextCollectionId = 300
  let nextImageId = 90_000
  const past = (minDays: number, maxDays: number): number => nowMs - rng.int(minDays, maxDays) * DAY_MS
  const createdStamp = (ms: number): string => isoMicros(ms - rng.int(0, 86_399) * 1000, rng.int(0, 999_999))

  // --- categories ---
  const categories = new Map<string, Category>()
  const category = (label: string, parent?: Category): Category => {
    const existing = categories.get(label)
    if (existing) return existing
    const created = past(400, 900)
    const c: Category = compact({
      id: String(nextCategoryId++),
      label,
      parentCategory: parent?.id ?? null,
      slug: slugify(label),
      publishedAt: isoSeconds(created).replace('T', ' ').replace('Z', '+00'),
      createdBy: chance(rng, 0.5) ? String(rng.int(1, 40)) : null,
      updatedBy: chance(rng, 0.3) ? String(rng.int(1, 40)) : null,
      createdAt: createdStamp(created),
      updatedAt: createdStamp(created + rng.int(0, 200) * DAY_MS),
    })
    categories.set(label, c)
    return c
  }

  // --- tags ---
  const tagsByLabel = new Map<string, Tag>()
  const tag = (label: string): string => {
    const existing = tagsByLabel.get(label)
    if (existing?.id) return existing.id
    nextTagId += rng.int(1, 40)
    const created = past(300, 1200)
    const t: Tag = compact({
      id: String(nextTagId),
      label,
      slug: slugify(label),
      forceShow: chance(rng, 0.2),
      forceHide: chance(rng, 0.5) ? false : undefined,
      isCarousel: chance(rng, 0.3) ? chance(rng, 0.3) : undefined,
      publishedAt: chance(rng, 0.7) ? isoSeconds(created).replace('T', ' ').replace('Z', '+00') : undefined,
      createdBy: chance(rng, 0.6) ? rng.int(1, 40) : undefined,
      updatedBy: chance(rng, 0.6) ? rng.int(1, 40) : undefined,
      createdAt: createdStamp(created),
      updatedAt: createdStamp(created + rng.int(0, 300) * DAY_MS),
    })
    tagsByLabel.set(label, t)
    return String(nextTagId)
  }

  // --- chats, templates, collections, series ---
  const chat = (name: string, startMs: number, live: boolean): Chat =>
    compact({
      id: String(rng.int(1000, 99_999)),
      channelId: hex(rng, 24),
      channelName: name,
      channelImage: chance(rng, 0.6) ? imageUrl(`chat-${slugify(name)}`) : null,
      live,
      startTime: isoSeconds(startMs),
      endTime: chance(rng, 0.5) ? isoSeconds(startMs + rng.int(1, 48) * 3_600_000) : null,
    })

  const templates: Template[] = []
  const template = (
    eventTitle: string,
    marketTitle: string,
    seriesSlug: string,
    negRisk: boolean,
  ): Template => {
    const t: Template = compact({
      id: String(templates.length + 1),
      eventTitle,
      eventSlug: slugify(eventTitle),
      eventImage: imageUrl(slugify(eventTitle)),
      marketTitle,
      description: `This market resolves according to the rules of "${eventTitle}".`,
      resolutionSource: chance(rng, 0.5) ? 'https://www.binance.com' : null,
      sortBy: chance(rng, 0.5) ? 'ascending' : null,
      seriesSlug,
      outcomes: '["Yes", "No"]',
      negRisk,
      showMarketImages: chance(rng, 0.5),
    })
    templates.push(t)
    return t
  }

  const collections: Collection[] = []
  const collection = (title: string, tagLabels: readonly string[]): Collection => {
    const id = nextCollectionId++
    const slug = slugify(title)
    const created = past(100, 500)
    const c: Collection = compact({
      id: String(id),
      ticker: slug,
      slug,
      title,
      subtitle: chance(rng, 0.4) ? `Everything on ${title}` : null,
      collectionType: chance(rng, 0.5) ? 'default' : null,
      description: `A curated collection: ${title}.`,
      tags: tagLabels.join(','),
      image: imageUrl(slug),
      icon: imageUrl(`${slug}-icon`),
      headerImage: chance(rng, 0.5) ? imageUrl(`${slug}-header`) : null,
      layout: 'default',
      active: true,
      closed: false,
      archived: false,
      new: chance(rng, 0.2),
      featured: chance(rng, 0.3),
      restricted: chance(rng, 0.5),
      isTemplate: false,
      templateVariables: null,
      publishedAt: isoSeconds(created).replace('T', ' ').replace('Z', '+00'),
      createdBy: String(rng.int(1, 40)),
      updatedBy: String(rng.int(1, 40)),
      createdAt: createdStamp(created),
      updatedAt: createdStamp(created + rng.int(0, 90) * DAY_MS),
      commentsEnabled: chance(rng, 0.5),
      imageOptimized: imageOptimization(rng, nextImageId++, slug, 'image', 'collections', id, created),
      iconOptimized: chance(rng, 0.5)
        ? imageOptimization(rng, nextImageId++, `${slug}-icon`, 'icon', 'collections', id, created)
        : null,
      headerImageOptimized: null,
    })
    collections.push(c)
    return c
  }

  const allSeries: Series[] = []
  const series = (
    title: string,
    recurrence: 'daily' | 'weekly' | 'monthly',
    cat: Category,
    tagIds: readonly string[],
    extra: { pythTokenID?: string; cgAssetName?: string } = {},
  ): Series => {
    nextSeriesId += rng.int(1, 30)
    const slug = slugify(title)
    const created = past(200, 800)
    const s: Series = compact({
      id: String(nextSeriesId),
      ticker: slug,
      slug,
      title,
      subtitle: chance(rng, 0.3)
        ? `${title}, every ${recurrence.replace('ly', '').replace('dai', 'day')}`
        : null,
      seriesType: 'single',
      recurrence,
      description: chance(rng, 0.6) ? `Recurring markets: ${title}.` : null,
      image: imageUrl(slug),
      icon: imageUrl(`${slug}-icon`),
      layout: 'default',
      active: true,
      closed: false,
      archived: false,
      new: chance(rng, 0.1),
      featured: chance(rng, 0.2),
      restricted: true,
      isTemplate: chance(rng, 0.2) ? false : undefined,
      templateVariables: chance(rng, 0.2) ? false : undefined,
      publishedAt: isoSeconds(created).replace('T', ' ').replace('Z', '+00'),
      createdBy: String(rng.int(1, 40)),
      updatedBy: String(rng.int(1, 40)),
      createdAt: createdStamp(created),
      updatedAt: createdStamp(created + rng.int(0, 100) * DAY_MS),
      commentsEnabled: false,
      competitive: String(rng.int(0, 1)),
      volume24hr: amount(rng, 80_000, 1.2, 4),
      volume: amount(rng, 4_000_000, 1.5, 4),
      liquidity: amount(rng, 150_000, 1, 4),
      startDate: isoSeconds(created),
      pythTokenID: extra.pythTokenID,
      cgAssetName: extra.cgAssetName,
      commentCount: rng.int(0, 3000),
      categories: chance(rng, 0.4) ? [cat] : undefined,
      tags: chance(rng, 0.3) ? tagIds.map((id) => tagById(id)) : undefined,
    })
    allSeries.push(s)
    return s
  }
  const tagById = (id: string): Tag => {
    for (const t of tagsByLabel.values()) if (t.id === id) return t
    throw new RangeError(`no tag ${id}`)
  }

  return {
    past,
    createdStamp,
    category,
    tag,
    chat,
    template,
    collection,
    series,
    categories,
    tagsByLabel,
    templates,
    collections,
    allSeries,
  }
}
