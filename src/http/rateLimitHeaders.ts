/**
 * The venue's `Poly-RateLimit-*` response headers, read into a typed observation the bot's limiter can
 * correct its window with. The names follow the official client's newer `parseRateLimitHeaders`
 * (limit, remaining, reset, tier, warning); 0.2.0 ships none and the public docs list none, so every
 * field is optional and an answer without them yields nothing.
 */
import type { HttpResponse } from './transport.ts'

export interface RateLimitObservation {
  /** Tokens per window the venue grants this caller. */
  limit?: number | undefined
  /** Tokens left in the current window, by the venue's count. */
  remaining?: number | undefined
  /** Ms until the window resets (the header is seconds). */
  resetMs?: number | undefined
  /** The caller's tier name. */
  tier?: string | undefined
  /** The venue's warning text (close to the limit). */
  warning?: string | undefined
}

const MAX_TOKENS = 1e9
const MAX_RESET_S = 86_400

function header(h: HttpResponse['headers'], name: string): string | undefined {
  const v = h[name]
  const s = Array.isArray(v) ? v[0] : v
  return s === undefined || s.trim() === '' ? undefined : s.trim()
}

function count(s: string | undefined, max: number): number | undefined {
  if (s === undefined || !/^\d+(\.\d+)?$/.test(s)) return undefined
  const n = Number(s)
  return n <= max ? n : undefined
}

/** The observation in an answer's headers, or undefined when it carries none (or none readable). */
export function parseRateLimitHeaders(headers: HttpResponse['headers']): RateLimitObservation | undefined {
  const limit = count(header(headers, 'poly-ratelimit-limit'), MAX_TOKENS)
  const remaining = count(header(headers, 'poly-ratelimit-remaining'), MAX_TOKENS)
  const resetS = count(header(headers, 'poly-ratelimit-reset'), MAX_RESET_S)
  const tier = header(headers, 'poly-ratelimit-tier')?.slice(0, 64)
  const warning = header(headers, 'poly-ratelimit-warning')?.slice(0, 256)
  if ([limit, remaining, resetS, tier, warning].every((v) => v === undefined)) return undefined
  const o: RateLimitObservation = {}
  if (limit !== undefined) o.limit = Math.floor(limit)
  if (remaining !== undefined) o.remaining = Math.floor(remaining)
  if (resetS !== undefined) o.resetMs = Math.ceil(resetS * 1000)
  if (tier !== undefined) o.tier = tier
  if (warning !== undefined) o.warning = warning
  return o
}
