/**
 * When time alone changes what an instrument actor would do, so it sleeps until then instead of
 * re-planning on a fixed tick. Two kinds of moments:
 *
 * - a plan is due: the strategy's answer may change (`revisitAt`, see `Strategy.revisitAt`), an order
 *   reaches `maxOrderAgeMs` (the quote diff refreshes it), or a new best bid/offer stored since the
 *   last plan has waited `recheckMs` (a BBO plans nothing by itself; see `bboStep`);
 * - the risk assessment may change: an input turns stale, or the minimum dwell in a raised mode ends.
 *
 * Pure: the machine schedules its `WAKE` for `nextTimeDue`, and `planStep` plans when `planTimeReached`.
 */
import type { Order } from '../../perps/schemas/orders.ts'
import { type InstrumentContext, marginSeenAt, reads } from './context.ts'

/** When the next order reaches `maxOrderAgeMs` (undefined: no orders or no limit). */
export function nextExpiry(orders: readonly Order[], maxOrderAgeMs: number): number | undefined {
  if (maxOrderAgeMs <= 0 || orders.length === 0) return undefined
  let oldest = Number.POSITIVE_INFINITY
  for (const o of orders) oldest = Math.min(oldest, o.uts)
  return oldest + maxOrderAgeMs
}

/** When a best bid/offer stored since the last plan has waited a tick (undefined: none waits). */
function bboDue(ctx: InstrumentContext): number | undefined {
  return ctx.bboPendingSince === undefined ? undefined : ctx.bboPendingSince + ctx.deps.recheckMs
}

const reached = (t: number | undefined, now: number): boolean => t !== undefined && t <= now

/**
 * A plan is due by time alone: the strategy's revisit, an order's maximum age or a waiting BBO's
 * moment has come.
 */
export function planTimeReached(ctx: InstrumentContext, now: number): boolean {
  return (
    reached(ctx.revisitAt, now) ||
    reached(nextExpiry(ctx.openOrders, ctx.deps.maxOrderAgeMs), now) ||
    reached(bboDue(ctx), now)
  )
}

/** The earlier of `next` and `t`, counting only moments after `now`. */
const earliestAfter = (next: number | undefined, t: number | undefined, now: number): number | undefined =>
  t !== undefined && t > now && (next === undefined || t < next) ? t : next

/** `at + limit + 1`: the first ms an input observed at `at` is older than `limit` (`now − at > limit`). */
const staleFrom = (at: number | undefined, limit: number): number | undefined =>
  at === undefined ? undefined : at + limit + 1

/**
 * The next moment after `now` at which time alone changes the plan or the risk assessment; undefined
 * when none is ahead, or while halted (a halted actor re-assesses on its own tick and plans nothing).
 * Moments already past are not scheduled again: `planStep` acts on them at the next plan.
 */
export function nextTimeDue(ctx: InstrumentContext, now: number): number | undefined {
  if (ctx.assessment.mode === 'halted') return undefined
  const risk = ctx.deps.risk
  const dwellEnds =
    ctx.mode.mode !== 'normal' && !ctx.mode.transient ? ctx.mode.since + risk.minModeDwellMs : undefined
  // No arrays or closures: this runs for every input of every instrument.
  let next = earliestAfter(undefined, ctx.revisitAt, now)
  next = earliestAfter(next, nextExpiry(ctx.openOrders, ctx.deps.maxOrderAgeMs), now)
  next = earliestAfter(next, bboDue(ctx), now)
  next = earliestAfter(next, staleFrom(ctx.indexAt, risk.staleIndexMs), now)
  if (reads(ctx, 'statistics'))
    next = earliestAfter(next, staleFrom(ctx.statisticsAt, risk.staleStatisticsMs), now)
  // The margin's age as the feed renewed it (`InputAges`): at this wake it is read again.
  next = earliestAfter(next, staleFrom(marginSeenAt(ctx), risk.staleMarginMs), now)
  return earliestAfter(next, dwellEnds, now)
}
