/**
 * The mock catalogue's reference data, drawn once per seed: categories, tags (with their related tags),
 * series, collections, event creators, templates, and the topics events are generated from (crypto
 * daily/monthly, sports games, elections, macro, tech, weather, culture).
 */
import type { Series } from '../../catalogue/schemas/event.ts'
import type {
  Category,
  Chat,
  Collection,
  EventCreator,
  ImageOptimization,
  Tag,
  Template,
} from '../../catalogue/schemas/resources.ts'
import type { Random } from '../../random.ts'
import { amount, chance, compact, DAY_MS, hex, isoMicros, isoSeconds, slugify } from './wireFormat.ts'

export type TopicKind =
  | 'cryptoDaily'
  | 'cryptoMonthly'
  | 'game'
  | 'election'
  | 'macro'
  | 'tech'
  | 'weather'
  | 'culture'

/** One family of similar events (e.g. "Bitcoin up or down, daily"). */
export interface Topic {
  kind: TopicKind
  /** Bitcoin, NBA, France, Fed, OpenAI, New York, ... */
  subject: string
  /** Short code: BTC, NBA, ... */
  code: string
  category: Category
  tagIds: readonly string[]
  series: Series | undefined
  /** The series' chat, included only with include_chat. */
  seriesChat: Chat | undefined
  template: Template | undefined
  collection: Collection | undefined
  /** Team names (games), candidate names (elections), products (tech), titles (culture). */
  names: readonly string[]
  /** Relative frequency. */
  weight: number
}

export interface CatalogueUniverse {
  categories: readonly Category[]
  tags: readonly Tag[]
  /** Tags that share a topic with the key tag. */
  relatedTagIds: ReadonlyMap<string, readonly string[]>
  series: readonly Series[]
  collections: readonly Collection[]
  creators: readonly EventCreator[]
  templates: readonly Template[]
  topics: readonly Topic[]
  /** createdBy values of events: staff ids and creator addresses. */
  authors: readonly string[]
}

const IMAGE_BASE = 'https://polymarket-upload.s3.us-east-2.amazonaws.com'

export function imageUrl(slug: string): string {
  return `${IMAGE_BASE}/${slug}.png`
}

/** An ImageOptimization record for an uploaded image. */
export function imageOptimization(
  rng: Random,
  id: number,
  slug: string,
  field: string,
  relname: string,
  relId: number,
  updatedMs: number,
): ImageOptimization {
  const source = rng.int(40, 900)
  return compact({
    id: String(id),
    imageUrlSource: imageUrl(slug),
    imageUrlOptimized: `${IMAGE_BASE}/optimized/${slug}.webp`,
    imageSizeKbSource: source,
    imageSizeKbOptimized: Math.max(8, Math.round(source / rng.int(3, 8))),
    imageOptimizedComplete: true,
    imageOptimizedLastUpdated: isoMicros(updatedMs, rng.int(0, 999_999)),
    relID: relId,
    field,
    relname,
  })
}

const COINS = [
  ['Bitcoin', 'BTC', 'bitcoin'],
  ['Ethereum', 'ETH', 'ethereum'],
  ['Solana', 'SOL', 'solana'],
  ['XRP', 'XRP', 'ripple'],
] as const

const LEAGUES = [
  {
    code: 'NBA',
    sport: 'Basketball',
    recurrence: 'daily',
    teams: [
      'Lakers',
      'Celtics',
      'Warriors',
      'Knicks',
      'Nuggets',
      'Bucks',
      'Heat',
      'Suns',
      'Thunder',
      'Mavericks',
    ],
  },
  {
    code: 'NFL',
    sport: 'Football',
    recurrence: 'weekly',
    teams: ['Chiefs', 'Eagles', 'Bills', '49ers', 'Ravens', 'Lions', 'Cowboys', 'Packers', 'Bengals', 'Jets'],
  },
  {
    code: 'EPL',
    sport: 'Soccer',
    recurrence: 'weekly',
    teams: [
      'Arsenal',
      'Chelsea',
      'Liverpool',
      'Man City',
      'Man United',
      'Tottenham',
      'Newcastle',
      'Aston Villa',
    ],
  },
  {
    code: 'MLB',
    sport: 'Baseball',
    recurrence: 'daily',
    teams: [
      'Yankees',
      'Dodgers',
      'Red Sox',
      'Cubs',
      'Mets',
      'Braves',
      'Astros',
      'Giants',
      'Padres',
      'Phillies',
    ],
  },
] as const

const COUNTRIES = [
  'France',
  'Brazil',
  'Germany',
  'Japan',
  'Canada',
  'India',
  'Mexico',
  'Poland',
  'Chile',
  'Kenya',
]
const FIRST = [
  'Anna',
  'Marc',
  'Luis',
  'Sofia',
  'Kenji',
  'Amara',
  'Jonas',
  'Elena',
  'Rahul',
  'Claire',
  'Tomas',
  'Ines',
]
const LAST = [
  'Moreau',
  'Silva',
  'Weber',
  'Tanaka',
  'Tremblay',
  'Sharma',
  'Lopez',
  'Nowak',
  'Rojas',
  'Odhiambo',
]
const COMPANIES = [
  ['OpenAI', ['GPT-6', 'a browser', 'a device', 'an IPO']],
  ['Apple', ['a foldable iPhone', 'Apple Glasses', 'a new Siri']],
  ['Google', ['Gemini 4', 'a Pixel tablet', 'Waymo in NYC']],
  ['Tesla', ['a robotaxi app', 'the Model 2', 'Optimus sales']],
  ['Nvidia', ['a $6T market cap', 'the Rubin GPU']],
] as const
const CITIES = ['New York', 'London', 'Seoul', 'Chicago', 'Paris'] as const
const MOVIES = ['Starfall', 'The Long Road', 'Neon Harbor', 'Iron Orchard', 'Quiet Giants', 'Paper Kings']

