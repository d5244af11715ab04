/**
 * The mock exchange's plain state: every account, order, proxy and market, and the counters and
 * random streams the simulation draws from. The concern modules (gate, matching, margin, accounts,
 * funding, withdrawals, wire, stepping) are functions over it; `PerpsExchange` is the façade.
 */
import type { Clock } from '../../clock.ts'
import { InputValidationError } from '../../errors.ts'
import type { FundingCharge } from '../../perps/schemas/account.ts'
import type { Instrument } from '../../perps/schemas/info.ts'
import { isOrderGoneCode, ORDER_GONE_CODES, type OrderGoneCode } from '../../perps/schemas/orders.ts'
import type { FillItem } from '../../perps/stream/pushSchemas.ts'
import { type Random, seededRandom } from '../../random.ts'
import type { TokenBucket } from '../tokenBucket.ts'
import type { DepositRecord } from './account/depositRecord.ts'
import type { PositionState } from './account/positions.ts'
import type { WithdrawalRecord } from './account/withdrawals.ts'
import { DEFAULT_INSTRUMENTS } from './instruments.ts'
import { createMarket, type Market } from './market/market.ts'
import type { StepConstants } from './market/priceProcess.ts'
import { isScenarioName, type ScenarioName } from './market/scenarios.ts'
import {
  isModifyOrdersLayout,
  MODIFY_ORDERS_LAYOUTS,
  type ModifyOrdersLayout,
  type PerpsExchangeOptions,
  type Resolved,
  resolveOptions,
  unknownScenario,
} from './options.ts'
import { ReplayGuard } from './signatures/replay.ts'
import { recoveringSignerCheck, type SignerCheck } from './signatures/signerRecovery.ts'

export type OrderStatus =
  | 'open'
  | 'partial'
  | 'filled'
  | 'cancelled'
  | 'auto_cancelled'
  | 'post_only_rejected'
  | 'ioc_no_fill'
  | 'fok_unfilled'
  | 'reduce_only_invalid'

export interface OrderState {
  oid: number
  iid: number
  buy: boolean
  price: bigint
  qty: bigint
  filled: bigint
  tif: 'gtc' | 'ioc' | 'fok'
  po: boolean
  ro: boolean
  status: OrderStatus
  cts: number
  uts: number
  coid: string | undefined
  account: Account
  /** The instrument's price and quantity decimals (for the wire). */
  pd: number
  qd: number
}

export interface ProxyRecord {
  proxy: string
  secret: string
  expiry: number
  label: string | undefined
  account: Account
}

/** The account's dead-man switch (autoCancel.ts). */
export interface AutoCancelState {
  /** Unix ms; 0 = not armed. */
  deadline: number
  /** UTC day (days since the epoch) that `triggered` counts. */
  day: number
  /** Times the switch fired on `day`. */
  triggered: number
}

export interface Account {
  owner: string
  key: string
  collateral: bigint
  positions: Map<number, PositionState>
  leverage: Map<number, number>
  /** Margin mode per instrument: false = isolated (default cross). Reported; the maths stay cross. */
  cross: Map<number, boolean>
  /** Isolated margin moved in (+) or out (−) per instrument, USD micros (updateMargin; reported only). */
  isolatedMargin: Map<number, bigint>
  /** Every kept order by oid, in creation order; `open` holds the resting ones. */
  orders: Map<number, OrderState>
  open: Map<number, OrderState>
  funding: FundingCharge[]
  /** Trades of this account, oldest first, as `GET /v1/account/fills` serves them (bounded). */
  fills: FillRow[]
  withdrawals: WithdrawalRecord[]
  /** Deposits from the chain, oldest first (deposits.ts). */
  deposits: DepositRecord[]
  referralCode: string
  referredBy: string | undefined
  proxies: ProxyRecord[]
  bucket: TokenBucket
  inLiquidation: boolean
  nextLiquidationAt: number
  volumeMicros: bigint
  feesMicros: bigint
  autoCancel: AutoCancelState
}

/**
 * A fill as the `fills` channel pushes it (terse keys, protocol-notes d): decimals as strings.
 * `GET /v1/account/fills` serves the same row with the long keys (`restFillWire`).
 */
