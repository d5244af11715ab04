/**
 * The mock Perps exchange core: a pure, seeded, deterministic venue. There are no timers: every entry
 * point first calls `advanceTo(clock.now())`, which steps the simulation in fixed increments from the
 * last simulated time (prices, klines, fills of resting orders, funding, withdrawals, liquidations).
 * The same seed and the same calls at the same clock times give byte-identical answers.
 *
 * Methods return wire bodies (typed by our zod schemas) and throw `MockRejection` for error answers;
 * `createPerpsHandler` (handler.ts) maps HTTP onto them. Decisions where the venue is silent are
 * marked "Decision:" in comments.
 */
import { recoverTypedDataAddress } from 'viem'
import type { Clock } from '../../clock.ts'
import { divRound, fromTicks, toTicks } from '../../decimal.ts'
import { BotError, InputValidationError } from '../../errors.ts'
import type {
  CreateProxyResult,
  Credentials,
  FundingCharge,
  FundingPage,
  Portfolio,
  Position,
  WithdrawalsPage,
} from '../../perps/schemas/account.ts'
import type {
  CollateralAsset,
  ExchangeInfo,
  FeeSchedule,
  Index,
  Instrument,
  PublicPortfolio,
  ServerTime,
  StatisticsItem,
} from '../../perps/schemas/info.ts'
import type {
  CancelResult,
  CreateOrderAck,
  ModifyResult,
  Order,
  OrderDataWire,
} from '../../perps/schemas/orders.ts'
import type { Ticker } from '../../perps/schemas/tickers.ts'
import { DEFAULT_PERPS_DOMAIN, type PerpsDomain } from '../../perps/signing/domain.ts'
import type { CreateOrderBody, ModifyOrderInput, PerpsOp } from '../../perps/signing/ops.ts'
import { MAX_EXP_AHEAD_MS } from '../../perps/signing/timing.ts'
import { createProxyTypedData, opTypedData } from '../../perps/signing/typedData.ts'
import {
  type ParsedSignedCommand,
  parseCreateProxyBody,
  parseSignedCommand,
} from '../../perps/signing/verify.ts'
import type { FillItem } from '../../perps/stream/pushSchemas.ts'
import { DEFAULT_ACTION_BUDGET_PER_MINUTE } from '../../perps/weights.ts'
import { type Random, seededRandom } from '../../random.ts'
import { TokenBucket } from '../tokenBucket.ts'
import { badRequest, MockRejection, TEXT, unauthorized, unprocessable } from './errors.ts'
import {
  type CollateralSpec,
  collateralToWire,
  DEFAULT_COLLATERAL,
  DEFAULT_FEE_TIERS,
  DEFAULT_INSTRUMENTS,
  type FeeTierSpec,
  feeScheduleToWire,
  type InstrumentSpec,
} from './instruments.ts'
import {
  askTicks,
  bidTicks,
  createMarket,
  indexToWire,
  type Market,
  setMarketPrice,
  statisticsToWire,
  stepMarket,
  takeFundingRate,
  withinBounds,
} from './market.ts'
import {
  abs,
  applyRate,
  maxBig,
  minBig,
  notionalMicros,
  parseUsd,
  rateString,
  rescaleTicks,
  sign,
  toScaled,
  USD_DECIMALS,
  usd,
} from './money.ts'
import { checkClientOrderId, checkPrice, checkQuantity } from './orderRules.ts'
import {
  applyFill,
  entryPriceString,
  liquidationPriceTicks,
  newPosition,
  type PositionState,
  scaledToMicros,
  tierMaxLeverage,
  unrealizedScaled,
} from './positions.ts'
import { REGIMES, type RegimeName, type StepConstants, stepConstants } from './priceProcess.ts'
import { ReplayGuard } from './replay.ts'
import {
  isScenarioName,
  SCENARIO_NAMES,
  SCENARIOS,
  type ScenarioControls,
  type ScenarioName,
} from './scenarios.ts'
import { bboToWire, tickerToWire } from './tickerWire.ts'
import {
  DEFAULT_WITHDRAWAL_TIMING,
  progressWithdrawal,
  type WithdrawalOutcome,
  type WithdrawalRecord,
  type WithdrawalTiming,
  withdrawalToWire,
} from './withdrawals.ts'

/** Signatures older than this are `signature expired`; ts further ahead is `invalid signature`. */
export const SIGNATURE_WINDOW_MS = 5 * 60_000
/** Rows per page of the history endpoints. */
export const HISTORY_PAGE_LIMIT = 100
/** The venue's published verifying contract (protocol-notes a.1). */
export const DEFAULT_CONTRACT = '0xDCa4af75705dbB50f62437045afF9921947917d2'

export interface ProxySeed {
  proxy: string
  secret: string
  /** Unix ms. */
  expiry: number
  label?: string | undefined
}

/** An account that exists from the start (e.g. the dev account the CLI prints credentials for). */
export interface AccountSeed {
  owner: string
  /** USD; default `startingCollateral`. */
  collateral?: string | undefined
  proxies?: readonly ProxySeed[] | undefined
}

/**
 * Row order of the `{data, more}` history endpoints. `newest-first` (default) is the perps client's
 * documented paging contract (src/perps/client/historyPaging.ts): rows in [start, end] newest first,
 * the newest 100, `more` when older rows in the window did not fit. `oldest-first` returns the
 * oldest 100 in ascending order instead.
 */
export type HistoryOrder = 'newest-first' | 'oldest-first'

export interface PerpsExchangeOptions {
  /** Only `now()` is read; a virtual clock makes runs reproducible. */
  clock: Pick<Clock, 'now'>
  /** Seed of every random stream (prices, secrets, hashes, fills). Default 1. */
  seed?: number | undefined
  instruments?: readonly InstrumentSpec[] | undefined
  /** A name from `SCENARIO_NAMES`; default `calm`. */
  scenario?: string | undefined
  /** USD collateral of a new account. Default "100000". */
  startingCollateral?: string | undefined
  /** Leverage setting of an account on an instrument it has not configured (capped by the instrument). Default 10. */
  defaultLeverage?: number | undefined
  /** Per-account action tokens per minute. Default 5,000. */
  actionBudgetPerMinute?: number | undefined
  /** Resting orders per account across instruments. Default 1,000. */
  accountOpenOrderLimit?: number | undefined
  domain?: PerpsDomain | undefined
  contract?: string | undefined
  collateral?: CollateralSpec | undefined
  feeTiers?: readonly FeeTierSpec[] | undefined
  accounts?: readonly AccountSeed[] | undefined
  /** Simulation step. Default 1,000 ms. */
  stepMs?: number | undefined
  /** Minutes of 1-minute history simulated before the start. Default 1,440 (0 = none). */
  historyMinutes?: number | undefined
  /** Klines kept per instrument. Default 1,440 (24 h). */
  klineCapacity?: number | undefined
  /** A clock jump longer than this is not simulated beyond its last part. Default 24 h. */
  maxCatchUpMs?: number | undefined
  /** Upper bound of instrument-steps per `advanceTo`; long jumps are stepped more coarsely. Default 1,000,000. */
  maxInstrumentStepsPerAdvance?: number | undefined
  /** Closed orders kept per account for `GET /v1/account/orders`. Default 10,000. */
  orderHistoryLimit?: number | undefined
  /** Funding rows kept per account. Default 10,000. */
  fundingHistoryLimit?: number | undefined
  historyOrder?: HistoryOrder | undefined
  /** While in liquidation, positions are cut by `liquidationFraction` every `liquidationIntervalMs`. */
  liquidationIntervalMs?: number | undefined
  liquidationFraction?: number | undefined
  withdrawalTiming?: Partial<WithdrawalTiming> | undefined
}

export interface InstrumentFilter {
  instrumentId?: number | undefined
  instrumentType?: string | undefined
  category?: string | undefined
}

export interface HistoryWindowFilter {
  startTimestamp?: number | undefined
  endTimestamp?: number | undefined
}

export interface WithdrawalFilter extends HistoryWindowFilter {
  status?: string | undefined
  hash?: string | undefined
}

export interface FundingFilter extends HistoryWindowFilter {
  instrumentId?: number | undefined
}

export interface OrderHistoryFilter extends HistoryWindowFilter {
  orderId?: number | undefined
  clientOrderId?: string | undefined
  instrumentId?: number | undefined
}

/** `GET /v1/account/referral` (OpenAPI B shape). */
export interface AccountReferral {
  code: string
  parent?: string | undefined
  children_count: number
  referrals_left: number
  fee_share_rate: string
  active_children_count: number
  children_volume: string
  children_fees: string
}

export interface WithdrawalRequest {
  /** USD (decimal string). */
  amount: string
  /** Destination; default the owner address. */
  to?: string | undefined
  outcome?: WithdrawalOutcome | undefined
  timing?: Partial<WithdrawalTiming> | undefined
}

export interface AccountView {
  owner: string
  collateral: string
  equity: string
  inLiquidation: boolean
  portfolio: Portfolio
  openOrders: OrderDataWire[]
  proxies: { proxy: string; expiry: number; label?: string | undefined }[]
}

