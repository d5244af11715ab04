/**
 * The mock catalogue's shared shapes, a leaf: the reference data (topics, universe), an event as the
 * mock keeps it, and the generation state. The modules that draw them import these types from here, so
 * no two of them import each other.
 */
import type { EventDetail, Series } from '../../catalogue/schemas/event.ts'
import type { BestLine, ExternalPartner } from '../../catalogue/schemas/relations.ts'
import type {
  Category,
  Chat,
  Collection,
  EventCreator,
  Tag,
  Template,
} from '../../catalogue/schemas/resources.ts'
import type { Random } from '../../random.ts'

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

/** An event as the mock keeps it. */
export interface StoredEvent {
  /** Single-event form; nested markets also carry the listing's `clobRewards` and `fee_schedule`. */
  event: EventDetail
  /** Links by partner slug. */
  partners: Readonly<Record<string, readonly ExternalPartner[]>>
  /** Games only. */
  bestLines: readonly BestLine[] | undefined
}

/** Mutable generation state shared by the initial draw and later `addEvent` calls. */
export interface EventGenerator {
  readonly rng: Random
  readonly nowMs: number
  readonly universe: CatalogueUniverse
  nextEventId: number
  nextMarketId: number
  nextImageId: number
  nextChatId: number
  /** Slugs in use (event slugs are unique). */
  readonly slugs: Set<string>
  /** Recently generated game events, for child "More Markets" events. */
  lastGame: { id: string; title: string; startMs: number } | undefined
}
