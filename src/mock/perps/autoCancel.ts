/**
 * The venue's dead-man switch (`PATCH /v1/trade/auto-cancel`, `GET /v1/account/auto-cancel`;
 * protocol-notes d). `time` arms it (at least 5 s ahead) or clears it (`0`); posting again replaces
 * the deadline. It is one-shot: when the deadline passes on the clock every open order of the
 * account is cancelled (`auto_cancelled`) and the schedule clears. An account may be triggered at
 * most 10 times per UTC day; past that, arming is refused until the next UTC day, clearing never is.
 */
import { badRequest, unprocessable } from './errors.ts'
import { cancelAllOrders } from './matching.ts'
import type { Account, ExchangeState } from './state.ts'

export const AUTO_CANCEL_DAILY_LIMIT = 10
/**
 * Action weight of a set/clear (docs: Set Auto-Cancel, request weight 1 = the mock limiter's
 * default). Kept here until the perps client binds the endpoint: every row of the shared weight
 * table must be a client method (test/perps/client), so the `setAutoCancel` row lands with it.
 */
export const AUTO_CANCEL_ACTION_WEIGHT = 10
/** The earliest deadline accepted, ahead of now. */
export const AUTO_CANCEL_MIN_LEAD_MS = 5_000
const DAY_MS = 86_400_000

/** `GET /v1/account/auto-cancel`. */
export interface AutoCancelStatus {
  /** Unix ms; 0 when not armed. */
  deadline: number
  /** Triggers in the current UTC day. */
  triggered: number
  daily_limit: number
  /** Unix ms of the next UTC midnight (the counter resets). */
  next_reset: number
}

const dayOf = (t: number): number => Math.floor(t / DAY_MS)

function triggeredToday(account: Account, now: number): number {
  return account.autoCancel.day === dayOf(now) ? account.autoCancel.triggered : 0
}

/**
 * Checks an arm/clear request before it is accepted (no effect on state).
 * @throws {@link MockRejection} 400 for a time neither 0 nor at least 5 s ahead; 422
 * `auto_cancel_daily_limit_reached` for arming once today's triggers are used up.
 */
export function checkAutoCancel(account: Account, time: number, now: number): void {
  if (time === 0) return
  if (time < now + AUTO_CANCEL_MIN_LEAD_MS)
    throw badRequest('auto-cancel time must be at least 5 seconds in the future, or 0 to clear')
  if (triggeredToday(account, now) >= AUTO_CANCEL_DAILY_LIMIT)
    throw unprocessable('auto_cancel_daily_limit_reached')
}

/** Arms (time > 0) or clears (0) the switch; returns the wire answer `{status, deadline}`. */
export function setAutoCancel(
  s: ExchangeState,
  account: Account,
  time: number,
): { status: 'ok'; deadline: number } {
  account.autoCancel.deadline = time
  if (time === 0) s.autoCancelArmed.delete(account)
  else s.autoCancelArmed.add(account)
  return { status: 'ok', deadline: time }
}

/** Fires every switch whose deadline is at or before `t`: the account's open orders are cancelled. */
export function fireAutoCancels(s: ExchangeState, t: number): void {
  if (s.autoCancelArmed.size === 0) return
  for (const account of [...s.autoCancelArmed]) {
    const deadline = account.autoCancel.deadline
    if (deadline > t) continue
    s.autoCancelArmed.delete(account)
    cancelAllOrders(s, account, undefined, deadline, 'auto_cancelled')
    const day = dayOf(deadline)
    account.autoCancel = { deadline: 0, day, triggered: triggeredToday(account, deadline) + 1 }
  }
}

export function autoCancelStatus(account: Account, now: number): AutoCancelStatus {
  return {
    deadline: account.autoCancel.deadline,
    triggered: triggeredToday(account, now),
    daily_limit: AUTO_CANCEL_DAILY_LIMIT,
    next_reset: (dayOf(now) + 1) * DAY_MS,
  }
}
