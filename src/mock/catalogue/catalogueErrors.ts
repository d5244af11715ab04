/**
 * The catalogue's error answers, all with the spec's `{type, error}` body.
 */
import { json, type MockResponse } from '../mockHttp.ts'

export function catalogueError(status: number, type: string, error: string): MockResponse {
  return json(status, { type, error })
}

/** 422: offset, bad cursor, bad order fields, overlapping tags, bad recurrence, other bad filters. */
export function validationError(error: string): MockResponse {
  return catalogueError(422, 'validation error', error)
}

export function notFound(error: string): MockResponse {
  return catalogueError(404, 'not found', error)
}

/** 500, as on a database or cursor encoding failure. */
export function internalError(error: string): MockResponse {
  return catalogueError(500, 'internal error', error)
}

/** 503, as when keyset pagination is not configured. */
export function serviceUnavailable(error: string): MockResponse {
  return catalogueError(503, 'service unavailable', error)
}
