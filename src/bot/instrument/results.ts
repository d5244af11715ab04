/**
 * A plan's results, pure: `applyOutcome` applies each item's outcome to the actor's order set, and
 * `resultsStep` turns the applied plan into the actor's next state (stats, the exponential back-off
 * after rejections, the `rejections` episode); `submitFailedStep` when the gateway failed as a whole.
 */
import {
  type BatchRejected,
  isOrderGoneCode,
  type ModifyOrderInput,
  type Order,
} from '../../perps/schemas/orders.ts'
import type { OrderPlan, PlanOutcome, Replaced } from '../quoting/orderPlan.ts'
import type { InstrumentContext } from './context.ts'
import { observe } from './health.ts'
import { type LogEntry, NONE, type Step } from './step.ts'

/** A refusal: its code or message, and whether the whole request was refused (nothing applied). */
function refusal(r: BatchRejected | { status: 'failed'; error: Error }): { error: string; request: boolean } {
  return r.status === 'failed'
    ? { error: r.error.message, request: true }
    : { error: r.error, request: false }
}

/**
 * Orders the venue no longer has (filled or cancelled since we last looked): not a rejection. By the
 * per-item code only: a request-level failure (`request`) never means the order is gone.
 */
const isGone = (r: { error: string; request: boolean }): boolean => !r.request && isOrderGoneCode(r.error)

/**
 * Applies each item's outcome (the batcher's `ItemOutcome`, handed on unchanged by the gateway) to
 * the live order set. A create enters it as it was asked for (its own time in force and post-only).
 */
export function applyOutcome(
  orders: readonly Order[],
  plan: OrderPlan,
  outcome: PlanOutcome,
  instrumentId: number,
  now: number,
): AppliedPlan {
  const byOid = new Map(orders.map((o) => [o.oid, o]))
  const rejected: string[] = []
  const domain: string[] = []
  let accepted = 0
  const creates: { tried: number; accepted: number; domain: string[] } = { tried: 0, accepted: 0, domain: [] }
  const reject = (what: string, r: { error: string; request: boolean }): void => {
    rejected.push(`${what}: ${r.error}`)
    if (!r.request) domain.push(r.error)
  }
  const gone: number[] = []
  let unknown = 0
  /** A modify replaced by cancel + create: the old order left the book; its replacement as it fared. */
  const replaced = (m: ModifyOrderInput, c: Replaced['create']): void => {
    if (c === undefined) {
      byOid.delete(m.oid)
      reject(`modify ${m.oid}`, {
        error: `order ${m.oid} unknown to the actor: cancelled, not recreated`,
        request: false,
      })
    } else if (c.status === 'unknown') unknown++
    else if (c.status === 'ok') {
      accepted++
      const prev = byOid.get(m.oid)
      if (c.oid !== m.oid) {
        // The old order is gone, a fresh one rests at the new price.
        byOid.delete(m.oid)
        if (prev)
          byOid.set(c.oid, {
            ...prev,
            oid: c.oid,
            p: m.p,
            qty: m.qty,
            rest: m.qty,
            fill: '0',
            cts: now,
            uts: now,
          })
      } else if (prev) byOid.set(m.oid, { ...prev, p: m.p, qty: m.qty, uts: now })
    } else if (c.status === 'err' || c.status === 'failed') {
      const r = refusal(c)
      byOid.delete(m.oid)
      if (isGone(r)) gone.push(m.oid)
      else reject(`modify ${m.oid}`, r)
    }
  }
  plan.modify.forEach((m, i) => {
    const r = outcome.modify[i]
    if (!r || r.status === 'unknown') unknown++
    else if (r.status === 'ok' && r.order.status === 'post_only_rejected') {
      // Accepted as a request, but the modified post-only order crossed and left the book.
      byOid.delete(m.oid)
      reject(`modify ${m.oid}`, { error: 'post_only_rejected', request: false })
    } else if (r.status === 'ok') {
      accepted++
      byOid.delete(m.oid)
      byOid.set(r.order.oid, r.order)
    } else if (r.status === 'replaced') replaced(m, r.create)
    else if (r.status === 'err' || r.status === 'failed') {
      const f = refusal(r)
      if (isGone(f)) {
        byOid.delete(m.oid)
        gone.push(m.oid)
      } else reject(`modify ${m.oid}`, f)
    }
  })
  plan.create.forEach((c, i) => {
    const r = outcome.create[i]
    creates.tried++
    if (!r || r.status === 'unknown') unknown++
    else if (r.status === 'ok') {
      accepted++
      creates.accepted++
      byOid.set(r.oid, {
        oid: r.oid,
        iid: instrumentId,
        buy: c.buy,
        p: c.p,
        qty: c.qty,
        // What the create asked for; absent fields are the wire's defaults (ops.ts: GTC, not post-only).
        tif: c.tif ?? 'gtc',
        po: c.po ?? false,
        ro: c.ro ?? false,
        rest: c.qty,
        fill: '0',
        cts: now,
        uts: now,
        status: 'open',
      })
    } else if (r.status === 'err' || r.status === 'failed') {
      const f = refusal(r)
      reject(`create ${c.buy ? 'buy' : 'sell'} ${c.qty}@${c.p}`, f)
      if (!f.request) creates.domain.push(f.error)
    }
  })
  plan.cancel.forEach((oid, i) => {
    const r = outcome.cancel[i]
    if (!r || r.status === 'unknown') unknown++
    else if (r.status === 'ok') {
      accepted++
      byOid.delete(oid)
    } else if (r.status === 'err' || r.status === 'failed') {
      const f = refusal(r)
      if (isGone(f)) {
        byOid.delete(oid)
        gone.push(oid)
      } else reject(`cancel ${oid}`, f)
    }
  })
  return { orders: [...byOid.values()], rejected, domain, accepted, gone, unknown, creates }
}

