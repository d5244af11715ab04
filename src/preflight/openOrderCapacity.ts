/**
 * Whether the configured strategies can rest all their orders at once: the venue caps an account's
 * open orders (1,000 on the default tier; `quoting.accountOpenOrderCap`) and each instrument's
 * (`max_order_count`), and refuses a create past either with 429 `open_orders_limit`, which waiting
 * does not clear. The bot trims the ladders to fit (`allocateOrderSlots`); this says by how much.
 * Pure: the caller supplies each instrument's `maxOrders` (from its strategy) and, when read, the
 * venue's per-instrument limit.
 */
import { allocateOrderSlots } from '../bot/quoting/orderSlots.ts'
import { ConfigError } from '../errors.ts'
import { DEFAULT_ACCOUNT_OPEN_ORDER_CAP } from '../perps/weights.ts'

export interface CapacityInstrument {
  symbol: string
  /** The strategy's `maxOrders` for its params; undefined when it does not say. */
  maxOrders: number | undefined
  /** The venue's `max_order_count` for the instrument (0 or undefined: no limit known). */
  venueMax?: number | undefined
}

export interface CapacityVerdict {
  status: 'ok' | 'warn' | 'fail'
  detail: string
  /** Orders the configured strategies would rest at once (each within its venue limit). */
  total: number
}

export function openOrderCapacity(
  instruments: readonly CapacityInstrument[],
  accountCap: number = DEFAULT_ACCOUNT_OPEN_ORDER_CAP,
): CapacityVerdict {
  const unknown = instruments.filter((i) => i.maxOrders === undefined).map((i) => i.symbol)
  const trimmedByVenue = instruments
    .filter((i) => i.maxOrders !== undefined && (i.venueMax ?? 0) > 0 && i.maxOrders > (i.venueMax ?? 0))
    .map((i) => `${i.symbol} (${i.maxOrders} > ${i.venueMax})`)
  let plan: ReturnType<typeof allocateOrderSlots>
  try {
    plan = allocateOrderSlots(
      instruments.map((i, id) => ({ id, symbol: i.symbol, wants: i.maxOrders, venueMax: i.venueMax ?? 0 })),
      accountCap,
    )
  } catch (e) {
    if (e instanceof ConfigError) return { status: 'fail', detail: e.details.join('; '), total: 0 }
    throw e
  }
  const parts = [
    `up to ${plan.wanted} resting order(s) over ${instruments.length} instrument(s), against an account cap of ${accountCap} (quoting.accountOpenOrderCap; the venue's default tier allows ${DEFAULT_ACCOUNT_OPEN_ORDER_CAP})`,
  ]
  if (unknown.length > 0)
    parts.push(
      `${unknown.length} instrument(s) whose strategy gives no maxOrders, counted at the venue's limit: ${list(unknown)}`,
    )
  if (trimmedByVenue.length > 0)
    parts.push(`over the instrument's own order count, so the ladder is trimmed: ${list(trimmedByVenue)}`)
  if (plan.trimmed.size > 0)
    parts.push(
      `the bot trims ${plan.trimmed.size} ladder(s) to a fair share of the cap, down to ${Math.min(...plan.trimmed.values())} order(s) each: trade fewer instruments or levels, or raise the cap if the account's tier allows more`,
    )
  return {
    status: plan.trimmed.size > 0 || trimmedByVenue.length > 0 ? 'warn' : 'ok',
    detail: parts.join('; '),
    total: plan.wanted,
  }
}

function list(items: readonly string[]): string {
  return items.length <= 5 ? items.join(', ') : `${items.slice(0, 5).join(', ')} and ${items.length - 5} more`
}
