/**
 * Orders on the account that the bot did not place: open orders without our client-order-id tag
 * (src/perps/orderTag.ts). A trader's manual orders deserve a word before the bot starts: the bot
 * leaves them alone (`orders.foreign: leave`), but the venue's dead-man switch cancels every order of
 * the account, not only ours, if the bot dies (see docs/going-live.md).
 */
import { quantity } from '../format/units.ts'
import { DEFAULT_ORDER_TAG_NAME, isOwnOrder, orderTagFor } from '../perps/orderTag.ts'
import type { Order } from '../perps/schemas/orders.ts'

/** Per instrument and side: how many foreign orders rest and how much. */
export interface ForeignSummary {
  count: number
  own: number
  /** "BTC-USDC: 2 buy (0.3 resting), 1 sell (0.1 resting)" per instrument. */
  lines: string[]
}

export function summarizeForeignOrders(
  orders: readonly Pick<Order, 'iid' | 'buy' | 'rest' | 'coid'>[],
  symbolOf: (iid: number) => string,
  tag: string = orderTagFor(DEFAULT_ORDER_TAG_NAME),
): ForeignSummary {
  const by = new Map<string, { buys: number; sells: number; buyQty: number; sellQty: number }>()
  let count = 0
  let own = 0
  for (const o of orders) {
    if (isOwnOrder(o.coid, tag)) {
      own += 1
      continue
    }
    count += 1
    const symbol = symbolOf(o.iid)
    const s = by.get(symbol) ?? { buys: 0, sells: 0, buyQty: 0, sellQty: 0 }
    if (o.buy) {
      s.buys += 1
      s.buyQty += Number(o.rest)
    } else {
      s.sells += 1
      s.sellQty += Number(o.rest)
    }
    by.set(symbol, s)
  }
  const lines = [...by]
    .sort((a, b) => a[0].localeCompare(b[0]))
    .map(([symbol, s]) => {
      const parts = [
        ...(s.buys > 0 ? [`${s.buys} buy (${quantity(s.buyQty, 8)} resting)`] : []),
        ...(s.sells > 0 ? [`${s.sells} sell (${quantity(s.sellQty, 8)} resting)`] : []),
      ]
      return `${symbol}: ${parts.join(', ')}`
    })
  return { count, own, lines }
}

const POLICY_TEXT = {
  leave: 'The bot leaves them alone (orders.foreign: leave) and its exit policy cancels only its own',
  adopt: 'orders.foreign is adopt: the bot manages them as its own and may reprice or cancel them',
  cancel: 'orders.foreign is cancel: the bot cancels them by id as soon as it starts',
} as const

/** The preflight line: ok when every open order is ours, a warning naming the others otherwise. */
export function foreignOrdersLine(
  s: ForeignSummary,
  deadManSwitch: boolean,
  policy: 'leave' | 'adopt' | 'cancel' = 'leave',
): [string, 'ok' | 'warn', string] {
  const check = 'foreign orders'
  if (s.count === 0)
    return [check, 'ok', s.own === 0 ? 'no open orders' : `none: all ${s.own} open order(s) carry our tag`]
  const shown = s.lines.slice(0, 10).join('; ')
  const more = s.lines.length > 10 ? `; and ${s.lines.length - 10} more instrument(s)` : ''
  return [
    check,
    'warn',
    `${s.count} open order(s) were not placed by perpbot (${shown}${more}). ${POLICY_TEXT[policy]}${deadManSwitch ? "; but if the bot dies, the venue's dead-man switch (ops.deadManSwitch) cancels every order of the account at its deadline, these included" : ''} (see docs/going-live.md)`,
  ]
}
