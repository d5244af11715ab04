/**
 * Wire schemas of the catalogue's small embedded resources: ImageOptimization, Category, Tag, Chat,
 * EventCreator, Template and Collection (spec "Resources and their fields"). Field lists are exported
 * so the mock generates exactly the fields the client knows.
 */
import { z } from 'zod'
import { DateTimeString, nullishFields } from './fields.ts'

// ---------------------------------------------------------------------------------------------------
// ImageOptimization
// ---------------------------------------------------------------------------------------------------

export const IMAGE_OPTIMIZATION_FIELDS = {
  string: ['imageUrlSource', 'imageUrlOptimized', 'imageOptimizedLastUpdated', 'field', 'relname'],
  number: ['imageSizeKbSource', 'imageSizeKbOptimized'],
  boolean: ['imageOptimizedComplete'],
  integer: ['relID'],
} as const

export const ImageOptimizationSchema = z.looseObject({
  /** The only required field. */
  id: z.string(),
  ...nullishFields(IMAGE_OPTIMIZATION_FIELDS.string, z.string()),
  /** Sizes in kilobytes. */
  ...nullishFields(IMAGE_OPTIMIZATION_FIELDS.number, z.number()),
  ...nullishFields(IMAGE_OPTIMIZATION_FIELDS.boolean, z.boolean()),
  ...nullishFields(IMAGE_OPTIMIZATION_FIELDS.integer, z.number().int()),
})
export type ImageOptimization = z.infer<typeof ImageOptimizationSchema>

// ---------------------------------------------------------------------------------------------------
// Category
// ---------------------------------------------------------------------------------------------------

export const CATEGORY_FIELDS = {
  string: ['id', 'label', 'parentCategory', 'slug', 'publishedAt', 'createdBy', 'updatedBy'],
  dateTime: ['createdAt', 'updatedAt'],
} as const

export const CategorySchema = z.looseObject({
  ...nullishFields(CATEGORY_FIELDS.string, z.string()),
  ...nullishFields(CATEGORY_FIELDS.dateTime, DateTimeString),
})
export type Category = z.infer<typeof CategorySchema>

// ---------------------------------------------------------------------------------------------------
// Tag
// ---------------------------------------------------------------------------------------------------

export const TAG_FIELDS = {
  string: ['id', 'label', 'slug', 'publishedAt'],
  boolean: ['forceShow', 'forceHide', 'isCarousel'],
  /** User ids, numbers here (strings on Category). */
  number: ['createdBy', 'updatedBy'],
  dateTime: ['createdAt', 'updatedAt'],
} as const

export const TagSchema = z.looseObject({
  ...nullishFields(TAG_FIELDS.string, z.string()),
  ...nullishFields(TAG_FIELDS.boolean, z.boolean()),
  ...nullishFields(TAG_FIELDS.number, z.number()),
  ...nullishFields(TAG_FIELDS.dateTime, DateTimeString),
})
export type Tag = z.infer<typeof TagSchema>

// ---------------------------------------------------------------------------------------------------
// Chat
// ---------------------------------------------------------------------------------------------------

export const CHAT_FIELDS = {
  string: ['id', 'channelId', 'channelName', 'channelImage'],
  boolean: ['live'],
  dateTime: ['startTime', 'endTime'],
} as const

export const ChatSchema = z.looseObject({
  ...nullishFields(CHAT_FIELDS.string, z.string()),
  ...nullishFields(CHAT_FIELDS.boolean, z.boolean()),
  ...nullishFields(CHAT_FIELDS.dateTime, DateTimeString),
})
export type Chat = z.infer<typeof ChatSchema>

// ---------------------------------------------------------------------------------------------------
// EventCreator
// ---------------------------------------------------------------------------------------------------

export const EVENT_CREATOR_FIELDS = {
  string: ['id', 'creatorName', 'creatorHandle', 'creatorUrl', 'creatorImage'],
  dateTime: ['createdAt', 'updatedAt'],
} as const

export const EventCreatorSchema = z.looseObject({
  ...nullishFields(EVENT_CREATOR_FIELDS.string, z.string()),
  ...nullishFields(EVENT_CREATOR_FIELDS.dateTime, DateTimeString),
})
export type EventCreator = z.infer<typeof EventCreatorSchema>

// ---------------------------------------------------------------------------------------------------
// Template
// ---------------------------------------------------------------------------------------------------

export const TEMPLATE_FIELDS = {
  string: [
    'id',
    'eventTitle',
    'eventSlug',
    'eventImage',
    'marketTitle',
    'description',
    'resolutionSource',
    'sortBy',
    'seriesSlug',
    'outcomes',
  ],
  boolean: ['negRisk', 'showMarketImages'],
} as const

export const TemplateSchema = z.looseObject({
  ...nullishFields(TEMPLATE_FIELDS.string, z.string()),
  ...nullishFields(TEMPLATE_FIELDS.boolean, z.boolean()),
})
export type Template = z.infer<typeof TemplateSchema>

// ---------------------------------------------------------------------------------------------------
// Collection
// ---------------------------------------------------------------------------------------------------

export const COLLECTION_FIELDS = {
  string: [
    'id',
    'ticker',
    'slug',
    'title',
    'subtitle',
    'collectionType',
    'description',
    'tags',
    'image',
    'icon',
    'headerImage',
    'layout',
    'templateVariables',
    'publishedAt',
    'createdBy',
    'updatedBy',
  ],
  boolean: ['active', 'closed', 'archived', 'new', 'featured', 'restricted', 'isTemplate', 'commentsEnabled'],
  dateTime: ['createdAt', 'updatedAt'],
  image: ['imageOptimized', 'iconOptimized', 'headerImageOptimized'],
} as const

export const CollectionSchema = z.looseObject({
  ...nullishFields(COLLECTION_FIELDS.string, z.string()),
  ...nullishFields(COLLECTION_FIELDS.boolean, z.boolean()),
  ...nullishFields(COLLECTION_FIELDS.dateTime, DateTimeString),
  ...nullishFields(COLLECTION_FIELDS.image, ImageOptimizationSchema),
})
export type Collection = z.infer<typeof CollectionSchema>
