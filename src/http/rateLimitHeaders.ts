/**
 * The venue's `Poly-RateLimit-*` response headers, read with the official client's meaning
 * (`parseRateLimitHeaders` of the newer official clients): the state of the **signer's** order/cancel
 * token bucket, not of the per-IP request weight. `Remaining` is the signer's tokens left and can be
 * negative (a debt the bucket must refill first); `Reset` is a Unix timestamp in seconds, when the
 * current wait ends; `Tier` the signer's tier; `Warning: true` means the venue runs in warning mode and
 * would have refused this request. There is no `Limit` header. An answer without any of them yields
 * nothing.
 */
import type { HttpResponse } from './transport.ts'

export interface RateLimitObservation {
  /** The signer's tokens left, by the venue's count; negative is a debt. */
  remaining?: number | undefined
  /** When the current wait ends, Unix ms (the header is Unix seconds). */
  resetAtMs?: number | undefined
  /** The signer's tier name. */
  tier?: string | undefined
  /** The venue runs in warning mode and would have refused this request. */
  warning: boolean
}

/** Counts beyond this are no count (a hostile or broken header). */
const MAX_TOKENS = 1e9
/** Unix seconds beyond this (year 5138) are no time. */
const MAX_UNIX_S = 1e11

function header(h: HttpResponse['headers'], name: string): string | undefined {
  const v = h[name]
  const s = Array.isArray(v) ? v[0] : v
  return s === undefined || s.trim() === '' ? undefined : s.trim()
}

/** A finite number, as the official parser reads it (`Number(value)`), within ±`max`. */
function numeric(s: string | undefined, max: number): number | undefined {
  if (s === undefined) return undefined
  const n = Number(s)
  return Number.isFinite(n) && Math.abs(n) <= max ? n : undefined
}

/** The observation in an answer's headers, or undefined when it carries none (or none readable). */
export function parseRateLimitHeaders(headers: HttpResponse['headers']): RateLimitObservation | undefined {
  const remaining = numeric(header(headers, 'poly-ratelimit-remaining'), MAX_TOKENS)
  const resetS = numeric(header(headers, 'poly-ratelimit-reset'), MAX_UNIX_S)
  const tier = header(headers, 'poly-ratelimit-tier')?.slice(0, 64)
  const warning = header(headers, 'poly-ratelimit-warning')?.toLowerCase() === 'true'
  if (remaining === undefined && resetS === undefined && tier === undefined && !warning) return undefined
  const o: RateLimitObservation = { warning }
  if (remaining !== undefined) o.remaining = Math.floor(remaining)
  if (resetS !== undefined && resetS > 0) o.resetAtMs = Math.ceil(resetS * 1000)
  if (tier !== undefined) o.tier = tier
  return o
}
