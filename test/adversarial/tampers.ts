/**
 * Tampers of the hostile venue (hostileVenue.ts) and fault presets of the mock, one per hostile case
 * of issue 24. Each tamper is a small pure-ish factory; the ones that count keep their count inside.
 */
import type { FaultConfig } from '../../src/mock/faults.ts'
import { routeNameFor } from '../../src/mock/faults.ts'
import type { MockRequest } from '../../src/mock/mockHttp.ts'
import { perpsError } from '../../src/mock/requestLimiter.ts'
import { TAMPER_HEADER, type Tamper } from './hostileVenue.ts'

/** Matches requests by perps endpoint name (`cancelAll`, `setAutoCancel`, `createOrders`, ...). */
export const onEndpoints =
  (...names: string[]) =>
  (req: MockRequest): boolean =>
    names.includes(routeNameFor(req.method.toUpperCase(), req.path) ?? '')

export const onReads = (req: MockRequest): boolean => req.method.toUpperCase() === 'GET'

/**
 * Answers matching requests with a 429 in the venue's place (the mock never sees them): `Retry-After`
 * as given (none when undefined, the case "429 without Retry-After"), at most `count` times.
 */
export interface CountingTamper {
  readonly tamper: Tamper
  /** 429s answered so far. */
  readonly answered: number
}

export function rateLimited(o: {
  match: (req: MockRequest) => boolean
  retryAfterSeconds?: number | undefined
  count?: number | undefined
  code?: string | undefined
}): CountingTamper {
  let answered = 0
  const tamper: Tamper = (req) => {
    if (!o.match(req) || (o.count !== undefined && answered >= o.count)) return undefined
    answered++
    const headers: Record<string, string> = { [TAMPER_HEADER]: 'rateLimited' }
    if (o.retryAfterSeconds !== undefined) headers['retry-after'] = String(o.retryAfterSeconds)
    return perpsError(req, 429, o.code ?? 'ip_rate_limited', headers)
  }
  return {
    tamper,
    get answered() {
      return answered
    },
  }
}

/**
 * The venue lies about its time: `GET /v1/info/time` answers its real time plus `offsetMs` while the
 * exchange keeps checking signatures against its real clock (the mock's `clockOffsetMs` fault would
 * shift both). A lie beyond `perps.maxClockSkewMs` makes the bot refuse the venue clock.
 */
export function lyingClock(offsetMs: number): Tamper {
  return async (req, next) => {
    if (req.method.toUpperCase() !== 'GET' || req.path !== '/v1/info/time') return undefined
    const res = await next()
    const body = res.body as { time?: unknown } | undefined
    if (res.status !== 200 || typeof body?.time !== 'number') return res
    return { ...res, body: { ...body, time: body.time + offsetMs } }
  }
}

/**
 * Holds each matching answer `delayMs` (wall time) before it leaves: a venue that trickles its answers.
 * Timers are unref'd so a test that ends early does not hang on them.
 */
export function trickle(delayMs: number, match: (req: MockRequest) => boolean = () => true): Tamper {
  return async (req, next) => {
    if (!match(req)) return undefined
    await new Promise<void>((resolve) => setTimeout(resolve, delayMs).unref())
    return next()
  }
}

/** Fault presets of the mock (its own fault injection) for the hostile cases the tampers do not cover. */
export const HOSTILE_FAULTS = {
  /** A sequence gap on about every other push of every channel. */
  gapStorm: { rules: [], stream: { sequenceGap: 0.5 } },
  /** A burst of 429s on every read, with a long Retry-After. */
  readBurst: {
    rules: [
      { match: { kind: 'read' }, rateLimitBurst: { probability: 1, length: 1_000, retryAfterSeconds: 30 } },
    ],
  },
} as const satisfies Record<string, FaultConfig>
