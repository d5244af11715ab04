/**
 * The best bid and offer in the instrument actor: stored for the next plan, never a plan by itself
 * (see `bboStep`). A pure step, as in steps.ts.
 */
import type { StrategyBookLevel, StrategySnapshotBbo } from '../../strategy/strategy.ts'
import { type InstrumentContext, type InstrumentEvent, reads } from './context.ts'
import type { Step } from './step.ts'

const NONE: readonly never[] = []

// ---------------------------------------------------------------------------------------------------
// Best bid and offer

/**
 * A BBO is stored for the next plan and plans nothing itself: it changes many times a second, and the
 * plan after any other input, or a wake `recheckMs` after the first BBO since the last plan at the
 * latest (`timeDue.ts`), reads the newest one. One older than the stored one (out of order) is
 * dropped. No re-assessment either: the BBO is no risk input.
 */
export function bboStep(
  ctx: InstrumentContext,
  event: Extract<InstrumentEvent, { type: 'BBO' }>,
  now: number,
): Step {
  const stored = bboUpdate(ctx, event)
  if (stored === undefined) return { update: undefined, logs: NONE, changes: NONE, due: ctx.deferredAt }
  // The same touch again (a venue may repeat it every second) only refreshes its age: the quotes
  // already reflect it. Unless pushes had paused long enough that a strategy may have stopped
  // trusting it (`STALE_TOUCH_RECHECKS` ticks; the shipped ones trust a BBO for 5 s).
  // A strategy that does not read the BBO gets it in its snapshots but is not asked again for it.
  const prev = ctx.bbo
  const repeated =
    !reads(ctx, 'bbo') ||
    (prev !== undefined &&
      sameLevel(prev.bid, stored.bbo.bid) &&
      sameLevel(prev.ask, stored.bbo.ask) &&
      stored.bbo.receivedAt - prev.receivedAt <= STALE_TOUCH_RECHECKS * ctx.deps.recheckMs)
  return {
    update: ctx.bboPendingSince === undefined && !repeated ? { ...stored, bboPendingSince: now } : stored,
    logs: NONE,
    changes: NONE,
    due: ctx.deferredAt,
  }
}

/** A repeated touch plans nothing unless it follows a pause in pushes of more than this many ticks. */
export const STALE_TOUCH_RECHECKS = 2

const sameLevel = (a: StrategyBookLevel | undefined, b: StrategyBookLevel | undefined): boolean =>
  a === undefined || b === undefined ? a === b : a.price === b.price && a.qty === b.qty

/** The stored BBO after `event`, or undefined when it is older than the stored one. */
export function bboUpdate(
  ctx: InstrumentContext,
  event: Extract<InstrumentEvent, { type: 'BBO' }>,
): { bbo: StrategySnapshotBbo } | undefined {
  if (ctx.bbo !== undefined && event.receivedAt < ctx.bbo.receivedAt) return undefined
  return { bbo: { bid: event.bbo.bid, ask: event.bbo.ask, receivedAt: event.receivedAt } }
}