export interface FillRow {
  tid: number
  oid: number
  iid: number
  side: 'long' | 'short'
  p: string
  qty: string
  taker: boolean
  fee: string
  fea: string
  /** Position size and average entry before the fill (the bindings' previousSize / previousEntryPrice). */
  psz: string
  pep: string
  pnl: string
  liq: boolean
  ts: number
  coid?: string
}

export interface ExchangeState {
  readonly clock: Pick<Clock, 'now'>
  readonly o: Resolved
  readonly markets: readonly Market[]
  readonly byId: Map<number, Market>
  readonly byAsset: Map<string, Market>
  /** By lower-cased owner address. */
  readonly accounts: Map<string, Account>
  /** By lower-cased proxy address. */
  readonly proxies: Map<string, ProxyRecord>
  /** Resting orders per instrument id. */
  readonly resting: Map<number, Set<OrderState>>
  readonly activeWithdrawals: Map<WithdrawalRecord, Account>
  readonly activeDeposits: Map<DepositRecord, Account>
  /** Accounts whose dead-man switch is armed. */
  readonly autoCancelArmed: Set<Account>
  readonly replay: ReplayGuard
  /** Separate streams so that account activity never shifts the market's price path. */
  readonly accountRng: Random
  readonly fillRng: Random
  readonly scenarioRng: Random
  readonly instrumentWire: readonly Instrument[]
  simTime: number
  scenario: ScenarioName
  nextOid: number
  nextWithdrawId: number
  nextFundingId: number
  /** Deposits recorded so far (their hashes derive from it). */
  depositCount: number
  fills: number
  lastTradeAt: number
  constants: StepConstants | undefined
  /** Which signed layout of `modifyOrders` the gate verifies. */
  modifyOrdersLayout: ModifyOrdersLayout
  /** The codes an order that left the book is answered with (`PerpsExchangeOptions.goneCodes`), and their draw. */
  readonly goneCodes: readonly OrderGoneCode[]
  readonly goneRng: Random
  /** Who signed each verified command body (gate.ts), for its answer's per-signer rate-limit headers. */
  readonly commandSigners: WeakMap<object, string>
  readonly signerRateLimitHeaders: boolean
  /** Who signed a command (the default recovers at once; see `PerpsExchangeOptions.signerCheck`). */
  readonly signers: SignerCheck
  /** The mock WebSocket's hooks (the façade's `onFill`): each fill of an order, as the push item. */
  readonly fillListeners: Set<(owner: string, fill: FillItem) => void>
  /** …and `onOrderChange`: each order created or changed (book.ts `touched`). */
  readonly orderListeners: Set<(order: OrderState) => void>
  /** The façade's `onTrade`: every trade booked on an account, a liquidation's too (never pushed). */
  readonly tradeListeners: Set<(owner: string, fill: FillItem) => void>
}

/** A cache of a pure function (digest, sig) → signer, shared by every mock in the process: it only saves time. */
const SHARED_SIGNER_CHECK = recoveringSignerCheck()

export const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/
const FIRST_ORDER_ID = 1_000_001

/**
 * A fresh state with its markets and random streams; `simTime` is set to the start of the history
 * window, which `startHistory` (stepping.ts) then simulates.
 * @throws {@link InputValidationError} for bad options.
 */
