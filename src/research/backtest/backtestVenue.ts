/**
 * The fast engine's venue: the mock exchange's own core (matching rules, positions, fees, funding, the
 * replay seam with the dataset's fill model) called directly, without HTTP, signatures, the request
 * limiter or the batcher. A plan is applied at once, in the order the bot's batcher sends risk work
 * first: cancels, then modifies, then creates. What the bot would read (tickers, portfolio, its open
 * orders, statistics) comes from the same core the mock's endpoints read.
 */

import type { ItemOutcome, OrderPlan, PlannedCreate, PlanOutcome } from '../../bot/researchApi.ts'
import {
  type Account,
  cancelAllOrders,
  cancelOrder,
  checkOpenOrderCap,
  createPerpsExchange,
  type ExchangeState,
  type InstrumentSpec,
  type MarketDriver,
  type MarketTap,
  modifyOrder,
  orderWire,
  type PerpsExchange,
  placeOrder,
} from '../../mock/perps/index.ts'
import type { CreateOrderAck, Order } from '../../perps/schemas/orders.ts'
import type { CreateOrderBody } from '../../perps/signing/ops.ts'

/** The account the fast engine trades (any fixed address: nothing is signed). */
export const BACKTEST_OWNER = '0x00000000000000000000000000000000000b4c7e'

export interface BacktestVenue {
  readonly exchange: PerpsExchange
  readonly owner: string
  /** Steps the market (and the fill model) to `t`. */
  advanceTo(t: number): void
  /** Applies a plan at once; the outcome aligned with the plan, as the order gateway returns it. */
  submit(plan: OrderPlan): PlanOutcome
  /** Cancels every resting order of the instrument (a halt). */
  cancelAll(instrumentId: number): void
  /** The account's resting orders on the instrument, as the open-orders read returns them. */
  openOrders(instrumentId: number): Order[]
}

export function createBacktestVenue(o: {
  clock: { now(): number }
  seed: number
  instruments: readonly InstrumentSpec[]
  driver: MarketDriver
  /** Sees every market after its step (the recorder's mids). */
  marketTap?: MarketTap | undefined
}): BacktestVenue {
  const exchange = createPerpsExchange({
    clock: o.clock,
    seed: o.seed,
    // As `perpbot simulate --data` runs the mock: the replay drives the market, the scenario only
    // seeds the account.
    scenario: 'calm',
    instruments: [...o.instruments],
    historyMinutes: 0,
    marketDriver: o.driver,
    marketTap: o.marketTap,
  })
  exchange.registerAccount({ owner: BACKTEST_OWNER })
  const state = (): ExchangeState => exchange.synced()
  const account = (s: ExchangeState): Account => {
    const a = s.accounts.get(BACKTEST_OWNER)
    if (a === undefined) throw new Error(`the backtest account ${BACKTEST_OWNER} is not registered`)
    return a
  }

  return {
    exchange,
    owner: BACKTEST_OWNER,
    advanceTo: (t) => exchange.advanceTo(t),
    submit(plan) {
      const s = state()
      const a = account(s)
      const now = o.clock.now()
      // The venue's own per-item answers, as the perps client parses them.
      const cancel = plan.cancel.map((oid) => cancelOrder(s, a, oid, now))
      const modify = plan.modify.map((m) => modifyOrder(s, a, m, now))
      let create: ItemOutcome<CreateOrderAck>[]
      const bodies = plan.create.map(createBody)
      try {
        checkOpenOrderCap(s, a, bodies)
        create = bodies.map((b) => placeOrder(s, a, b, now))
      } catch (e) {
        // The cap refuses the whole request (a 429 on the venue): nothing was placed.
        const error = e instanceof Error ? e : new Error(String(e))
        create = bodies.map((): ItemOutcome<CreateOrderAck> => ({ status: 'failed', error }))
      }
      return { modify, create, cancel }
    },
    cancelAll(instrumentId) {
      const s = state()
      cancelAllOrders(s, account(s), instrumentId, o.clock.now())
    },
    openOrders(instrumentId) {
      const out: Order[] = []
      for (const order of account(state()).open.values())
        if (order.iid === instrumentId) out.push(orderWire(order))
      return out
    },
  }
}

/** A plan's create as the signed body carries it (ops.ts `orderBody`: `po` always, `ro` only when true). */
function createBody(c: PlannedCreate): CreateOrderBody {
  const body: CreateOrderBody = { iid: c.iid, buy: c.buy, po: c.po ?? false, qty: c.qty, p: c.p }
  if (c.tif !== undefined) body.tif = c.tif
  if (c.ro === true) body.ro = true
  if (c.coid !== undefined) body.c = c.coid
  return body
}