/** Draws the reference data for one seed. `nextId` hands out ids for every resource. */
export function buildUniverse(rng: Random, nowMs: number): CatalogueUniverse {
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

  // --- topics ---
  const topics: Topic[] = []
  const topic = (t: Omit<Topic, 'seriesChat'>): void => {
    const seriesChat =
      t.series && chance(rng, 0.5)
        ? chat(`${t.series.title ?? t.subject} chat`, past(10, 200), false)
        : undefined
    topics.push({ ...t, seriesChat })
  }

  const crypto = category('Crypto')
  for (const [name, code, cg] of COINS) {
    const dailyTags = [tag('Crypto'), tag('Crypto Prices'), tag(name), tag('Up or Down'), tag('Recurring')]
    const dailySeries = series(`${name} Up or Down Daily`, 'daily', crypto, dailyTags, {
      pythTokenID: `0x${hex(rng, 64)}`,
      cgAssetName: cg,
    })
    topic({
      kind: 'cryptoDaily',
      subject: name,
      code,
      category: crypto,
      tagIds: dailyTags,
      series: dailySeries,
      template: template(`${name} Up or Down on {{date}}?`, 'Up or Down', dailySeries.slug ?? '', false),
      collection: undefined,
      names: [],
      weight: 7,
    })
    const monthlyTags = [tag('Crypto'), tag('Crypto Prices'), tag(name), tag('Hit Price')]
    topic({
      kind: 'cryptoMonthly',
      subject: name,
      code,
      category: crypto,
      tagIds: monthlyTags,
      series: series(`${name} Monthly Price`, 'monthly', crypto, monthlyTags, { cgAssetName: cg }),
      template: undefined,
      collection: undefined,
      names: [],
      weight: 2,
    })
  }

  const sports = category('Sports')
  for (const league of LEAGUES) {
    const tags = [tag('Sports'), tag(league.code), tag(league.sport), tag('Games')]
    topic({
      kind: 'game',
      subject: league.code,
      code: league.code,
      category: category(league.sport, sports),
      tagIds: tags,
      series: series(league.code, league.recurrence, sports, tags),
      template: undefined,
      collection: undefined,
      names: league.teams,
      weight: 7,
    })
  }

  const politics = category('Politics')
  const elections = collection('Global Elections', ['Politics', 'Elections'])
  for (const country of COUNTRIES) {
    const names: string[] = []
    for (let i = 0; i < 6; i++) names.push(`${rng.pick(FIRST)} ${rng.pick(LAST)}`)
    topic({
      kind: 'election',
      subject: country,
      code: country.slice(0, 3).toUpperCase(),
      category: category('World', politics),
      tagIds: [tag('Politics'), tag('Elections'), tag('World'), tag(country)],
      series: undefined,
      template: undefined,
      collection: elections,
      names: [...new Set(names)],
      weight: 0.6,
    })
  }

  const economy = category('Economics')
  const fedTags = [tag('Economy'), tag('Fed Rates'), tag('Macro')]
  topic({
    kind: 'macro',
    subject: 'Fed',
    code: 'FED',
    category: economy,
    tagIds: fedTags,
    series: series('Fed Interest Rates', 'monthly', economy, fedTags),
    template: undefined,
    collection: undefined,
    names: ['50+ bps decrease', '25 bps decrease', 'No change', '25+ bps increase'],
    weight: 3,
  })
  const cpiTags = [tag('Economy'), tag('Inflation'), tag('Macro')]
  topic({
    kind: 'macro',
    subject: 'CPI',
    code: 'CPI',
    category: economy,
    tagIds: cpiTags,
    series: series('US CPI', 'monthly', economy, cpiTags),
    template: undefined,
    collection: undefined,
    names: ['≤0.1%', '0.2%', '0.3%', '0.4%', '≥0.5%'],
    weight: 3,
  })

  const tech = category('Tech')
  const aiRace = collection('AI Race', ['Tech', 'AI'])
  for (const [company, products] of COMPANIES) {
    topic({
      kind: 'tech',
      subject: company,
      code: company.slice(0, 4).toUpperCase(),
      category: tech,
      tagIds: [tag('Tech'), tag('AI'), tag(company)],
      series: undefined,
      template: undefined,
      collection: chance(rng, 0.6) ? aiRace : undefined,
      names: products,
      weight: 1.5,
    })
  }

  const weather = category('Weather', category('Science'))
  for (const city of CITIES) {
    const tags = [tag('Weather'), tag('Daily Temperature'), tag(city), tag('Recurring')]
    const s = series(`${city} Daily Weather`, 'daily', weather, tags)
    topic({
      kind: 'weather',
      subject: city,
      code: city.slice(0, 3).toUpperCase(),
      category: weather,
      tagIds: tags,
      series: s,
      template: template(`Highest temperature in ${city} on {{date}}?`, '{{range}}', s.slug ?? '', true),
      collection: undefined,
      names: [],
      weight: 2,
    })
  }

  const culture = category('Culture')
  topic({
    kind: 'culture',
    subject: 'Box Office',
    code: 'BOX',
    category: culture,
    tagIds: [tag('Culture'), tag('Movies'), tag('Box Office')],
    series: undefined,
    template: undefined,
    collection: undefined,
    names: MOVIES,
    weight: 2,
  })

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
    categories: [...categories.values()],
    tags: [...tagsByLabel.values()],
    relatedTagIds,
    series: allSeries,
    collections,
    creators,
    templates,
    topics,
    authors,
  }
}
