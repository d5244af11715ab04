/**
 * The mock's per-client request-weight limit, as the venue's gateway applies it: a token bucket of
 * `capacityPerMinute` weight per client (`MockRequest.clientId`, the remote address over HTTP), each
 * request charged its weight from the shared table in `perps/weights.ts`. Over budget → 429
 * `ip_rate_limited` with `Retry-After` in whole seconds; a rejected request takes no tokens.
 * Catalogue routes (`/events...`) have their own bucket, off unless a capacity is given: Gamma's
 * limits are not the perps gateway's, and the spec states none.
 */
import type { Clock } from '../clock.ts'
import { fieldOf } from '../guards.ts'
import { DEFAULT_REQUEST_BUDGET_PER_MINUTE, endpointFor, PERPS_WEIGHTS } from '../perps/weights.ts'
import type { MockHandler, MockRequest, MockResponse } from './mockHttp.ts'
import { TokenBucket } from './tokenBucket.ts'

export interface RequestLimitOptions {
  clock: Pick<Clock, 'now'>
  /** Perps weight budget per client per minute. Default 1,000 (the venue's IP bucket). */
  capacityPerMinute?: number | undefined
  /** Catalogue requests per client per minute; undefined = catalogue not limited. */
  catalogueCapacityPerMinute?: number | undefined
  /** Overrides the weight of a perps request (default: `requestWeight`). */
  weightOf?: ((req: MockRequest) => number) | undefined
}

/** The state behind `withRequestLimit`, exposed for tests and `/__mock/state`. */
export interface RequestLimiter {
  /** Charges the request; returns the 429 to send when over budget, else undefined. */
  check(req: MockRequest): MockResponse | undefined
  /** Perps tokens a client has left (full capacity for a client never seen). */
  remaining(clientId: string): number
  /** Clients with a perps bucket (bounded by `MAX_TRACKED_CLIENTS` plus those still refilling). */
  readonly trackedClients: number
  readonly capacityPerMinute: number
  readonly catalogueCapacityPerMinute: number | undefined
}

/** True for catalogue routes (`/events` and below). */
export function isCatalogueRoute(path: string): boolean {
  return path === '/events' || path.startsWith('/events/')
}

/**
 * Batch routes whose request-level errors are a one-item array (perps-openapi-shapes §5: the modify
 * endpoints and leverage/batch); every other perps route answers with a plain error object.
 */
export function isArrayErrorRoute(method: string, path: string): boolean {
  return (
    method === 'PATCH' &&
    (path === '/v1/trade/orders' || path === '/v1/trade/orders-coid' || path === '/v1/trade/leverage/batch')
  )
}

/** A perps error response in the route's shape: `{status:"err", error}` or `[{status:"err", error}]`. */
export function perpsError(
  req: Pick<MockRequest, 'method' | 'path'>,
  status: number,
  error: string,
  headers?: Readonly<Record<string, string>> | undefined,
): MockResponse {
  const item = { status: 'err', error }
  const body = isArrayErrorRoute(req.method, req.path) ? [item] : item
  return headers ? { status, body, headers } : { status, body }
}

/** A catalogue error response: `{type, error}`. */
export function catalogueError(
  status: number,
  type: string,
  error: string,
  headers?: Readonly<Record<string, string>> | undefined,
): MockResponse {
  const body = { type, error }
  return headers ? { status, body, headers } : { status, body }
}

/**
 * The request weight of a perps request from the shared table: `n` is the batch size
 * (`body.op.args` when it is an array), `instrumentId` the `instrument_id` query parameter.
 * Routes missing from the table weigh 1.
 */
export function requestWeight(req: MockRequest): number {
  const endpoint = endpointFor(req.method, req.path)
  if (endpoint === undefined) return 1
  const args = fieldOf(fieldOf(req.body, 'op'), 'args')
  const n = Array.isArray(args) ? args.length : undefined
  const rawIid = req.query.get('instrument_id')
  const iid = rawIid === null || rawIid.trim() === '' ? undefined : Number(rawIid)
  const instrumentId = iid !== undefined && Number.isInteger(iid) ? iid : undefined
  const rawOid = req.query.get('order_id')
  const orderId = rawOid === null || rawOid.trim() === '' ? undefined : Number(rawOid)
  return PERPS_WEIGHTS[endpoint].request({ n, instrumentId, orderId })
}

/**
 * Client buckets kept before full ones are forgotten (a full bucket is what a new client gets, so
 * dropping it changes nothing): the maps stay bounded however many client ids are seen.
 */
export const MAX_TRACKED_CLIENTS = 10_000

/** Creates the per-client buckets. */
export function createRequestLimiter(options: RequestLimitOptions): RequestLimiter {
  const capacity = options.capacityPerMinute ?? DEFAULT_REQUEST_BUDGET_PER_MINUTE
  const catalogueCapacity = options.catalogueCapacityPerMinute
  const weightOf = options.weightOf ?? requestWeight
  const perps = new Map<string, TokenBucket>()
  const catalogue = new Map<string, TokenBucket>()
  const bucket = (map: Map<string, TokenBucket>, clientId: string, cap: number): TokenBucket => {
    let b = map.get(clientId)
    if (b === undefined) {
      if (map.size >= MAX_TRACKED_CLIENTS)
        for (const [id, other] of map) if (other.available >= other.capacity) map.delete(id)
      b = new TokenBucket(options.clock, cap)
      map.set(clientId, b)
    }
    return b
  }

  return {
    capacityPerMinute: capacity,
    catalogueCapacityPerMinute: catalogueCapacity,
    check(req) {
      if (isCatalogueRoute(req.path)) {
        if (catalogueCapacity === undefined) return undefined
        const r = bucket(catalogue, req.clientId, catalogueCapacity).take(1)
        if (r.ok) return undefined
        return catalogueError(429, 'rate limited', 'too many requests', {
          'retry-after': String(r.retryAfterSeconds),
        })
      }
      const r = bucket(perps, req.clientId, capacity).take(weightOf(req))
      if (r.ok) return undefined
      return perpsError(req, 429, 'ip_rate_limited', { 'retry-after': String(r.retryAfterSeconds) })
    },
    remaining(clientId) {
      return perps.get(clientId)?.available ?? capacity
    },
    get trackedClients() {
      return perps.size
    },
  }
}

/** Wraps `handler` so requests over the client's weight budget get a 429 instead. */
export function withRequestLimit(
  handler: MockHandler,
  limiter: RequestLimiter | RequestLimitOptions,
): MockHandler {
  const l = 'check' in limiter ? limiter : createRequestLimiter(limiter)
  return async (req) => {
    return l.check(req) ?? (await handler(req))
  }
}
