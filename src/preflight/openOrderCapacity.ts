/**
 * Whether the configured strategies can rest all their orders at once: the venue caps an account's
 * open orders (1,000 on the default tier) and each instrument's (`max_order_count`), and refuses a
 * create past either with 429 `open_orders_limit`, which waiting does not clear. Pure: the caller
 * supplies each instrument's `maxOrders` (from its strategy) and, when read, the venue's per-instrument
 * limit.
 */

/** The venue's open-order cap per account on the default tier (Polymarket Perps docs, rate limits). */
export const DEFAULT_ACCOUNT_OPEN_ORDER_CAP = 1_000

export interface CapacityInstrument {
  symbol: string
  /** The strategy's `maxOrders` for its params; undefined when it does not say. */
  maxOrders: number | undefined
  /** The venue's `max_order_count` for the instrument (0 or undefined: no limit known). */
  venueMax?: number | undefined
}

export interface CapacityVerdict {
  status: 'ok' | 'warn'
  detail: string
  /** Orders the configured strategies may rest at once (instruments that say, each within its venue limit). */
  total: number
}

export function openOrderCapacity(
  instruments: readonly CapacityInstrument[],
  accountCap: number = DEFAULT_ACCOUNT_OPEN_ORDER_CAP,
): CapacityVerdict {
  let total = 0
  const unknown: string[] = []
  const trimmed: string[] = []
  for (const i of instruments) {
    if (i.maxOrders === undefined) {
      unknown.push(i.symbol)
      continue
    }
    const venueMax = i.venueMax !== undefined && i.venueMax > 0 ? i.venueMax : undefined
    if (venueMax !== undefined && i.maxOrders > venueMax)
      trimmed.push(`${i.symbol} (${i.maxOrders} > ${venueMax})`)
    total += venueMax === undefined ? i.maxOrders : Math.min(i.maxOrders, venueMax)
  }
  const parts = [
    `up to ${total} resting order(s) over ${instruments.length - unknown.length} instrument(s), against the venue's cap of ${accountCap} per account (default tier; the account's own tier is not read)`,
  ]
  if (unknown.length > 0)
    parts.push(`${unknown.length} instrument(s) whose strategy gives no maxOrders: ${list(unknown)}`)
  if (trimmed.length > 0)
    parts.push(`over the instrument's own order count, so the ladder is trimmed: ${list(trimmed)}`)
  const over = total > accountCap
  if (over)
    parts.push(
      `the venue refuses creates past the cap (429 open_orders_limit): configure fewer instruments or levels, or check the account's tier`,
    )
  return { status: over || trimmed.length > 0 ? 'warn' : 'ok', detail: parts.join('; '), total }
}

function list(items: readonly string[]): string {
  return items.length <= 5 ? items.join(', ') : `${items.slice(0, 5).join(', ')} and ${items.length - 5} more`
}
