import { entriesOf } from '../guards.ts'
/**
 * The one table of request and action weights per perps endpoint. The client's limiter, the bot's
 * budgets and the mock's rate limiter all read it, so they cannot disagree.
 * Sources: the spec's Limits table; protocol-notes c.1 and c.4 where the spec is silent.
 */

export type PerpsEndpoint =
  | 'getIndex'
  | 'getPublicPortfolio'
  | 'getStatistics'
  | 'getTickers'
  | 'getFees'
  | 'getAssets'
  | 'getExchange'
  | 'getTime'
  | 'getInstruments'
  | 'getWithdrawals'
  | 'getFunding'
  | 'getFills'
  | 'getPortfolio'
  | 'getCredentials'
  | 'getOpenOrders'
  | 'getOrders'
  | 'applyReferral'
  | 'createProxy'
  | 'createOrders'
  | 'modifyOrders'
  | 'cancelOrders'
  | 'cancelAll'
  | 'setAutoCancel'
  | 'getAutoCancel'
  | 'cancelOrdersCoid'
  | 'updateLeverage'
  | 'updateMargin'
  | 'getAccountConfig'
  | 'getBook'
  | 'getKlines'
  | 'getTrades'
  | 'getFundingHistory'
  | 'getBalances'
  | 'getDeposits'
  | 'getEquityHistory'
  | 'getPnlHistory'
  | 'getAccountStats'
  | 'getNotifications'
  | 'deleteProxy'
  | 'withdraw'

export interface WeightInput {
  /** Number of orders (or ids) in a batch command. */
  n?: number | undefined
  /** For reads whose weight depends on whether an instrument filter is given. */
  instrumentId?: number | undefined
  /** For order-history reads, cheaper with an order id. */
  orderId?: number | undefined
  /** Book depth (10, 100, 500, 1000): the book read costs 2 / 5 / 10 / 20. */
  depth?: number | undefined
}

/**
 * `read`: safe to repeat, retried by the client per policy. `command`: changes state, sent once and
 * never retried (a signed trade command, createProxy, applyReferral). The one place this is said.
 */
export type EndpointKind = 'read' | 'command'

export interface EndpointWeights {
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  path: string
  kind: EndpointKind
  /** A batch command: its weights depend on the number of items `n` (at least 1). */
  batch?: true | undefined
  /** Request weight, charged to the per-client (IP) bucket. */
  request: (input: WeightInput) => number
  /** Action weight, charged to the per-account bucket. */
  action: (input: WeightInput) => number
}

/** Items per extra unit of batch request weight. */
export const BATCH_WEIGHT_STEP = 20

/** `1 + floor(n / 20)`: the batch request weight (spec: Modify Orders; protocol-notes c.4 for all batches). */
export function batchRequestWeight(n: number): number {
  return 1 + Math.floor(n / BATCH_WEIGHT_STEP)
}

/**
 * The inverse of `batchRequestWeight`: the most items one batch may hold for a request weight of at
 * most `weight` (19 for 1, 39 for 2, …); 0 when even one item does not fit.
 */
export function maxBatchForWeight(weight: number): number {
  if (!(weight >= 1)) return 0
  return BATCH_WEIGHT_STEP * Math.floor(weight) - 1
}

const fixed =
  (w: number) =>
  (_: WeightInput): number =>
    w
const perOrder = (input: WeightInput): number => input.n ?? 0

