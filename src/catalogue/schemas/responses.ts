/**
 * Response envelopes of the catalogue endpoints and its error body.
 */
import { z } from 'zod'
import { EventSchema } from './event.ts'
import { TagSchema } from './resources.ts'

/** GET /events/keyset 200. Live responses also carry `$schema`, which passes through untouched. */
export const EventsKeysetResponseSchema = z.looseObject({
  events: z.array(EventSchema),
  /** Present only when the page is full; absent (or null) on the last page. */
  next_cursor: z.string().nullish(),
})
export type EventsKeysetResponse = z.infer<typeof EventsKeysetResponseSchema>

/** GET /events/{id}/tags 200. */
export const EventTagsResponseSchema = z.array(TagSchema)

/** Every non-2xx catalogue body: `type` is the error class ("validation error"), `error` the message. */
export const CatalogueErrorBodySchema = z.looseObject({
  type: z.string(),
  error: z.string().optional(),
})
export type CatalogueErrorBody = z.infer<typeof CatalogueErrorBodySchema>

/** The `type` values the spec names; others pass through as strings. */
export type CatalogueErrorType =
  | 'validation error'
  | 'internal error'
  | 'service unavailable'
  | 'not found'
  | (string & {})
