/**
 * Sharing the account's open-order cap among the instruments. The venue refuses a create past the
 * cap (429 `open_orders_limit`) and waiting frees nothing, so when the ladders together want more
 * resting orders than the account may hold, each instrument gets a share instead (max-min fair: no
 * instrument gets less than another unless it wants less) and its ladder is trimmed to it, as the
 * venue's own per-instrument `max_order_count` trims it. Pure.
 */
import { ConfigError } from '../../errors.ts'

export interface SlotDemand {
  id: number
  symbol: string
  /** The strategy's `maxOrders`; undefined when it does not say (then the venue's limit, or the cap). */
  wants: number | undefined
  /** The venue's `max_order_count` for the instrument (0: none). */
  venueMax: number
}

export interface SlotPlan {
  /** Orders each instrument may rest, only for those the cap trims (below what they would rest). */
  trimmed: ReadonlyMap<number, number>
  /** What the instruments would rest without the share (each within its venue limit). */
  wanted: number
}

/**
 * @throws {@link ConfigError} when the cap cannot give every instrument one order.
 */
export function allocateOrderSlots(demands: readonly SlotDemand[], accountCap: number): SlotPlan {
  if (demands.length > accountCap)
    throw new ConfigError('more instruments than the account may rest orders', [
      `quoting.accountOpenOrderCap: ${accountCap} open orders cannot give each of ${demands.length} instruments one; trade fewer instruments or raise it to the account's tier`,
    ])
  const wants = demands.map((d) => {
    const limit = d.venueMax > 0 ? d.venueMax : accountCap
    return { id: d.id, n: Math.min(d.wants ?? limit, limit) }
  })
  const wanted = wants.reduce((s, w) => s + w.n, 0)
  const trimmed = new Map<number, number>()
  if (wanted <= accountCap) return { trimmed, wanted }
  // Water-filling: the smallest wants are met first; the rest share what is left equally.
  const order = [...wants].sort((a, b) => a.n - b.n || a.id - b.id)
  let left = accountCap
  order.forEach((w, i) => {
    const share = Math.floor(left / (order.length - i))
    const given = Math.min(w.n, share)
    if (given < w.n) trimmed.set(w.id, given)
    left -= given
  })
  return { trimmed, wanted }
}

/** An instrument already quoting: its demand, and its share when the cap trims its ladder. */
export interface RunningSlots extends SlotDemand {
  share: number | undefined
}

/** The most orders an instrument may rest: its share when trimmed, else what it wants within its limit. */
export function restingAtMost(d: RunningSlots, accountCap: number): number {
  const limit = d.venueMax > 0 ? d.venueMax : accountCap
  return Math.min(d.share ?? limit, d.wants ?? limit, limit)
}

export type AddedSlots =
  | { ok: true; slots: number; trimmed: boolean; used: number }
  | { ok: false; used: number; reason: string }

/**
 * The orders an instrument added while running may rest: what it wants (within its venue limit),
 * within the room the running ladders leave under the account's cap. The running ladders keep their
 * shares (shrinking them would race their cancels against the new ladder's creates, and the venue
 * refuses a create past the cap); no room for one order is a refusal.
 */
export function slotsForAdded(
  running: readonly RunningSlots[],
  added: SlotDemand,
  accountCap: number,
): AddedSlots {
  const used = running.reduce((s, r) => s + restingAtMost(r, accountCap), 0)
  const room = accountCap - used
  if (room < 1)
    return {
      ok: false,
      used,
      reason: `the running ladders may rest ${used} order(s), the account's cap is ${accountCap} (quoting.accountOpenOrderCap): no room for ${added.symbol}; trade fewer levels or instruments, or restart to share the cap anew`,
    }
  const wants = restingAtMost({ ...added, share: undefined }, accountCap)
  return { ok: true, slots: Math.min(wants, room), trimmed: wants > room, used }
}