export const PERPS_WEIGHTS: Readonly<Record<PerpsEndpoint, EndpointWeights>> = {
  getIndex: { method: 'GET', path: '/v1/info/index', kind: 'read', request: fixed(2), action: fixed(0) },
  getPublicPortfolio: {
    method: 'GET',
    path: '/v1/info/portfolio',
    kind: 'read',
    request: fixed(5),
    action: fixed(0),
  },
  getStatistics: {
    method: 'GET',
    path: '/v1/info/statistics',
    kind: 'read',
    request: fixed(2),
    action: fixed(0),
  },
  // Every ticker at once (PN c.1): the polling fallback's one market-data read.
  getTickers: {
    method: 'GET',
    path: '/v1/info/tickers',
    kind: 'read',
    request: fixed(2),
    action: fixed(0),
  },
  getFees: { method: 'GET', path: '/v1/info/fees', kind: 'read', request: fixed(2), action: fixed(0) },
  getAssets: { method: 'GET', path: '/v1/info/assets', kind: 'read', request: fixed(2), action: fixed(0) },
  getExchange: {
    method: 'GET',
    path: '/v1/info/exchange',
    kind: 'read',
    request: fixed(2),
    action: fixed(0),
  },
  getTime: { method: 'GET', path: '/v1/info/time', kind: 'read', request: fixed(1), action: fixed(0) },
  getInstruments: {
    method: 'GET',
    path: '/v1/info/instruments',
    kind: 'read',
    request: fixed(2),
    action: fixed(0),
  },
  getWithdrawals: {
    method: 'GET',
    path: '/v1/account/withdrawals',
    kind: 'read',
    request: fixed(10),
    action: fixed(0),
  },
  getFunding: {
    method: 'GET',
    path: '/v1/account/funding',
    kind: 'read',
    request: fixed(10),
    action: fixed(0),
  },
  getFills: {
    method: 'GET',
    path: '/v1/account/fills',
    kind: 'read',
    request: fixed(10),
    action: fixed(0),
  },
  getPortfolio: {
    method: 'GET',
    path: '/v1/account/portfolio',
    kind: 'read',
    request: fixed(2),
    action: fixed(0),
  },
  // Spec: "not shown"; protocol-notes c.1 gives 2.
  getCredentials: {
    method: 'GET',
    path: '/v1/account/credentials',
    kind: 'read',
    request: fixed(2),
    action: fixed(0),
  },
  getOpenOrders: {
    method: 'GET',
    path: '/v1/account/open-orders',
    kind: 'read',
    request: (i) => (i.instrumentId === undefined ? 20 : 1),
    action: fixed(0),
  },
  // Order history: 1 with an order id, 10 without (protocol-notes c.1).
  getOrders: {
    method: 'GET',
    path: '/v1/account/orders',
    kind: 'read',
    request: (i) => (i.orderId === undefined ? 10 : 1),
    action: fixed(0),
  },
  applyReferral: {
    method: 'POST',
    path: '/v1/account/referral',
    kind: 'command',
    request: fixed(1),
    action: fixed(0),
  },
  createProxy: {
    method: 'POST',
    path: '/v1/account/proxy',
    kind: 'command',
    request: fixed(1),
    action: fixed(0),
  },
  createOrders: {
    method: 'POST',
    path: '/v1/trade/orders',
    kind: 'command',
    batch: true,
    request: (i) => batchRequestWeight(i.n ?? 0),
    action: perOrder,
  },
  modifyOrders: {
    method: 'PATCH',
    path: '/v1/trade/orders',
    kind: 'command',
    batch: true,
    request: (i) => batchRequestWeight(i.n ?? 0),
    action: perOrder,
  },
  // Cancels cost no action weight (protocol-notes c.4), so risk reduction is never starved by quoting.
  cancelOrders: {
    method: 'DELETE',
    path: '/v1/trade/orders',
    kind: 'command',
    batch: true,
    request: (i) => batchRequestWeight(i.n ?? 0),
    action: fixed(0),
  },
  cancelAll: {
    method: 'DELETE',
    path: '/v1/trade/orders/all',
    kind: 'command',
    request: fixed(1),
    action: fixed(0),
  },
  // The dead-man switch: 10 action tokens per call (protocol-notes c.4).
  setAutoCancel: {
    method: 'PATCH',
    path: '/v1/trade/auto-cancel',
    kind: 'command',
    request: fixed(1),
    action: fixed(10),
  },
  // The switch's status (protocol-notes d): a plain account read.
  getAutoCancel: {
    method: 'GET',
    path: '/v1/account/auto-cancel',
    kind: 'read',
    request: fixed(1),
    action: fixed(0),
  },
  // Cancels by client order id cost what cancels by id cost.
  cancelOrdersCoid: {
    method: 'DELETE',
    path: '/v1/trade/orders-coid',
    kind: 'command',
    batch: true,
    request: (i) => batchRequestWeight(i.n ?? 0),
    action: fixed(0),
  },
  // Not published: taken as one request and one action (a setting, not an order).
  updateLeverage: {
    method: 'PATCH',
    path: '/v1/trade/leverage',
    kind: 'command',
    request: fixed(1),
    action: fixed(1),
  },
  updateMargin: {
    method: 'PATCH',
    path: '/v1/trade/margin',
    kind: 'command',
    request: fixed(1),
    action: fixed(1),
  },
  getAccountConfig: {
    method: 'GET',
    path: '/v1/account/config',
    kind: 'read',
    request: fixed(2),
    action: fixed(0),
  },
  // Depth 10/100/500/1000 costs 2/5/10/20 (protocol-notes c.4); the default depth is 100.
  getBook: {
    method: 'GET',
    path: '/v1/info/book',
    kind: 'read',
    request: (i) => bookWeight(i.depth),
    action: fixed(0),
  },
  getKlines: { method: 'GET', path: '/v1/info/klines', kind: 'read', request: fixed(5), action: fixed(0) },
  getTrades: { method: 'GET', path: '/v1/info/trades', kind: 'read', request: fixed(10), action: fixed(0) },
  getFundingHistory: {
    method: 'GET',
    path: '/v1/info/funding',
    kind: 'read',
    request: fixed(10),
    action: fixed(0),
  },
  // Not in protocol-notes c.1: taken as the portfolio read's 2.
  getBalances: {
    method: 'GET',
    path: '/v1/account/balances',
    kind: 'read',
    request: fixed(2),
    action: fixed(0),
  },
  getDeposits: {
    method: 'GET',
    path: '/v1/account/deposits',
    kind: 'read',
    request: fixed(10),
    action: fixed(0),
  },
  getEquityHistory: {
    method: 'GET',
    path: '/v1/account/equity',
    kind: 'read',
    request: fixed(10),
    action: fixed(0),
  },
  getPnlHistory: {
    method: 'GET',
    path: '/v1/account/pnl',
    kind: 'read',
    request: fixed(10),
    action: fixed(0),
  },
  // Not in protocol-notes c.1 (issue 35): taken as 1, like the other single-account reads and commands.
  getAccountStats: {
    method: 'GET',
    path: '/v1/account/stats',
    kind: 'read',
    request: fixed(1),
    action: fixed(0),
  },
  getNotifications: {
    method: 'GET',
    path: '/v1/account/notifications',
    kind: 'read',
    request: fixed(1),
    action: fixed(0),
  },
  deleteProxy: {
    method: 'DELETE',
    path: '/v1/account/proxy',
    kind: 'command',
    request: fixed(1),
    action: fixed(0),
  },
  withdraw: {
    method: 'POST',
    path: '/v1/account/withdraw',
    kind: 'command',
    request: fixed(1),
    action: fixed(0),
  },
}

/** The book read's weight by depth: 2 / 5 / 10 / 20 for 10 / 100 / 500 / 1000 levels. */
export function bookWeight(depth: number | undefined): number {
  const d = depth ?? 100
  return d <= 10 ? 2 : d <= 100 ? 5 : d <= 500 ? 10 : 20
}

/** Default budgets of the real venue (protocol-notes c.4). */
export const DEFAULT_REQUEST_BUDGET_PER_MINUTE = 1000
export const DEFAULT_ACTION_BUDGET_PER_MINUTE = 5000
/** Open orders an account may rest on the default tier (a create past it: 429 `open_orders_limit`). */
export const DEFAULT_ACCOUNT_OPEN_ORDER_CAP = 1000

/** Whether an endpoint changes state (sent once, never retried). */
export const isCommand = (endpoint: PerpsEndpoint): boolean => PERPS_WEIGHTS[endpoint].kind === 'command'

/** Looks an endpoint up by method and path (the mock's rate limiter keys requests this way). */
export function endpointFor(method: string, path: string): PerpsEndpoint | undefined {
  for (const [name, w] of entriesOf(PERPS_WEIGHTS)) {
    if (w.method === method && w.path === path) return name
  }
  return undefined
}