/**
 * A plan's results applied: the order set, every rejection (for logs), the venue's domain rejection
 * codes among them (not request-level refusals), how many items the venue accepted, orders found gone,
 * and items with an unknown outcome.
 */
export interface AppliedPlan {
  orders: Order[]
  rejected: string[]
  domain: string[]
  accepted: number
  gone: number[]
  unknown: number
  /** The plan's creates: how many went, how many the venue accepted, and its domain codes for the rest. */
  creates?: { tried: number; accepted: number; domain: string[] } | undefined
}

/** Longest pause after rejected plans. */
export const MAX_REJECT_BACKOFF_MS = 30_000
/**
 * Longest pause while the venue rejects every create (after a liquidation: insufficient margin on
 * each, however its cancels fare): doomed orders are not worth a try every 30 s.
 */
export const MAX_CREATE_REJECT_BACKOFF_MS = 300_000

/** The pause after the `streak`-th rejected plan in a row: `baseMs · 2^(streak − 1)`, capped; 0 for none. */
export function rejectBackoff(baseMs: number, streak: number, maxMs = MAX_REJECT_BACKOFF_MS): number {
  if (streak <= 0) return 0
  return Math.min(maxMs, baseMs * 2 ** Math.min(streak - 1, 30))
}

/** `insufficient_margin ×3, price_outside_bounds` for the alert and status. */
function summarize(codes: readonly string[]): string {
  const counts = new Map<string, number>()
  for (const c of codes) counts.set(c, (counts.get(c) ?? 0) + 1)
  return [...counts].map(([c, n]) => (n > 1 ? `${c} ×${n}` : c)).join(', ')
}

/**
 * After the gateway answered: the applied order set (see `applyOutcome`), stats, the exponential
 * backoff, and the `rejections` episode: a plan whose items the venue all rejected on its domain rules
 * (no item accepted) is a bad observation, a plan with an accepted item a good one; a plan with
 * neither (only unknown, superseded, gone or request-level failures) says nothing.
 */
export function resultsStep(ctx: InstrumentContext, r: AppliedPlan, now: number): Step {
  const quietNow = ctx.health.rejections.since !== undefined
  const logs: LogEntry[] = r.rejected.map((msg) => ({
    level: quietNow ? 'debug' : 'warn',
    fields: { rejection: msg },
    msg: `order rejected: ${msg}`,
    kind: 'order rejected',
  }))
  if (r.gone.length > 0) {
    logs.push({
      level: 'info',
      fields: { oids: r.gone },
      msg: `order(s) ${r.gone.join(', ')} no longer on the book (filled or cancelled)`,
    })
  }
  const rejectedNow = r.rejected.length > 0
  const streak = rejectedNow ? ctx.rejectStreak + 1 : 0
  // Every create refused on the venue's rules (cancels may still go through): the doomed creates back
  // off longer, and the episode opens whatever else was accepted.
  const c = r.creates
  const createsRefused = c !== undefined && c.tried > 0 && c.accepted === 0 && c.domain.length > 0
  const pause = rejectBackoff(
    ctx.deps.rejectBackoffMs,
    streak,
    createsRefused ? MAX_CREATE_REJECT_BACKOFF_MS : MAX_REJECT_BACKOFF_MS,
  )
  if (rejectedNow) {
    logs.push({
      level: quietNow ? 'debug' : 'info',
      fields: { backoffMs: pause, streak },
      msg: `backing off ${pause} ms after ${streak} rejected plan(s) in a row`,
      kind: 'reject backoff',
    })
  }
  const bad =
    r.accepted === 0 && r.domain.length > 0
      ? `the venue rejected every order of the plan: ${summarize(r.domain)}`
      : createsRefused
        ? `the venue rejected every create of the plan: ${summarize(c.domain)}; backing off ${Math.round(pause / 1000)} s`
        : undefined
  const obs =
    r.accepted > 0 || bad !== undefined
      ? observe(ctx.health, 'rejections', bad, now, ctx.deps.guard.degradeAfter)
      : { health: ctx.health, change: undefined }
  return {
    update: {
      openOrders: r.orders,
      pendingPlan: undefined,
      planInFlight: undefined,
      dirty: true,
      backoffMs: pause,
      rejectStreak: streak,
      backoffUntil: rejectedNow ? now + pause : 0,
      ...(obs.health === ctx.health ? {} : { health: obs.health }),
      stats: {
        ...ctx.stats,
        submitted: ctx.stats.submitted + 1,
        rejected: ctx.stats.rejected + r.rejected.length,
        gone: ctx.stats.gone + r.gone.length,
        unknown: ctx.stats.unknown + r.unknown,
        lastSubmitAt: now,
      },
    },
    logs,
    changes: obs.change ? [obs.change] : NONE,
    due: ctx.deferredAt,
  }
}

/** The gateway failed as a whole: the outcome is unknown, wait for reconciliation and back off. */
export function submitFailedStep(ctx: InstrumentContext, error: unknown, now: number): Step {
  const streak = ctx.rejectStreak + 1
  const pause = rejectBackoff(ctx.deps.rejectBackoffMs, streak)
  return {
    update: {
      pendingPlan: undefined,
      planInFlight: undefined,
      dirty: true,
      backoffUntil: now + pause,
      backoffMs: pause,
      rejectStreak: streak,
      stats: { ...ctx.stats, unknown: ctx.stats.unknown + 1 },
    },
    logs: [{ level: 'warn', fields: { err: error }, msg: 'order submission failed; waiting for reconcile' }],
    changes: NONE,
    due: ctx.deferredAt,
  }
}