export function createState(options: PerpsExchangeOptions, signatureWindowMs: number): ExchangeState {
  const o = resolveOptions(options)
  const scenario = options.scenario ?? 'calm'
  if (!isScenarioName(scenario)) throw unknownScenario(scenario)
  const layout = options.modifyOrdersLayout ?? 'oid-p-qty'
  if (!isModifyOrdersLayout(layout)) throw unknownModifyLayout(layout)
  const specs = options.instruments ?? DEFAULT_INSTRUMENTS
  if (specs.length === 0) throw new InputValidationError('at least one instrument is required')
  const markets = specs.map((spec) => createMarket(spec, o.seed, o.klineCapacity))
  const byId = new Map<number, Market>()
  const byAsset = new Map<string, Market>()
  for (const m of markets) {
    if (byId.has(m.spec.id)) throw new InputValidationError(`duplicate instrument id ${m.spec.id}`)
    if (byAsset.has(m.spec.baseAsset))
      throw new InputValidationError(`duplicate base asset ${m.spec.baseAsset}`)
    byId.set(m.spec.id, m)
    byAsset.set(m.spec.baseAsset, m)
  }
  const now = Math.floor(options.clock.now())
  return {
    clock: options.clock,
    o,
    markets,
    byId,
    byAsset,
    accounts: new Map(),
    proxies: new Map(),
    resting: new Map(),
    activeWithdrawals: new Map(),
    activeDeposits: new Map(),
    autoCancelArmed: new Set(),
    replay: new ReplayGuard(signatureWindowMs),
    accountRng: seededRandom(o.seed ^ 0x0acc0acc),
    fillRng: seededRandom(o.seed ^ 0x0f111f11),
    scenarioRng: seededRandom(o.seed ^ 0x05ce0a10),
    instrumentWire: markets.map((m) => m.wire),
    simTime: Math.floor(now / o.stepMs) * o.stepMs - o.historyMinutes * 60_000,
    scenario,
    nextOid: FIRST_ORDER_ID,
    nextWithdrawId: 1,
    nextFundingId: 1,
    depositCount: 0,
    fills: 0,
    lastTradeAt: 0,
    constants: undefined,
    modifyOrdersLayout: layout,
    goneCodes: goneCodesOf(options.goneCodes),
    goneRng: seededRandom(o.seed ^ 0x060e0c0d),
    commandSigners: new WeakMap(),
    signerRateLimitHeaders: options.signerRateLimitHeaders === true,
    signers: options.signerCheck ?? SHARED_SIGNER_CHECK,
    fillListeners: new Set(),
    orderListeners: new Set(),
    tradeListeners: new Set(),
  }
}

const OFFICIAL_GONE_CODES: readonly OrderGoneCode[] = [
  'order_not_found',
  'order_not_in_orderbook',
  'order_unknown',
]

function goneCodesOf(codes: readonly OrderGoneCode[] | undefined): readonly OrderGoneCode[] {
  if (codes === undefined) return OFFICIAL_GONE_CODES
  if (codes.length === 0 || codes.some((c) => !isOrderGoneCode(c)))
    throw new InputValidationError(`goneCodes must name codes of ${ORDER_GONE_CODES.join(', ')}`)
  return [...codes]
}

/** The answer to a cancel or modify of an order that left the book: a seeded draw from `goneCodes`. */
export function goneCode(s: ExchangeState): OrderGoneCode {
  return s.goneCodes[Math.floor(s.goneRng.next() * s.goneCodes.length)] ?? 'order_not_found'
}

export function unknownModifyLayout(layout: string): InputValidationError {
  return new InputValidationError(
    `unknown modifyOrders layout ${JSON.stringify(layout)} (known: ${MODIFY_ORDERS_LAYOUTS.join(', ')})`,
  )
}

/** The clock's now in whole ms. */
export function nowOf(s: ExchangeState): number {
  return Math.floor(s.clock.now())
}

export function marketOf(s: ExchangeState, iid: number): Market {
  const m = s.byId.get(iid)
  if (m === undefined) throw new InputValidationError(`unknown instrument ${iid}`)
  return m
}

/** By base asset or symbol (test hooks). */
export function marketForAsset(s: ExchangeState, asset: string): Market {
  const m = s.byAsset.get(asset) ?? s.markets.find((x) => x.spec.symbol === asset)
  if (m === undefined) throw new InputValidationError(`unknown asset ${JSON.stringify(asset)}`)
  return m
}

export function randomString(s: ExchangeState, alphabet: string, length: number): string {
  let out = ''
  for (let i = 0; i < length; i++) out += alphabet[Math.floor(s.accountRng.next() * alphabet.length)]
  return out
}

export function randomHex(s: ExchangeState, bytes: number): string {
  let out = '0x'
  for (let i = 0; i < bytes; i++)
    out += Math.floor(s.accountRng.next() * 256)
      .toString(16)
      .padStart(2, '0')
  return out
}