export interface ExchangeSnapshot {
  time: number
  simTime: number
  scenario: ScenarioName
  markets: {
    instrument_id: number
    symbol: string
    regime: RegimeName
    index_price: string
    mark_price: string
    funding_rate: string
  }[]
  accounts: {
    owner: string
    collateral: string
    equity: string
    in_liquidation: boolean
    positions: { instrument_id: number; size: string; entry_price: string }[]
    open_orders: number
    withdrawals: { withdraw_id: number; status: string }[]
    funding_rows: number
  }[]
  fills: number
  /** Time of the last fill (0 before any). */
  last_fill_at: number
}

type OrderStatus =
  | 'open'
  | 'partial'
  | 'filled'
  | 'cancelled'
  | 'post_only_rejected'
  | 'ioc_no_fill'
  | 'fok_unfilled'
  | 'reduce_only_invalid'

interface OrderState {
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

interface ProxyRecord {
  proxy: string
  secret: string
  expiry: number
  label: string | undefined
  account: Account
}

interface Account {
  owner: string
  key: string
  collateral: bigint
  positions: Map<number, PositionState>
  leverage: Map<number, number>
  /** Every kept order by oid, in creation order; `open` holds the resting ones. */
  orders: Map<number, OrderState>
  open: Map<number, OrderState>
  funding: FundingCharge[]
  withdrawals: WithdrawalRecord[]
  referralCode: string
  referredBy: string | undefined
  proxies: ProxyRecord[]
  bucket: TokenBucket
  inLiquidation: boolean
  nextLiquidationAt: number
  volumeMicros: bigint
  feesMicros: bigint
}

interface InstrumentRisk {
  notional: bigint
  leverage: number
  im: bigint
  mm: bigint
  upnl: bigint
  /** Initial margin of the worst case max(|pos + open buys|, |pos − open sells|). */
  imWorst: bigint
}

interface AccountRisk {
  equity: bigint
  im: bigint
  mm: bigint
  imWorst: bigint
  positionValue: bigint
  perInstrument: Map<number, InstrumentRisk>
}

interface Resolved {
  seed: number
  startingCollateral: bigint
  defaultLeverage: number
  actionBudget: number
  accountOpenOrderLimit: number
  domain: PerpsDomain
  contract: string
  collateral: CollateralSpec
  feeTiers: readonly { minVolumeMicros: bigint; taker: bigint; maker: bigint }[]
  feeSchedule: FeeSchedule
  stepMs: number
  historyMinutes: number
  klineCapacity: number
  maxCatchUpMs: number
  maxInstrumentSteps: number
  orderHistoryLimit: number
  fundingHistoryLimit: number
  historyOrder: HistoryOrder
  liquidationIntervalMs: number
  liquidationFractionPpm: bigint
  withdrawalTiming: WithdrawalTiming
}

const ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/
const SIG_RE = /^0x[0-9a-fA-F]{128}(1b|1c|1B|1C)$/
const REFERRAL_RE = /^[A-Za-z0-9_-]{1,64}$/
const SECRET_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const REFERRAL_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZ23456789'
const MAX_REFERRALS = 10
const FIRST_ORDER_ID = 1_000_001

export class PerpsExchange {
  readonly #clock: Pick<Clock, 'now'>
  readonly #o: Resolved
  readonly #markets: Market[]
  readonly #byId = new Map<number, Market>()
  readonly #byAsset = new Map<string, Market>()
  readonly #accounts = new Map<string, Account>()
  readonly #proxies = new Map<string, ProxyRecord>()
  readonly #resting = new Map<number, Set<OrderState>>()
  readonly #activeWithdrawals = new Map<WithdrawalRecord, Account>()
  readonly #replay = new ReplayGuard(SIGNATURE_WINDOW_MS)
  /** Separate streams so that account activity never shifts the market's price path. */
  readonly #accountRng: Random
  readonly #fillRng: Random
  readonly #scenarioRng: Random
  readonly #instrumentWire: Instrument[]
  #simTime: number
  #scenario: ScenarioName
  #nextOid = FIRST_ORDER_ID
  #nextWithdrawId = 1
  #nextFundingId = 1
  #fills = 0
  #lastTradeAt = 0
  #constants: StepConstants | undefined
  /** The stream server's hook: each fill of an order, as the `fills` push item. */
  readonly #fillListeners = new Set<(owner: string, fill: FillItem) => void>()
  /** …and each order created or changed; `order()` reads its state when called (after the change). */
  readonly #orderListeners = new Set<(owner: string, oid: number, order: () => Order) => void>()

  constructor(options: PerpsExchangeOptions) {
    this.#clock = options.clock
    this.#o = resolveOptions(options)
    const scenario = options.scenario ?? 'calm'
    if (!isScenarioName(scenario)) throw unknownScenario(scenario)
    this.#scenario = scenario
    const specs = options.instruments ?? DEFAULT_INSTRUMENTS
    if (specs.length === 0) throw new InputValidationError('at least one instrument is required')
    this.#markets = specs.map((s) => createMarket(s, this.#o.seed, this.#o.klineCapacity))
    for (const m of this.#markets) {
      if (this.#byId.has(m.spec.id)) throw new InputValidationError(`duplicate instrument id ${m.spec.id}`)
      if (this.#byAsset.has(m.spec.baseAsset))
        throw new InputValidationError(`duplicate base asset ${m.spec.baseAsset}`)
      this.#byId.set(m.spec.id, m)
      this.#byAsset.set(m.spec.baseAsset, m)
    }
    this.#instrumentWire = this.#markets.map((m) => m.wire)
    const seed = this.#o.seed
    this.#accountRng = seededRandom(seed ^ 0x0acc0acc)
    this.#fillRng = seededRandom(seed ^ 0x0f111f11)
    this.#scenarioRng = seededRandom(seed ^ 0x05ce0a10)

    // History: simulate the last `historyMinutes` in 1-minute steps so statistics start full.
    const now = this.#alignedNow()
    this.#simTime = now - this.#o.historyMinutes * 60_000
    this.#run(now, this.#o.historyMinutes > 0 ? 60_000 : this.#o.stepMs)
    SCENARIOS[this.#scenario].activate(this.#controls)
    for (const seedAccount of options.accounts ?? []) this.registerAccount(seedAccount)
  }

  // ---- simulation ------------------------------------------------------------------------------

  /** The simulated time (a multiple of the step, at most the clock's now). */
  get simTime(): number {
    return this.#simTime
  }

  get scenario(): ScenarioName {
    return this.#scenario
  }

  /** Advances the simulation to the clock's now. Every public entry point calls it first. */
  sync(): void {
    this.advanceTo(this.#clock.now())
  }

  /**
   * Steps the simulation up to `time` (ms). Jumps longer than `maxCatchUpMs` simulate only their
   * last part; long jumps use a coarser step so the work stays under `maxInstrumentStepsPerAdvance`.
   */
  advanceTo(time: number): void {
    const target = Math.floor(time / this.#o.stepMs) * this.#o.stepMs
    if (target <= this.#simTime) return
    const maxGap = Math.floor(this.#o.maxCatchUpMs / this.#o.stepMs) * this.#o.stepMs
    if (target - this.#simTime > maxGap) this.#simTime = target - maxGap
    const steps = (target - this.#simTime) / this.#o.stepMs
    const factor = Math.max(1, Math.ceil((steps * this.#markets.length) / this.#o.maxInstrumentSteps))
    this.#run(target, factor * this.#o.stepMs)
  }

  #run(target: number, stride: number): void {
    while (this.#simTime < target) {
      const dt = Math.min(stride, target - this.#simTime)
      this.#simTime += dt
      this.#step(this.#simTime, dt)
    }
  }

  #step(t: number, dtMs: number): void {
    if (this.#constants?.dt !== dtMs / 1000) this.#constants = stepConstants(dtMs / 1000)
    const k = this.#constants
    for (const m of this.#markets) {
      const boundaries = stepMarket(m, t, dtMs, k)
      for (const b of boundaries) this.#settleFunding(m, b)
      this.#fillResting(m, t, dtMs)
    }
    for (const [w, account] of this.#activeWithdrawals) {
      if (progressWithdrawal(w, t, () => this.#randomHex(32)))
        account.collateral += w.amountMicros + w.feeMicros
      if (w.status !== 'pending') this.#activeWithdrawals.delete(w)
    }
    for (const account of this.#accounts.values()) this.#checkLiquidation(account, t)
  }

  /** Switches the scenario now: sets its regimes and seeds every existing account. */
  setScenario(name: string): void {
    if (!isScenarioName(name)) throw unknownScenario(name)
    this.sync()
    this.#scenario = name
    for (const m of this.#markets) m.schedule = []
    SCENARIOS[name].activate(this.#controls)
    for (const account of this.#accounts.values()) this.#seed(account)
  }

  /**
   * Pins an asset's index and mark to `price` now (fills and liquidation checks run at once). A test
   * hook: the price is kept exactly (rounded to the instrument's decimals only, not to 5 figures).
   */
  setIndexPrice(asset: string, price: string): void {
    this.sync()
    const m = this.#marketForAsset(asset)
    const ticks = toTicks(price, m.spec.priceDecimals, 'half-even')
    if (ticks <= 0n) throw new InputValidationError('index price must be positive')
    setMarketPrice(m, ticks)
    m.klines.record(this.#simTime, Number(ticks), 0, 0)
    this.#fillResting(m, this.#simTime, this.#o.stepMs)
    for (const account of this.#accounts.values()) this.#checkLiquidation(account, this.#simTime)
  }

  /** Sets an asset's regime now and drops its scheduled switches (`frozen` stops the price). */
  setRegime(asset: string, regime: RegimeName): void {
    if (!(REGIMES as readonly string[]).includes(regime))
      throw new InputValidationError(`unknown regime ${JSON.stringify(regime)}`)
    this.sync()
    const m = this.#marketForAsset(asset)
    m.regime = regime
    m.schedule = []
  }

  /** Creates an account (and its proxies) unless it exists; a new account is seeded by the scenario. */
  registerAccount(seed: AccountSeed): void {
    this.sync()
    if (!ADDRESS_RE.test(seed.owner)) throw new InputValidationError('account owner must be a 0x address')
    const account = this.#ensureAccount(
      seed.owner,
      seed.collateral === undefined ? undefined : parseUsd(seed.collateral),
    )
    for (const p of seed.proxies ?? []) {
      if (!ADDRESS_RE.test(p.proxy)) throw new InputValidationError('proxy must be a 0x address')
      if (p.secret.length === 0) throw new InputValidationError('proxy secret must not be empty')
      this.#addProxy(account, p.proxy, p.secret, p.expiry, p.label)
    }
  }

  /**
   * Starts a withdrawal from `owner`'s collateral (amount + fee debited now, refunded on failure).
   * @throws {@link InputValidationError} for an unknown account, a bad amount or insufficient balance.
   */
  requestWithdrawal(owner: string, request: WithdrawalRequest): number {
    this.sync()
    const account = this.#accounts.get(owner.toLowerCase())
    if (account === undefined) throw new InputValidationError(`unknown account ${owner}`)
    return this.#withdraw(account, request)
  }

  /** Sets an account's leverage on an instrument (1..max_leverage). */
  setLeverage(owner: string, instrumentId: number, leverage: number): void {
    this.sync()
    const account = this.#accounts.get(owner.toLowerCase())
    const m = this.#byId.get(instrumentId)
    if (account === undefined || m === undefined)
      throw new InputValidationError('unknown account or instrument')
    if (!Number.isInteger(leverage) || leverage < 1 || leverage > m.spec.maxLeverage)
      throw new InputValidationError(`leverage must be an integer in 1..${m.spec.maxLeverage}`)
    account.leverage.set(instrumentId, leverage)
  }

  /** An account by owner or proxy address (tests and scenarios). */
  accountOf(address: string): AccountView | undefined {
    this.sync()
    const key = address.toLowerCase()
    const account = this.#accounts.get(key) ?? this.#proxies.get(key)?.account
    if (account === undefined) return undefined
    const risk = this.#risk(account)
    return {
      owner: account.owner,
      collateral: usd(account.collateral),
      equity: usd(risk.equity),
      inLiquidation: account.inLiquidation,
      portfolio: this.#portfolioWire(account, risk),
      openOrders: [...account.open.values()].map(orderDataWire),
      proxies: account.proxies.map((p) => ({ proxy: p.proxy, expiry: p.expiry, label: p.label })),
    }
  }

  /** A JSON-safe summary of the whole venue. */
  snapshot(): ExchangeSnapshot {
    this.sync()
    return {
      time: this.#now(),
      simTime: this.#simTime,
      scenario: this.#scenario,
      markets: this.#markets.map((m) => ({
        instrument_id: m.spec.id,
        symbol: m.spec.symbol,
        regime: m.regime,
        index_price: fromTicks(m.indexTicks, m.spec.priceDecimals),
        mark_price: fromTicks(m.markTicks, m.spec.priceDecimals),
        funding_rate: rateString(m.lastFundingRate),
      })),
      accounts: [...this.#accounts.values()].map((a) => ({
        owner: a.owner,
        collateral: usd(a.collateral),
        equity: usd(this.#risk(a).equity),
        in_liquidation: a.inLiquidation,
        positions: [...a.positions.values()].map((p) => {
          const m = this.#market(p.iid)
          return {
            instrument_id: p.iid,
            size: fromTicks(p.size, m.spec.quantityDecimals),
            entry_price: entryPriceString(p, m.spec.priceDecimals),
          }
        }),
        open_orders: a.open.size,
        withdrawals: a.withdrawals.map((w) => ({ withdraw_id: w.id, status: w.status })),
        funding_rows: a.funding.length,
      })),
      fills: this.#fills,
      last_fill_at: this.#lastTradeAt,
    }
  }

  /** Instrument specs in catalogue order. */
  instrumentSpecs(): readonly InstrumentSpec[] {
    return this.#markets.map((m) => m.spec)
  }

  // ---- public information ----------------------------------------------------------------------

  time(): ServerTime {
    this.sync()
    return { time: this.#now() }
  }

  exchangeInfo(): ExchangeInfo {
    this.sync()
    const d = this.#o.domain
    return { name: d.name, version: d.version, chain_id: d.chainId, contract: this.#o.contract }
  }

  instruments(filter: InstrumentFilter = {}): Instrument[] {
    this.sync()
    return this.#instrumentWire.filter(
      (i) =>
        (filter.instrumentId === undefined || i.instrument_id === filter.instrumentId) &&
        (filter.instrumentType === undefined || i.instrument_type === filter.instrumentType) &&
        (filter.category === undefined || i.category === filter.category),
    )
  }

  /** @throws {@link MockRejection} 400 for an unknown asset. */
  index(asset: string): Index {
    this.sync()
    const m = this.#byAsset.get(asset)
    if (m === undefined) throw badRequest(`unknown asset: ${asset}`)
    return indexToWire(m, this.#now())
  }

  /** Decision: `instrument_id` filters (the live venue is observed to ignore it). */
  statistics(instrumentId?: number | undefined): StatisticsItem[] {
    this.sync()
    const now = this.#now()
    return this.#markets
      .filter((m) => instrumentId === undefined || m.spec.id === instrumentId)
      .map((m) => statisticsToWire(m, now))
  }

  /** `GET /v1/info/tickers`; open interest is the sum of the accounts' long sizes. */
  tickers(instrumentId?: number | undefined): Ticker[] {
    this.sync()
    const now = this.#now()
    return this.#markets
      .filter((m) => instrumentId === undefined || m.spec.id === instrumentId)
      .map((m) => {
        let oi = 0n
        for (const a of this.#accounts.values()) oi += maxBig(0n, a.positions.get(m.spec.id)?.size ?? 0n)
        return tickerToWire(m, now, oi)
      })
  }

  /** Best bid and offer of the synthetic book (`bbo::{iid}` pushes). */
  bbo(): ReturnType<typeof bboToWire>[] {
    this.sync()
    return this.#markets.map(bboToWire)
  }

  /** Calls `listener` with every fill of an order (the mock's WebSocket); returns the unsubscribe. */
  onFill(listener: (owner: string, fill: FillItem) => void): () => void {
    this.#fillListeners.add(listener)
    return () => this.#fillListeners.delete(listener)
  }

  /** Calls `listener` when an order is created or changes (the mock's WebSocket); returns the unsubscribe. */
  onOrderChange(listener: (owner: string, oid: number, order: () => Order) => void): () => void {
    this.#orderListeners.add(listener)
    return () => this.#orderListeners.delete(listener)
  }

  #touched(order: OrderState): void {
    for (const listener of this.#orderListeners)
      listener(order.account.owner, order.oid, () => orderWire(order))
  }

  fees(): FeeSchedule {
    this.sync()
    return this.#o.feeSchedule
  }

  assets(): CollateralAsset[] {
    this.sync()
    return [collateralToWire(this.#o.collateral)]
  }

  /** Decision: an address without an account has an empty portfolio and equity 0. */
  publicPortfolio(address: string): PublicPortfolio {
    this.sync()
    const account = this.#accounts.get(address.toLowerCase())
    if (account === undefined) return { positions: [], equity: '0', timestamp: this.#now() }
    const risk = this.#risk(account)
    const full = this.#portfolioWire(account, risk)
    return {
      positions: full.positions.map((p) => ({
        instrument_id: p.instrument_id,
        symbol: p.symbol,
        size: p.size,
        entry_price: p.entry_price,
        unrealized_pnl: p.unrealized_pnl,
        return_on_equity: p.return_on_equity,
      })),
      equity: usd(risk.equity),
      timestamp: this.#now(),
    }
  }

  // ---- header-authenticated account reads ------------------------------------------------------

  /**
   * Resolves a proxy/secret header pair to the owner address.
   * @throws {@link MockRejection} 401 `unauthorized` when missing, wrong or the proxy is expired.
   */
  authenticate(proxy: string | undefined, secret: string | undefined): string {
    this.sync()
    if (proxy === undefined || secret === undefined) throw unauthorized()
    const record = this.#proxies.get(proxy.toLowerCase())
    if (record === undefined || record.secret !== secret || record.expiry <= this.#now()) throw unauthorized()
    return record.account.owner
  }

  credentials(owner: string): Credentials {
    const account = this.#authed(owner)
    return {
      address: account.owner,
      keys: account.proxies.map((p) =>
        p.label === undefined
          ? { proxy: p.proxy, expiry: p.expiry }
          : { proxy: p.proxy, expiry: p.expiry, label: p.label },
      ),
    }
  }

  portfolio(owner: string): Portfolio {
    const account = this.#authed(owner)
    return this.#portfolioWire(account, this.#risk(account))
  }

  withdrawals(owner: string, filter: WithdrawalFilter = {}): WithdrawalsPage {
    const account = this.#authed(owner)
    const rows = account.withdrawals.filter(
      (w) =>
        (filter.status === undefined || w.status === filter.status) &&
        (filter.hash === undefined || w.hash.toLowerCase() === filter.hash.toLowerCase()),
    )
    return this.#page(rows, (w) => w.createdAt, filter, withdrawalToWire)
  }

  funding(owner: string, filter: FundingFilter = {}): FundingPage {
    const account = this.#authed(owner)
    const rows = account.funding.filter(
      (f) => filter.instrumentId === undefined || f.instrument_id === filter.instrumentId,
    )
    return this.#page(
      rows,
      (f) => f.timestamp,
      filter,
      (f) => f,
    )
  }

  /** Resting orders (REST long names), ascending by order id. */
  openOrders(owner: string, instrumentId?: number | undefined): OrderDataWire[] {
    const account = this.#authed(owner)
    return [...account.open.values()]
      .filter((o) => instrumentId === undefined || o.iid === instrumentId)
      .map(orderDataWire)
  }

  /** Latest state of kept orders matching the filter; same window/order rule as the history pages, bare array. */
  orders(owner: string, filter: OrderHistoryFilter = {}): OrderDataWire[] {
    const account = this.#authed(owner)
    const rows = [...account.orders.values()].filter(
      (o) =>
        (filter.orderId === undefined || o.oid === filter.orderId) &&
        (filter.clientOrderId === undefined || o.coid === filter.clientOrderId) &&
        (filter.instrumentId === undefined || o.iid === filter.instrumentId),
    )
    return this.#page(rows, (o) => o.cts, filter, orderDataWire).data
  }

  referral(owner: string): AccountReferral {
    const account = this.#authed(owner)
    const children = [...this.#accounts.values()].filter((a) => a.referredBy === account.referralCode)
    const out: AccountReferral = {
      code: account.referralCode,
      children_count: children.length,
      referrals_left: Math.max(0, MAX_REFERRALS - children.length),
      fee_share_rate: '0.2',
      active_children_count: children.filter((c) => c.volumeMicros > 0n).length,
      children_volume: usd(children.reduce((s, c) => s + c.volumeMicros, 0n)),
      children_fees: usd(children.reduce((s, c) => s + c.feesMicros, 0n)),
    }
    if (account.referredBy !== undefined) out.parent = account.referredBy
    return out
  }

  /**
   * `POST /v1/account/referral {code}`: once per account.
   * @throws {@link MockRejection} 400 malformed code; 422 `referral_already_applied` / `self_referral`.
   */
  applyReferral(owner: string, body: unknown): { status: 'ok' } {
    const account = this.#authed(owner)
    const code = isRecord(body) ? body.code : undefined
    if (typeof code !== 'string') throw badRequest('invalid request body: missing field `code`')
    if (!REFERRAL_RE.test(code)) throw badRequest('invalid referral code')
    if (account.referredBy !== undefined) throw unprocessable('referral_already_applied')
    if (code === account.referralCode) throw unprocessable('self_referral')
    account.referredBy = code
    return { status: 'ok' }
  }

  // ---- signed commands -------------------------------------------------------------------------

  /**
   * `POST /v1/account/proxy`: the owner's EIP-712 CreateProxy signature registers a proxy.
   * @throws {@link MockRejection} 400 (malformed, stale, bad signature), 422 `proxy already exists`.
   */
  async createProxy(body: unknown): Promise<CreateProxyResult> {
    const received = this.#now()
    rejectMalformedSig(body)
    let parsed: ReturnType<typeof parseCreateProxyBody>
    try {
      parsed = parseCreateProxyBody(body)
    } catch (e) {
      throw badRequest(bodyError(e))
    }
    checkTimestamp(parsed.ts, received)
    const { owner, proxy, expiry } = parsed.op.args
    if (expiry <= received) throw badRequest('proxy expiry must be in the future')
    const signer = await recover(() =>
      recoverTypedDataAddress({
        ...createProxyTypedData(this.#o.domain, { proxy, expiry }, { salt: parsed.salt, ts: parsed.ts }),
        signature: parsed.sig,
      }),
    )
    if (signer === undefined || signer.toLowerCase() !== owner.toLowerCase())
      throw badRequest(TEXT.invalidSignature)
    // Everything below is synchronous, so concurrent requests cannot interleave with it.
    this.sync()
    const now = this.#now()
    if (this.#replay.seen(owner, parsed.salt, now)) throw badRequest(TEXT.invalidSignature)
    const existing = this.#proxies.get(proxy.toLowerCase())
    // Decision: an unexpired registration blocks re-registration; an expired one is replaced.
    if (existing !== undefined && existing.expiry > now) throw unprocessable('proxy already exists')
    this.#replay.record(owner, parsed.salt, parsed.ts, now)
    const account = this.#ensureAccount(owner, undefined)
    const secret = this.#randomString(SECRET_ALPHABET, 40)
    this.#addProxy(account, proxy, secret, expiry, parsed.label)
    // Decision: a well-formed `code` applies as a referral when the account has none; otherwise ignored.
    const code = parsed.code
    if (
      code !== undefined &&
      REFERRAL_RE.test(code) &&
      account.referredBy === undefined &&
      code !== account.referralCode
    )
      account.referredBy = code
    return { status: 'ok', secret }
  }

  /** `POST /v1/trade/orders`: one ack per order, in order. */
  async createOrders(body: unknown): Promise<CreateOrderAck[]> {
    const cmd = this.#admit(await this.#verify(body, 'createOrders'))
    const op = cmd.op as Extract<PerpsOp, { type: 'createOrders' }>
    this.#checkOpenOrderCap(cmd.account, op.args)
    this.#takeActionWeight(cmd.account, op.args.length)
    cmd.commit()
    const now = this.#now()
    return op.args.map((o) => this.#placeOrder(cmd.account, o, now))
  }

  /** `PATCH /v1/trade/orders`: new price and total quantity per order. */
  async modifyOrders(body: unknown): Promise<ModifyResult[]> {
    const cmd = this.#admit(await this.#verify(body, 'modifyOrders'))
    const op = cmd.op as Extract<PerpsOp, { type: 'modifyOrders' }>
    this.#takeActionWeight(cmd.account, op.args.length)
    cmd.commit()
    const now = this.#now()
    return op.args.map((m) => this.#modifyOrder(cmd.account, m, now))
  }

  /** `DELETE /v1/trade/orders`: per-order ok or `order_not_found`. */
  async cancelOrders(body: unknown): Promise<CancelResult[]> {
    const cmd = this.#admit(await this.#verify(body, 'cancelOrders'))
    const op = cmd.op as Extract<PerpsOp, { type: 'cancelOrders' }>
    cmd.commit()
    const now = this.#now()
    return op.args.map((oid): CancelResult => {
      const order = cmd.account.open.get(oid)
      if (order === undefined) return { status: 'err', error: 'order_not_found', oid }
      this.#closeOrder(order, 'cancelled', now)
      return order.coid === undefined ? { status: 'ok', oid } : { status: 'ok', oid, coid: order.coid }
    })
  }

  /** `DELETE /v1/trade/orders/all`: cancels every resting order (of `iid` when given). */
  async cancelAll(body: unknown): Promise<{ status: 'ok' }> {
    const cmd = this.#admit(await this.#verify(body, 'cancelAll'))
    const op = cmd.op as Extract<PerpsOp, { type: 'cancelAll' }>
    cmd.commit()
    const now = this.#now()
    for (const order of [...cmd.account.open.values()]) {
      if (op.args.iid === undefined || order.iid === op.args.iid) this.#closeOrder(order, 'cancelled', now)
    }
    return { status: 'ok' }
  }

  /**
   * First half of the gate of the proxy-signed ops, with no effect on state: shape, freshness, exp,
   * signature recovery. Decision on check order: body shape, `no orders provided`, ts, exp, signature,
   * then (in `#admit`) account and salt.
   */
  async #verify(
    body: unknown,
    type: PerpsOp['type'],
  ): Promise<{ parsed: ParsedSignedCommand; signer: string }> {
    const received = this.#now()
    rejectMalformedSig(body)
    let parsed: ParsedSignedCommand
    try {
      parsed = parseSignedCommand(body)
    } catch (e) {
      throw badRequest(bodyError(e))
    }
    const op = parsed.built.op
    if (op.type !== type) throw badRequest(`invalid request body: op.type must be ${type}`)
    if (Array.isArray(op.args) && op.args.length === 0) throw badRequest(TEXT.noOrders)
    checkTimestamp(parsed.stamp.ts, received)
    if (parsed.exp !== undefined) {
      if (parsed.exp <= received) throw badRequest(TEXT.commandExpired)
      if (parsed.exp > received + MAX_EXP_AHEAD_MS) throw badRequest(TEXT.expiryTooFar)
    }
    const signer = await recover(() =>
      recoverTypedDataAddress({
        ...opTypedData(this.#o.domain, parsed.built.signedOp, parsed.stamp),
        signature: parsed.sig,
      }),
    )
    if (signer === undefined) throw badRequest(TEXT.invalidSignature)
    return { parsed, signer }
  }

  /**
   * Second half, synchronous: proxy → account and the replay check. Callers run it right after the
   * `await` of `#verify` and do all their work in the same synchronous block, so concurrent copies
   * of one signed body cannot both pass the replay check.
   */
  #admit(v: { parsed: ParsedSignedCommand; signer: string }): {
    account: Account
    op: PerpsOp
    commit: () => void
  } {
    this.sync()
    const now = this.#now()
    const { parsed, signer } = v
    const proxy = this.#proxies.get(signer.toLowerCase())
    if (proxy === undefined || proxy.expiry <= now) throw badRequest(TEXT.accountNotFound)
    if (this.#replay.seen(signer, parsed.stamp.salt, now)) throw badRequest(TEXT.invalidSignature)
    return {
      account: proxy.account,
      op: parsed.built.op,
      commit: () => this.#replay.record(signer, parsed.stamp.salt, parsed.stamp.ts, now),
    }
  }

  #takeActionWeight(account: Account, weight: number): void {
    if (weight <= 0) return
    const r = account.bucket.take(weight)
    if (!r.ok) throw new MockRejection(429, 'action_rate_limited', r.retryAfterSeconds)
  }

  /**
   * Decision: the resting-order caps (per instrument `max_order_count`, per account
   * `accountOpenOrderLimit`) are checked for the whole batch up front, counting every GTC order as
   * potentially resting; breaching either is a request-level 429 `open_orders_limit` (no Retry-After).
   */
  #checkOpenOrderCap(account: Account, orders: readonly CreateOrderBody[]): void {
    const perInstrument = new Map<number, number>()
    let total = 0
    for (const o of orders) {
      if ((o.tif ?? 'gtc') !== 'gtc' || o.p === undefined || !this.#byId.has(o.iid)) continue
      perInstrument.set(o.iid, (perInstrument.get(o.iid) ?? 0) + 1)
      total++
    }
    if (total === 0) return
    if (account.open.size + total > this.#o.accountOpenOrderLimit)
      throw new MockRejection(429, 'open_orders_limit')
    for (const [iid, n] of perInstrument) {
      const open = [...account.open.values()].filter((o) => o.iid === iid).length
      if (open + n > this.#market(iid).spec.maxOrderCount) throw new MockRejection(429, 'open_orders_limit')
    }
  }

  // ---- orders ----------------------------------------------------------------------------------

  #placeOrder(account: Account, o: CreateOrderBody, now: number): CreateOrderAck {
    const coid = o.c
    const err = (error: string): CreateOrderAck =>
      coid === undefined ? { status: 'err', error } : { status: 'err', error, coid }
    const m = this.#byId.get(o.iid)
    if (m === undefined) return err('unknown instrument')
    // Decision: TP/SL triggers and groups are outside the mock's scope.
    if (o.tr !== undefined) return err('trigger orders are not supported')
    const ro = o.ro === true
    if (account.inLiquidation && !ro) return err('account_liquidating')
    const tif = o.tif ?? 'gtc'
    const po = o.po === true
    if (po && tif === 'ioc') return err(TEXT.iocPostOnly)
    if (po && tif === 'fok') return err(TEXT.fokPostOnly)
    if (tif === 'gtc' && o.p === undefined) return err(TEXT.gtcNeedsPrice)
    if (coid !== undefined) {
      const bad = checkClientOrderId(coid)
      if (bad !== undefined) return err(bad)
      for (const open of account.open.values()) if (open.coid === coid) return err('duplicate_order')
    }
    const { priceDecimals: pd, quantityDecimals: qd } = m.spec
    let price: bigint | undefined
    if (o.p !== undefined) {
      const bad = checkPrice(o.p, pd)
      if (bad !== undefined) return err(bad)
      price = toTicks(o.p, pd)
    }
    const badQty = checkQuantity(o.qty, qd)
    if (badQty !== undefined) return err(badQty)
    const qty = toTicks(o.qty, qd)
    if (price !== undefined && !withinBounds(m, price)) return err('price_outside_bounds')
    const takerPrice = o.buy ? askTicks(m) : bidTicks(m)
    const notional = notionalMicros(qty, qd, price ?? takerPrice, pd)
    // Decision: reduce-only orders are exempt from the minimum notional (closing dust must work).
    if (!ro && notional < m.minNotionalMicros) return err('order notional below minimum')
    if (notional > (price === undefined ? m.maxMarketNotionalMicros : m.maxLimitNotionalMicros))
      return err('order notional above maximum')
    const pos = account.positions.get(m.spec.id)
    if (ro && (pos === undefined || pos.size === 0n || pos.size > 0n === o.buy))
      return err('reduce_only_invalid')
    if (!ro && this.#exceedsMargin(account, m, o.buy ? qty : 0n, o.buy ? 0n : qty))
      return err('insufficient_margin')

    const order: OrderState = {
      oid: this.#nextOid++,
      iid: m.spec.id,
      buy: o.buy,
      price: price ?? takerPrice,
      qty,
      filled: 0n,
      tif,
      po,
      ro,
      status: 'open',
      cts: now,
      uts: now,
      coid,
      account,
      pd,
      qd,
    }
    this.#remember(account, order)
    const crosses = price === undefined || (o.buy ? price >= takerPrice : price <= takerPrice)
    if (po && crosses) order.status = 'post_only_rejected'
    else if (crosses) this.#takeImmediately(order, m, takerPrice, now)
    else if (tif === 'gtc') this.#rest(order)
    else order.status = tif === 'ioc' ? 'ioc_no_fill' : 'fok_unfilled'
    return coid === undefined ? { status: 'ok', oid: order.oid } : { status: 'ok', oid: order.oid, coid }
  }

  #modifyOrder(account: Account, mod: ModifyOrderInput, now: number): ModifyResult {
    const order = account.open.get(mod.oid)
    if (order === undefined) return { status: 'err', error: 'order_not_found', oid: mod.oid }
    const err = (error: string): ModifyResult =>
      order.coid === undefined
        ? { status: 'err', error, oid: order.oid }
        : { status: 'err', error, oid: order.oid, coid: order.coid }
    if (account.inLiquidation && !order.ro) return err('account_liquidating')
    const m = this.#market(order.iid)
    const { priceDecimals: pd, quantityDecimals: qd } = m.spec
    const badPrice = checkPrice(mod.p, pd)
    if (badPrice !== undefined) return err(badPrice)
    const badQty = checkQuantity(mod.qty, qd)
    if (badQty !== undefined) return err(badQty)
    const price = toTicks(mod.p, pd)
    const qty = toTicks(mod.qty, qd)
    // Decision: the new total must leave something to rest.
    if (qty <= order.filled) return err('quantity must exceed filled quantity')
    if (!withinBounds(m, price)) return err('price_outside_bounds')
    const notional = notionalMicros(qty, qd, price, pd)
    if (!order.ro && notional < m.minNotionalMicros) return err('order notional below minimum')
    if (notional > m.maxLimitNotionalMicros) return err('order notional above maximum')
    const delta = qty - order.qty
    if (
      !order.ro &&
      delta > 0n &&
      this.#exceedsMargin(account, m, order.buy ? delta : 0n, order.buy ? 0n : delta)
    )
      return err('insufficient_margin')
    order.price = price
    order.qty = qty
    order.uts = now
    this.#touched(order)
    const takerPrice = order.buy ? askTicks(m) : bidTicks(m)
    const crosses = order.buy ? price >= takerPrice : price <= takerPrice
    // Decision: a post-only order modified to cross is rejected like a new one (it leaves the book).
    if (crosses && order.po) this.#closeOrder(order, 'post_only_rejected', now)
    else if (crosses) {
      this.#unrest(order)
      this.#takeImmediately(order, m, takerPrice, now)
    }
    return { status: 'ok', order: orderWire(order) }
  }

  /** Fills the order's remainder at once as a taker (the mock's book is deep at its synthetic touch). */
  #takeImmediately(order: OrderState, m: Market, takerPrice: bigint, now: number): void {
    let qty = order.qty - order.filled
    if (order.ro) qty = minBig(qty, this.#reducible(order))
    if (qty > 0n) this.#fill(order, m, qty, takerPrice, true, now)
    order.status =
      order.filled === order.qty ? 'filled' : order.filled > 0n ? 'cancelled' : 'reduce_only_invalid'
    order.uts = now
    if (order.account.open.has(order.oid)) this.#unrest(order)
  }

  /** How much of a reduce-only order can still reduce the position. */
  #reducible(order: OrderState): bigint {
    const pos = order.account.positions.get(order.iid)
    if (pos === undefined || pos.size === 0n || pos.size > 0n === order.buy) return 0n
    return abs(pos.size)
  }

  /**
   * Resting orders fill when the mark trades at or through them, each by a random 20–60 % share of
   * the volume traded in the step (at least one lot), so large orders fill partially over several steps.
   */
  #fillResting(m: Market, t: number, dtMs: number): void {
    const set = this.#resting.get(m.spec.id)
    if (set === undefined || set.size === 0) return
    for (const order of [...set]) {
      const crossed = order.buy ? m.markTicks <= order.price : m.markTicks >= order.price
      if (!crossed) continue
      const stepVolume = (m.volumeTicksPerSecond * dtMs) / 1000
      const share = BigInt(Math.round(stepVolume * (0.2 + 0.4 * this.#fillRng.next())))
      let qty = minBig(order.qty - order.filled, maxBig(1n, share))
      if (order.ro) {
        const reducible = this.#reducible(order)
        if (reducible === 0n) {
          this.#closeOrder(order, 'reduce_only_invalid', t)
          continue
        }
        qty = minBig(qty, reducible)
      }
      this.#fill(order, m, qty, order.price, false, t)
      order.uts = t
      if (order.filled === order.qty) this.#closeOrder(order, 'filled', t)
      else order.status = 'partial'
    }
  }

  #fill(order: OrderState, m: Market, qty: bigint, price: bigint, taker: boolean, t: number): void {
    order.filled += qty
    this.#touched(order)
    const r = this.#trade(order.account, m, order.buy ? qty : -qty, price, taker ? 'taker' : 'maker', t)
    if (this.#fillListeners.size === 0) return
    const { priceDecimals: pd, quantityDecimals: qd } = m.spec
    const pos = order.account.positions.get(m.spec.id)
    const fill: FillItem = {
      tid: this.#fills,
      oid: order.oid,
      iid: order.iid,
      side: order.buy ? 'long' : 'short',
      p: fromTicks(price, pd),
      qty: fromTicks(qty, qd),
      taker,
      fee: usd(r.fee),
      fea: this.#o.collateral.asset,
      psz: fromTicks(pos?.size ?? 0n, qd),
      pep: pos === undefined ? '0' : entryPriceString(pos, pd),
      pnl: usd(r.realized),
      liq: false,
      ts: t,
    }
    if (order.coid !== undefined) fill.coid = order.coid
    for (const listener of this.#fillListeners) listener(order.account.owner, fill)
  }

  /** Books a trade on the account: position, realized PnL, fees (and the liquidation fee). */
  #trade(
    account: Account,
    m: Market,
    signedQty: bigint,
    price: bigint,
    kind: 'taker' | 'maker' | 'liquidation',
    t: number,
  ): { realized: bigint; fee: bigint } {
    const { priceDecimals: pd, quantityDecimals: qd } = m.spec
    let pos = account.positions.get(m.spec.id)
    if (pos === undefined) {
      pos = newPosition(m.spec.id)
      account.positions.set(m.spec.id, pos)
    }
    const realized = scaledToMicros(applyFill(pos, signedQty, price), qd, pd)
    if (pos.size === 0n) account.positions.delete(m.spec.id)
    const notional = notionalMicros(signedQty, qd, price, pd)
    const tier = this.#feeTier(account)
    let fee = applyRate(notional, kind === 'maker' ? tier.maker : tier.taker)
    if (kind === 'liquidation') fee += applyRate(notional, m.liquidationFeeUnits)
    account.collateral += realized - fee
    account.volumeMicros += notional
    account.feesMicros += fee
    m.klines.addVolume(Number(abs(signedQty)), 1)
    this.#fills++
    this.#lastTradeAt = t
    return { realized, fee }
  }

  /** Decision: the fee tier follows the account's cumulative volume (the mock keeps no 30-day window). */
  #feeTier(account: Account): { taker: bigint; maker: bigint } {
    let tier = this.#o.feeTiers[0] ?? { minVolumeMicros: 0n, taker: 0n, maker: 0n }
    for (const t of this.#o.feeTiers) if (account.volumeMicros >= t.minVolumeMicros) tier = t
    return tier
  }

  #rest(order: OrderState): void {
    order.account.open.set(order.oid, order)
    let set = this.#resting.get(order.iid)
    if (set === undefined) {
      set = new Set()
      this.#resting.set(order.iid, set)
    }
    set.add(order)
  }

  #unrest(order: OrderState): void {
    order.account.open.delete(order.oid)
    this.#resting.get(order.iid)?.delete(order)
  }

  #closeOrder(order: OrderState, status: OrderStatus, t: number): void {
    this.#touched(order)
    this.#unrest(order)
    order.status = status
    order.uts = t
  }

  /** Keeps the order for `GET /v1/account/orders`, dropping the oldest closed ones past the limit. */
  #remember(account: Account, order: OrderState): void {
    this.#touched(order)
    account.orders.set(order.oid, order)
    if (account.orders.size <= this.#o.orderHistoryLimit) return
    for (const [oid, o] of account.orders) {
      if (account.orders.size <= this.#o.orderHistoryLimit) break
      if (!account.open.has(oid) && o !== order) account.orders.delete(oid)
    }
  }

  // ---- risk ------------------------------------------------------------------------------------

  #leverage(account: Account, m: Market, notional: bigint): number {
    const setting = Math.min(account.leverage.get(m.spec.id) ?? this.#o.defaultLeverage, m.spec.maxLeverage)
    return Math.max(1, Math.min(setting, tierMaxLeverage(m.tiers, notional)))
  }

  #instrumentRisk(account: Account, m: Market, buys: bigint, sells: bigint): InstrumentRisk {
    const { priceDecimals: pd, quantityDecimals: qd } = m.spec
    const pos = account.positions.get(m.spec.id)
    const size = pos?.size ?? 0n
    const notional = notionalMicros(size, qd, m.markTicks, pd)
    const leverage = this.#leverage(account, m, notional)
    const im = divRound(notional, BigInt(leverage), 'up')
    const worst = maxBig(abs(size + buys), abs(size - sells))
    const worstNotional = notionalMicros(worst, qd, m.markTicks, pd)
    return {
      notional,
      leverage,
      im,
      mm: divRound(im, 2n, 'up'),
      upnl: pos === undefined ? 0n : scaledToMicros(unrealizedScaled(pos, m.markTicks), qd, pd),
      imWorst: divRound(worstNotional, BigInt(this.#leverage(account, m, worstNotional)), 'up'),
    }
  }

  /** Non-reduce-only resting quantity per instrument and side. */
  #openExposure(account: Account): Map<number, { buys: bigint; sells: bigint }> {
    const out = new Map<number, { buys: bigint; sells: bigint }>()
    for (const o of account.open.values()) {
      if (o.ro) continue
      const e = out.get(o.iid) ?? { buys: 0n, sells: 0n }
      if (o.buy) e.buys += o.qty - o.filled
      else e.sells += o.qty - o.filled
      out.set(o.iid, e)
    }
    return out
  }

  #risk(account: Account): AccountRisk {
    const exposure = this.#openExposure(account)
    const iids = new Set<number>([...account.positions.keys(), ...exposure.keys()])
    const risk: AccountRisk = {
      equity: account.collateral,
      im: 0n,
      mm: 0n,
      imWorst: 0n,
      positionValue: 0n,
      perInstrument: new Map(),
    }
    for (const iid of [...iids].sort((a, b) => a - b)) {
      const e = exposure.get(iid)
      const r = this.#instrumentRisk(account, this.#market(iid), e?.buys ?? 0n, e?.sells ?? 0n)
      risk.perInstrument.set(iid, r)
      risk.equity += r.upnl
      risk.im += r.im
      risk.mm += r.mm
      risk.imWorst += r.imWorst
      risk.positionValue += r.notional
    }
    return risk
  }

  /**
   * Pre-trade check on the worst case max(|pos + open buys|, |pos − open sells|) (protocol-notes f):
   * an order is refused when that initial margin would exceed equity and the order makes it larger.
   */
  #exceedsMargin(account: Account, m: Market, addBuys: bigint, addSells: bigint): boolean {
    const risk = this.#risk(account)
    const e = this.#openExposure(account).get(m.spec.id) ?? { buys: 0n, sells: 0n }
    const before = risk.perInstrument.get(m.spec.id)?.imWorst ?? 0n
    const after = this.#instrumentRisk(account, m, e.buys + addBuys, e.sells + addSells).imWorst
    const total = risk.imWorst - before + after
    return total > risk.equity && after > before
  }

  /**
   * Liquidation: equity below maintenance margin puts the account `in_liquidation` (its resting
   * orders are cancelled). Every `liquidationIntervalMs` it is re-checked; if still below, each
   * position is cut by `liquidationFraction` at the mark, paying the liquidation fee. An account whose
   * equity is gone is closed out entirely (the insurance fund absorbs a negative balance).
   */
  #checkLiquidation(account: Account, t: number): void {
    if (account.positions.size === 0) {
      account.inLiquidation = false
      return
    }
    const risk = this.#risk(account)
    if (!account.inLiquidation) {
      if (risk.equity >= risk.mm) return
      account.inLiquidation = true
      account.nextLiquidationAt = t + this.#o.liquidationIntervalMs
      for (const order of [...account.open.values()]) this.#closeOrder(order, 'cancelled', t)
      return
    }
    if (t < account.nextLiquidationAt) return
    if (risk.equity >= risk.mm) {
      account.inLiquidation = false
      return
    }
    const bankrupt = risk.equity <= 0n
    for (const pos of [...account.positions.values()]) {
      const m = this.#market(pos.iid)
      const cut = bankrupt
        ? abs(pos.size)
        : minBig(
            abs(pos.size),
            maxBig(1n, divRound(abs(pos.size) * this.#o.liquidationFractionPpm, 1_000_000n, 'up')),
          )
      this.#trade(account, m, -sign(pos.size) * cut, m.markTicks, 'liquidation', t)
    }
    if (bankrupt && account.collateral < 0n) account.collateral = 0n
    account.nextLiquidationAt = t + this.#o.liquidationIntervalMs
    if (account.positions.size === 0) account.inLiquidation = false
  }

  /** Charges funding at boundary `b`: positive rate, longs pay; rows record `funding` as paid (+) or received (−). */
  #settleFunding(m: Market, b: number): void {
    const rate = takeFundingRate(m)
    const { priceDecimals: pd, quantityDecimals: qd } = m.spec
    for (const account of this.#accounts.values()) {
      const pos = account.positions.get(m.spec.id)
      if (pos === undefined || pos.size === 0n) continue
      const signedNotional = rescaleTicks(pos.size * m.markTicks, qd + pd, USD_DECIMALS)
      const paid = applyRate(signedNotional, rate)
      account.collateral -= paid
      pos.cumulativeFunding += paid
      account.funding.push({
        id: this.#nextFundingId++,
        instrument_id: m.spec.id,
        size: fromTicks(pos.size, qd),
        funding_rate: rateString(rate),
        funding_asset: this.#o.collateral.asset,
        funding: usd(paid),
        timestamp: b,
      })
      if (account.funding.length > this.#o.fundingHistoryLimit)
        account.funding.splice(0, account.funding.length - this.#o.fundingHistoryLimit)
    }
  }

  // ---- wire ------------------------------------------------------------------------------------

  #portfolioWire(account: Account, risk: AccountRisk): Portfolio {
    const positions: Position[] = []
    for (const [iid, r] of risk.perInstrument) {
      const pos = account.positions.get(iid)
      if (pos === undefined) continue
      const m = this.#market(iid)
      const { priceDecimals: pd, quantityDecimals: qd } = m.spec
      const costMicros = scaledToMicros(abs(pos.cost), qd, pd)
      const marginAtEntry = divRound(costMicros, BigInt(r.leverage), 'up')
      const roe = marginAtEntry === 0n ? 0n : divRound(r.upnl * 1_000_000n, marginAtEntry, 'half-even')
      const liq = liquidationPriceTicks({
        size: pos.size,
        qd,
        pd,
        markTicks: m.markTicks,
        leverage: r.leverage,
        equityMicros: risk.equity,
        otherMaintenanceMicros: risk.mm - r.mm,
      })
      positions.push({
        instrument_id: iid,
        symbol: m.spec.symbol,
        size: fromTicks(pos.size, qd),
        entry_price: entryPriceString(pos, pd),
        leverage: r.leverage,
        cross: true,
        initial_margin: usd(r.im),
        maintenance_margin: usd(r.mm),
        position_value: usd(r.notional),
        liquidation_price: fromTicks(liq, pd),
        unrealized_pnl: usd(r.upnl),
        return_on_equity: fromTicks(roe, 6),
        cumulative_funding: usd(pos.cumulativeFunding),
      })
    }
    const free = maxBig(0n, risk.equity - risk.imWorst)
    return {
      positions,
      margin: {
        total_account_value: usd(risk.equity),
        available_order_margin: usd(free),
        total_initial_margin: usd(risk.im),
        total_maintenance_margin: usd(risk.mm),
        total_position_value: usd(risk.positionValue),
      },
      // Decision: unrealized profit is not withdrawable: min(collateral, equity) − worst-case IM.
      withdrawable: usd(maxBig(0n, minBig(account.collateral, risk.equity) - risk.imWorst)),
      in_liquidation: account.inLiquidation,
      timestamp: this.#now(),
    }
  }

  /** Filters rows (ascending by time) to [start, end ?? now] and cuts a page per `historyOrder`. */
  #page<R, W>(
    rows: readonly R[],
    timeOf: (r: R) => number,
    window: HistoryWindowFilter,
    toWire: (r: R) => W,
  ): { data: W[]; more: boolean } {
    const start = window.startTimestamp ?? 0
    const end = window.endTimestamp ?? this.#now()
    const inWindow = rows.filter((r) => timeOf(r) >= start && timeOf(r) <= end)
    const ordered = this.#o.historyOrder === 'newest-first' ? [...inWindow].reverse() : inWindow
    return {
      data: ordered.slice(0, HISTORY_PAGE_LIMIT).map(toWire),
      more: ordered.length > HISTORY_PAGE_LIMIT,
    }
  }

  // ---- accounts --------------------------------------------------------------------------------

  #authed(owner: string): Account {
    this.sync()
    const account = this.#accounts.get(owner.toLowerCase())
    if (account === undefined) throw unauthorized()
    return account
  }

  #ensureAccount(owner: string, collateral: bigint | undefined): Account {
    const key = owner.toLowerCase()
    const existing = this.#accounts.get(key)
    if (existing !== undefined) return existing
    const account: Account = {
      owner,
      key,
      collateral: collateral ?? this.#o.startingCollateral,
      positions: new Map(),
      leverage: new Map(),
      orders: new Map(),
      open: new Map(),
      funding: [],
      withdrawals: [],
      referralCode: this.#randomString(REFERRAL_ALPHABET, 8),
      referredBy: undefined,
      proxies: [],
      bucket: new TokenBucket(this.#clock, this.#o.actionBudget, 60_000),
      inLiquidation: false,
      nextLiquidationAt: 0,
      volumeMicros: 0n,
      feesMicros: 0n,
    }
    this.#accounts.set(key, account)
    this.#seed(account)
    return account
  }

  #seed(account: Account): void {
    SCENARIOS[this.#scenario].seedAccount(this.#controls, account.owner)
  }

  #addProxy(
    account: Account,
    proxy: string,
    secret: string,
    expiry: number,
    label: string | undefined,
  ): void {
    const key = proxy.toLowerCase()
    const previous = this.#proxies.get(key)
    if (previous !== undefined)
      previous.account.proxies = previous.account.proxies.filter((p) => p !== previous)
    const record: ProxyRecord = { proxy, secret, expiry, label, account }
    this.#proxies.set(key, record)
    account.proxies.push(record)
  }

  #withdraw(account: Account, request: WithdrawalRequest): number {
    const amountMicros = parseUsd(request.amount)
    if (amountMicros <= 0n) throw new InputValidationError('withdrawal amount must be positive')
    const to = request.to ?? account.owner
    if (!ADDRESS_RE.test(to)) throw new InputValidationError('withdrawal destination must be a 0x address')
    const c = this.#o.collateral
    const feeMicros = parseUsd(c.withdrawalFee)
    if (amountMicros + feeMicros > account.collateral)
      throw new InputValidationError('insufficient balance for withdrawal')
    account.collateral -= amountMicros + feeMicros
    const w: WithdrawalRecord = {
      id: this.#nextWithdrawId++,
      asset: c.asset,
      amountRaw: rescaleTicks(amountMicros, USD_DECIMALS, c.decimals, 'down'),
      fee: c.withdrawalFee,
      feeMicros,
      amountMicros,
      to,
      status: 'pending',
      hash: '0x',
      confirmations: 0,
      createdAt: this.#now(),
      confirmedAt: undefined,
      outcome: request.outcome ?? 'confirm',
      timing: { ...this.#o.withdrawalTiming, ...request.timing },
    }
    account.withdrawals.push(w)
    this.#activeWithdrawals.set(w, account)
    return w.id
  }

  // ---- scenario controls -----------------------------------------------------------------------

  readonly #controls: ScenarioControls = {
    now: () => this.#now(),
    instruments: () => this.instrumentSpecs(),
    setRegime: (iid, regime) => {
      const m = this.#market(iid)
      m.regime = regime
      m.schedule = []
    },
    scheduleRegime: (iid, at, regime) => {
      const m = this.#market(iid)
      m.schedule.push({ at, regime })
      m.schedule.sort((a, b) => a.at - b.at)
    },
    regimes: (iid) => {
      const m = this.#market(iid)
      return [m.regime, ...m.schedule.map((s) => s.regime)]
    },
    random: () => this.#scenarioRng.next(),
    seedLeveragedLong: (owner, args) => {
      const account = this.#accounts.get(owner.toLowerCase())
      if (account === undefined) return
      const m = this.#market(args.iid)
      const { priceDecimals: pd, quantityDecimals: qd } = m.spec
      const qty = maxBig(
        1n,
        divRound(
          parseUsd(args.notional) * 10n ** BigInt(qd + pd),
          m.markTicks * 10n ** BigInt(USD_DECIMALS),
          'down',
        ),
      )
      const pos = newPosition(m.spec.id)
      pos.size = qty
      pos.cost = qty * m.markTicks
      account.positions.set(m.spec.id, pos)
      account.collateral = parseUsd(args.collateral)
      account.leverage.set(m.spec.id, Math.min(args.leverage, m.spec.maxLeverage))
      account.inLiquidation = false
    },
    requestWithdrawal: (owner, args) => {
      const account = this.#accounts.get(owner.toLowerCase())
      if (account === undefined) return -1
      try {
        return this.#withdraw(account, { amount: args.amount, outcome: args.outcome })
      } catch (e) {
        // A scenario seed never breaks account creation: an unaffordable seed withdrawal is skipped.
        if (e instanceof BotError) return -1
        throw e
      }
    },
  }

  // ---- helpers ---------------------------------------------------------------------------------

  #now(): number {
    return Math.floor(this.#clock.now())
  }

  #alignedNow(): number {
    return Math.floor(this.#now() / this.#o.stepMs) * this.#o.stepMs
  }

  #market(iid: number): Market {
    const m = this.#byId.get(iid)
    if (m === undefined) throw new InputValidationError(`unknown instrument ${iid}`)
    return m
  }

  #marketForAsset(asset: string): Market {
    const m = this.#byAsset.get(asset) ?? this.#markets.find((x) => x.spec.symbol === asset)
    if (m === undefined) throw new InputValidationError(`unknown asset ${JSON.stringify(asset)}`)
    return m
  }

  #randomString(alphabet: string, length: number): string {
    let s = ''
    for (let i = 0; i < length; i++) s += alphabet[Math.floor(this.#accountRng.next() * alphabet.length)]
    return s
  }

  #randomHex(bytes: number): string {
    let s = '0x'
    for (let i = 0; i < bytes; i++)
      s += Math.floor(this.#accountRng.next() * 256)
        .toString(16)
        .padStart(2, '0')
    return s
  }
}

/** Creates the exchange core. */
export function createPerpsExchange(options: PerpsExchangeOptions): PerpsExchange {
  return new PerpsExchange(options)
}

// ---- module helpers ----------------------------------------------------------------------------

function resolveOptions(o: PerpsExchangeOptions): Resolved {
  const positiveInt = (v: number | undefined, fallback: number, name: string, min = 1): number => {
    const x = v ?? fallback
    if (!Number.isInteger(x) || x < min)
      throw new InputValidationError(`${name} must be an integer >= ${min}`)
    return x
  }
  const tiers = o.feeTiers ?? DEFAULT_FEE_TIERS
  const fraction = o.liquidationFraction ?? 0.25
  if (!(fraction > 0 && fraction <= 1))
    throw new InputValidationError('liquidationFraction must be in (0, 1]')
  const stepMs = positiveInt(o.stepMs, 1_000, 'stepMs')
  return {
    seed: (o.seed ?? 1) >>> 0,
    startingCollateral: parseUsd(o.startingCollateral ?? '100000'),
    defaultLeverage: positiveInt(o.defaultLeverage, 10, 'defaultLeverage'),
    actionBudget: positiveInt(
      o.actionBudgetPerMinute,
      DEFAULT_ACTION_BUDGET_PER_MINUTE,
      'actionBudgetPerMinute',
    ),
    accountOpenOrderLimit: positiveInt(o.accountOpenOrderLimit, 1_000, 'accountOpenOrderLimit'),
    domain: o.domain ?? { ...DEFAULT_PERPS_DOMAIN },
    contract: o.contract ?? DEFAULT_CONTRACT,
    collateral: o.collateral ?? DEFAULT_COLLATERAL,
    feeTiers: tiers.map((t) => ({
      minVolumeMicros: parseUsd(t.minVolume30d),
      taker: toScaled(t.takerFeeRate, 8),
      maker: toScaled(t.makerFeeRate, 8),
    })),
    feeSchedule: feeScheduleToWire(o.instruments ?? DEFAULT_INSTRUMENTS, tiers),
    stepMs,
    historyMinutes: positiveInt(o.historyMinutes, 1_440, 'historyMinutes', 0),
    klineCapacity: positiveInt(o.klineCapacity, 1_440, 'klineCapacity'),
    maxCatchUpMs: Math.max(stepMs, o.maxCatchUpMs ?? 24 * 3_600_000),
    maxInstrumentSteps: positiveInt(
      o.maxInstrumentStepsPerAdvance,
      3_000_000,
      'maxInstrumentStepsPerAdvance',
    ),
    orderHistoryLimit: positiveInt(o.orderHistoryLimit, 10_000, 'orderHistoryLimit'),
    fundingHistoryLimit: positiveInt(o.fundingHistoryLimit, 10_000, 'fundingHistoryLimit'),
    historyOrder: o.historyOrder ?? 'newest-first',
    liquidationIntervalMs: positiveInt(o.liquidationIntervalMs, 5_000, 'liquidationIntervalMs'),
    liquidationFractionPpm: BigInt(Math.round(fraction * 1_000_000)),
    withdrawalTiming: { ...DEFAULT_WITHDRAWAL_TIMING, ...o.withdrawalTiming },
  }
}

function unknownScenario(name: string): InputValidationError {
  return new InputValidationError(`unknown scenario ${JSON.stringify(name)}`, {
    details: [`known: ${SCENARIO_NAMES.join(', ')}`],
  })
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** A present but malformed `sig` is a signature problem, not a body problem. */
function rejectMalformedSig(body: unknown): void {
  if (isRecord(body) && typeof body.sig === 'string' && !SIG_RE.test(body.sig))
    throw badRequest(TEXT.invalidSignature)
}

/** ts older than the window is `signature expired`; further ahead than it is `invalid signature`. */
function checkTimestamp(ts: number, now: number): void {
  if (ts < now - SIGNATURE_WINDOW_MS) throw badRequest(TEXT.signatureExpired)
  if (ts > now + SIGNATURE_WINDOW_MS) throw badRequest(TEXT.invalidSignature)
}

function bodyError(e: unknown): string {
  if (e instanceof InputValidationError) {
    const detail = e.details[0]
    return `invalid request body: ${detail ?? e.shortMessage}`
  }
  throw e
}

async function recover(run: () => Promise<string>): Promise<string | undefined> {
  try {
    return await run()
  } catch {
    return undefined
  }
}

function rest(o: OrderState): bigint {
  return o.status === 'open' || o.status === 'partial' ? o.qty - o.filled : 0n
}

/** The terse `Order` (modifyOrders results). */
function orderWire(o: OrderState): Order {
  const out: Order = {
    oid: o.oid,
    iid: o.iid,
    buy: o.buy,
    p: fromTicks(o.price, o.pd),
    qty: fromTicks(o.qty, o.qd),
    tif: o.tif,
    po: o.po,
    ro: o.ro,
    status: o.status,
    rest: fromTicks(rest(o), o.qd),
    fill: fromTicks(o.filled, o.qd),
    cts: o.cts,
    uts: o.uts,
  }
  if (o.coid !== undefined) out.coid = o.coid
  return out
}

/** The REST `OrderData` (long names, `ro` short). */
function orderDataWire(o: OrderState): OrderDataWire {
  const out: OrderDataWire = {
    order_id: o.oid,
    instrument_id: o.iid,
    buy: o.buy,
    price: fromTicks(o.price, o.pd),
    quantity: fromTicks(o.qty, o.qd),
    tif: o.tif,
    post_only: o.po,
    ro: o.ro,
    status: o.status,
    resting_quantity: fromTicks(rest(o), o.qd),
    filled_quantity: fromTicks(o.filled, o.qd),
    created_timestamp: o.cts,
    updated_timestamp: o.uts,
  }
  if (o.coid !== undefined) out.client_order_id = o.coid
  return out
}
