/**
 * The mock Perps exchange: a pure, seeded, deterministic venue on an injected clock; a thin façade
 * over a plain state (state.ts) and one module per concern: command gate (gate.ts), matching
 * (matching.ts, book.ts), margin and liquidation (margin.ts), accounts and proxies (accounts.ts),
 * funding, withdrawals (accountWithdrawals.ts), history reads (accountHistory.ts), wire rendering (wire.ts), stepping and scenarios
 * (stepping.ts, scenarioControls.ts), WebSocket tickers and order/fill hooks (streamHooks.ts).
 * No timers: every entry point first steps the simulation to `clock.now()`; the same seed and calls
 * give byte-identical answers. Methods return wire bodies and throw `MockRejection` for error
 * answers; handler.ts maps HTTP onto them. Decisions where the venue is silent say "Decision:".
 */
import { InputValidationError } from '../../errors.ts'
import type {
  CreateProxyResult,
  Credentials,
  FundingPage,
  Portfolio,
  RestFillWire,
  WithdrawalsPage,
} from '../../perps/schemas/account.ts'
import type { DepositsPage } from '../../perps/schemas/accountState.ts'
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
import type { CancelResult, CreateOrderAck, ModifyResult, OrderDataWire } from '../../perps/schemas/orders.ts'
import type { Ticker } from '../../perps/schemas/tickers.ts'
import type { BboPush } from '../../perps/stream/pushSchemas.ts'
import type { VouchedCommand } from '../mockHttp.ts'
import {
  type FundingFilter,
  fillsPage,
  fundingPage,
  type OrderHistoryFilter,
  openOrdersOf,
  orderHistory,
  type WithdrawalFilter,
  withdrawalsPage,
} from './account/accountHistory.ts'
import {
  type AccountReferral,
  applyReferral,
  authedAccount,
  authenticate,
  credentialsOf,
  findAccount,
  referralOf,
  registerAccount,
  registerProxy,
  setLeverage,
} from './account/accounts.ts'
import { startWithdrawal, type WithdrawalRequest } from './account/accountWithdrawals.ts'
import { type DepositFilter, type DepositRequest, depositsPage, startDeposit } from './account/deposits.ts'
import { accountRisk } from './account/margin.ts'
import {
  accountStats,
  deleteProxyCommand,
  notificationsPage,
  withdrawCommand,
} from './account/ownerCommands.ts'
import {
  AUTO_CANCEL_ACTION_WEIGHT,
  type AutoCancelStatus,
  autoCancelStatus,
  checkAutoCancel,
  setAutoCancel,
} from './autoCancel.ts'
import { badRequest } from './errors.ts'
import {
  admitCommand,
  admitSalt,
  admitSigner,
  signerRateLimitHeaders,
  takeActionWeight,
  verifyAny,
  verifyAutoCancel,
  verifyCreateProxy,
  vouchedAutoCancel,
} from './gate.ts'
import { collateralToWire, type InstrumentSpec } from './instruments.ts'
import { indexToWire, statisticsToWire } from './market/market.ts'
import type { RegimeName } from './market/priceProcess.ts'
import type { ScenarioName } from './market/scenarios.ts'
import {
  advanceTo,
  setIndexPrice,
  setRegime,
  setScenario,
  startHistory,
  syncState,
} from './market/stepping.ts'
import { cancelAllOrders, cancelOrder, checkOpenOrderCap, modifyOrder, placeOrder } from './matching.ts'
import {
  type AccountSeed,
  isModifyOrdersLayout,
  type ModifyOrdersLayout,
  type PerpsExchangeOptions,
  SIGNATURE_WINDOW_MS,
} from './options.ts'
import { type Account, createState, type ExchangeState, nowOf, unknownModifyLayout } from './state.ts'
import * as streamHooks from './streamHooks.ts'
import { type InstrumentFilter, instrumentsMatching, publicPortfolioOf } from './venueReads.ts'
import {
  type AccountView,
  accountView,
  type ExchangeSnapshot,
  type HistoryWindowFilter,
  portfolioWire,
  snapshot,
} from './wire.ts'

export class PerpsExchange {
  readonly #s: ExchangeState

  constructor(options: PerpsExchangeOptions) {
    this.#s = createState(options, SIGNATURE_WINDOW_MS)
    startHistory(this.#s)
    for (const seedAccount of options.accounts ?? []) this.registerAccount(seedAccount)
  }

  // ---- simulation and test hooks ----------------------------------------------------------------

  /** The simulated time (a multiple of the step, at most the clock's now). */
  get simTime(): number {
    return this.#s.simTime
  }

  get scenario(): ScenarioName {
    return this.#s.scenario
  }

  /** Advances the simulation to the clock's now. Every public entry point calls it first. */
  sync(): void {
    syncState(this.#s)
  }

  /** Steps the simulation up to `time` (ms); see stepping.ts for catch-up bounds. */
  advanceTo(time: number): void {
    advanceTo(this.#s, time)
  }

  /** Switches the scenario now: sets its regimes and seeds every existing account. */
  setScenario(name: string): void {
    setScenario(this.#s, name)
  }

  /**
   * Pins an asset's index and mark to `price` now (fills and liquidation checks run at once). A test
   * hook: the price is kept exactly (rounded to the instrument's decimals only, not to 5 figures).
   */
  setIndexPrice(asset: string, price: string): void {
    setIndexPrice(this.#s, asset, price)
  }

  /** Sets an asset's regime now and drops its scheduled switches (`frozen` stops the price). */
  setRegime(asset: string, regime: RegimeName): void {
    setRegime(this.#s, asset, regime)
  }

  /**
   * Switches the signed `modifyOrders` layout the mock verifies (see `PerpsExchangeOptions`).
   * @throws {@link InputValidationError} for an unknown layout.
   */
  setModifyOrdersLayout(layout: string): void {
    if (!isModifyOrdersLayout(layout)) throw unknownModifyLayout(layout)
    this.#s.modifyOrdersLayout = layout
  }

  get modifyOrdersLayout(): ModifyOrdersLayout {
    return this.#s.modifyOrdersLayout
  }

  /** Creates an account (and its proxies) unless it exists; a new account is seeded by the scenario. */
  registerAccount(seed: AccountSeed): void {
    this.sync()
    registerAccount(this.#s, seed)
  }

  /**
   * Starts a withdrawal from `owner`'s collateral (amount + fee debited now, refunded on failure).
   * @throws {@link InputValidationError} for an unknown account, a bad amount or insufficient balance.
   */
  requestWithdrawal(owner: string, request: WithdrawalRequest): number {
    this.sync()
    const account = this.#s.accounts.get(owner.toLowerCase())
    if (account === undefined) throw new InputValidationError(`unknown account ${owner}`)
    return startWithdrawal(this.#s, account, request)
  }

  /**
   * A deposit of `amount` collateral landing from the chain for `owner` (the soak's operator tops an
   * account up after a liquidation; tests and scenarios). Credited at once unless it waits for
   * confirmations (`requiredConfirmations`, one per `blockMs`); listed by `GET /v1/account/deposits`
   * and pushed on the `deposits` channel. Returns its transaction hash.
   * @throws {@link InputValidationError} for an unknown account or an amount that is not positive.
   */
  deposit(owner: string, amount: string, options: Omit<DepositRequest, 'amount'> = {}): string {
    this.sync()
    const account = findAccount(this.#s, owner)
    if (account === undefined) throw new InputValidationError(`unknown account ${owner}`)
    return startDeposit(this.#s, account, { ...options, amount }).hash
  }

  /** `GET /v1/account/deposits`: the account's deposits in the window, filtered by status or hash. */
  deposits(owner: string, filter: DepositFilter = {}): DepositsPage {
    return depositsPage(this.#s, this.#authed(owner), filter)
  }

  /** Sets an account's leverage on an instrument (1..max_leverage). */
  setLeverage(owner: string, instrumentId: number, leverage: number): void {
    this.sync()
    setLeverage(this.#s, owner, instrumentId, leverage)
  }

  /** An account by owner or proxy address (tests and scenarios). */
  accountOf(address: string): AccountView | undefined {
    this.sync()
    const account = findAccount(this.#s, address)
    return account === undefined ? undefined : accountView(this.#s, account)
  }

  /** A JSON-safe summary of the whole venue. */
  snapshot(): ExchangeSnapshot {
    this.sync()
    return snapshot(this.#s)
  }

  /** Instrument specs in catalogue order. */
  instrumentSpecs(): readonly InstrumentSpec[] {
    return this.#s.markets.map((m) => m.spec)
  }

  // ---- public information ----------------------------------------------------------------------

  time(): ServerTime {
    this.sync()
    return { time: nowOf(this.#s) }
  }

  exchangeInfo(): ExchangeInfo {
    this.sync()
    const d = this.#s.o.domain
    return { name: d.name, version: d.version, chain_id: d.chainId, contract: this.#s.o.contract }
  }

  instruments(filter: InstrumentFilter = {}): Instrument[] {
    this.sync()
    return instrumentsMatching(this.#s, filter)
  }

  /** @throws {@link MockRejection} 400 for an unknown asset. */
  index(asset: string): Index {
    this.sync()
    const m = this.#s.byAsset.get(asset)
    if (m === undefined) throw badRequest(`unknown asset: ${asset}`)
    return indexToWire(m, nowOf(this.#s))
  }

  /**
   * Decision: `instrument_id` filters (the live venue is observed to ignore it). `newestKlines` keeps
   * only that many of the day's klines (the stream's pushes; REST answers the whole day).
   */
  statistics(instrumentId?: number | undefined, newestKlines?: number | undefined): StatisticsItem[] {
    this.sync()
    const now = nowOf(this.#s)
    return this.#s.markets
      .filter((m) => instrumentId === undefined || m.spec.id === instrumentId)
      .map((m) => statisticsToWire(m, now, newestKlines))
  }

  /** `GET /v1/info/tickers`; open interest is the sum of the accounts' long sizes. */
  tickers(instrumentId?: number | undefined): Ticker[] {
    this.sync()
    return streamHooks.tickers(this.#s, instrumentId)
  }

  /** Best bid and offer of the synthetic book (`bbo::{iid}` pushes). */
  bbo(instrumentId?: number | undefined): BboPush[] {
    this.sync()
    return streamHooks.bbo(this.#s, instrumentId)
  }

  /** Calls `listener` with every fill of an order (the mock's WebSocket); returns the unsubscribe. */
  onFill(listener: streamHooks.FillListener): () => void {
    return streamHooks.addFillListener(this.#s, listener)
  }

  /**
   * Calls `listener` with every trade booked on an account, a liquidation's included (which the
   * WebSocket never pushes): the simulate recorder's ground truth. Returns the unsubscribe.
   */
  onTrade(listener: streamHooks.FillListener): () => void {
    return streamHooks.addTradeListener(this.#s, listener)
  }

  /** Calls `listener` when an order is created or changes (the mock's WebSocket); returns the unsubscribe. */
  onOrderChange(listener: streamHooks.OrderListener): () => void {
    return streamHooks.addOrderListener(this.#s, listener)
  }

  fees(): FeeSchedule {
    this.sync()
    return this.#s.o.feeSchedule
  }

  assets(): CollateralAsset[] {
    this.sync()
    return [collateralToWire(this.#s.o.collateral)]
  }

  /** Decision: an address without an account has an empty portfolio and equity 0. */
  publicPortfolio(address: string): PublicPortfolio {
    this.sync()
    return publicPortfolioOf(this.#s, address)
  }

  // ---- header-authenticated account reads ------------------------------------------------------

  /**
   * Resolves a proxy/secret header pair to the owner address.
   * @throws {@link MockRejection} 401 `unauthorized` when missing, wrong or the proxy is expired.
   */
  authenticate(proxy: string | undefined, secret: string | undefined): string {
    this.sync()
    return authenticate(this.#s, proxy, secret)
  }

  credentials(owner: string): Credentials {
    return credentialsOf(this.#authed(owner))
  }

  portfolio(owner: string): Portfolio {
    const account = this.#authed(owner)
    return portfolioWire(this.#s, account, accountRisk(this.#s, account))
  }

  withdrawals(owner: string, filter: WithdrawalFilter = {}): WithdrawalsPage {
    return withdrawalsPage(this.#s, this.#authed(owner), filter)
  }

  /** `GET /v1/account/fills`: this account's trades in the window, as history pages. */
  fills(owner: string, filter: HistoryWindowFilter = {}): { data: RestFillWire[]; more: boolean } {
    return fillsPage(this.#s, this.#authed(owner), filter)
  }

  funding(owner: string, filter: FundingFilter = {}): FundingPage {
    return fundingPage(this.#s, this.#authed(owner), filter)
  }

  /** Resting orders (REST long names), ascending by order id. */
  openOrders(owner: string, instrumentId?: number | undefined): OrderDataWire[] {
    return openOrdersOf(this.#authed(owner), instrumentId)
  }

  /** Latest state of kept orders (accountHistory.ts). */
  orders(owner: string, filter: OrderHistoryFilter = {}): OrderDataWire[] {
    return orderHistory(this.#s, this.#authed(owner), filter)
  }

  referral(owner: string): AccountReferral {
    return referralOf(this.#s, this.#authed(owner))
  }

  /**
   * `POST /v1/account/referral {code}`: once per account.
   * @throws {@link MockRejection} 400 malformed code; 422 `referral_already_applied` / `self_referral`.
   */
  applyReferral(owner: string, body: unknown): { status: 'ok' } {
    return applyReferral(this.#authed(owner), body)
  }

  /** `DELETE /v1/account/proxy` (ownerCommands.ts). */
  deleteProxy(body: unknown): { status: 'ok' } {
    syncState(this.#s)
    return deleteProxyCommand(this.#s, body)
  }

  /** `POST /v1/account/withdraw` (ownerCommands.ts). */
  withdraw(body: unknown): { status: 'ok'; withdraw_id: number } {
    syncState(this.#s)
    return withdrawCommand(this.#s, body)
  }

  /** `GET /v1/account/stats`: the last 7 days of the account's fills (the newest page). */
  accountStats(owner: string): ReturnType<typeof accountStats> {
    const since = nowOf(this.#s) - 7 * 86_400_000
    return accountStats(this.#s, this.fills(owner, { startTimestamp: since }).data)
  }

  /** `GET /v1/account/notifications`. */
  notifications(owner: string): ReturnType<typeof notificationsPage> {
    return notificationsPage(authedAccount(this.synced(), owner))
  }

  /** The per-signer `Poly-RateLimit-*` headers for the answer to a signed command body (gate.ts). */
  signerRateLimitHeaders(body: unknown): Record<string, string> | undefined {
    return signerRateLimitHeaders(this.#s, body)
  }

  /** `GET /v1/account/auto-cancel`: the dead-man switch's deadline and today's triggers. */
  autoCancelStatus(owner: string): AutoCancelStatus {
    return autoCancelStatus(this.#authed(owner), nowOf(this.#s))
  }

  // ---- signed commands (the proxy-signed ones also typed: `vouched`, from an in-process venue) -

  /**
   * `POST /v1/account/proxy`: the owner's EIP-712 CreateProxy signature registers a proxy.
   * @throws {@link MockRejection} 400 (malformed, stale, bad signature), 422 `proxy already exists`.
   */
  async createProxy(body: unknown): Promise<CreateProxyResult> {
    const parsed = await verifyCreateProxy(this.#s, body)
    // Everything below is synchronous, so concurrent requests cannot interleave with it.
    const { owner, proxy, expiry } = parsed.op.args
    const commit = admitSalt(this.#s, owner, parsed.salt, parsed.ts)
    const secret = registerProxy(
      this.#s,
      { owner, proxy, expiry, label: parsed.label, code: parsed.code },
      commit,
    )
    return { status: 'ok', secret }
  }

  /** `POST /v1/trade/orders`: one ack per order, in order. */
  async createOrders(body: unknown, vouched?: VouchedCommand): Promise<CreateOrderAck[]> {
    const cmd = admitCommand(this.#s, await verifyAny(this.#s, body, 'createOrders', vouched), 'createOrders')
    checkOpenOrderCap(this.#s, cmd.account, cmd.op.args)
    takeActionWeight(cmd.account, cmd.op.args.length)
    cmd.commit()
    const now = nowOf(this.#s)
    return cmd.op.args.map((o) => placeOrder(this.#s, cmd.account, o, now))
  }

  /** `PATCH /v1/trade/orders`: new price and total quantity per order. */
  async modifyOrders(body: unknown, vouched?: VouchedCommand): Promise<ModifyResult[]> {
    const cmd = admitCommand(this.#s, await verifyAny(this.#s, body, 'modifyOrders', vouched), 'modifyOrders')
    takeActionWeight(cmd.account, cmd.op.args.length)
    cmd.commit()
    const now = nowOf(this.#s)
    return cmd.op.args.map((m) => modifyOrder(this.#s, cmd.account, m, now))
  }

  /** `DELETE /v1/trade/orders`: per-order ok or `order_not_found`. */
  async cancelOrders(body: unknown, vouched?: VouchedCommand): Promise<CancelResult[]> {
    const cmd = admitCommand(this.#s, await verifyAny(this.#s, body, 'cancelOrders', vouched), 'cancelOrders')
    cmd.commit()
    const now = nowOf(this.#s)
    return cmd.op.args.map((oid) => cancelOrder(this.#s, cmd.account, oid, now))
  }

  /** `DELETE /v1/trade/orders/all`: cancels every resting order (of `iid` when given). */
  async cancelAll(body: unknown, vouched?: VouchedCommand): Promise<{ status: 'ok' }> {
    const cmd = admitCommand(this.#s, await verifyAny(this.#s, body, 'cancelAll', vouched), 'cancelAll')
    cmd.commit()
    cancelAllOrders(this.#s, cmd.account, cmd.op.args.iid, nowOf(this.#s))
    return { status: 'ok' }
  }

  /**
   * `PATCH /v1/trade/auto-cancel`: arms (`time` ≥ now + 5 s) or clears (`0`) the dead-man switch.
   * @throws {@link MockRejection} 400 (gate, bad time), 422 `auto_cancel_daily_limit_reached`, 429.
   */
  async setAutoCancel(body: unknown, vouched?: VouchedCommand): Promise<{ status: 'ok'; deadline: number }> {
    const v =
      vouched === undefined ? await verifyAutoCancel(this.#s, body) : vouchedAutoCancel(this.#s, vouched)
    const { account, commit } = admitSigner(this.#s, v.signer, v.stamp)
    // The 5 s lead is counted from when the command was sent (less an accelerated clock's transit).
    checkAutoCancel(account, v.time, nowOf(this.#s) - this.#s.o.transitAllowanceMs)
    takeActionWeight(account, AUTO_CANCEL_ACTION_WEIGHT)
    commit()
    return setAutoCancel(this.#s, account, v.time)
  }

  /** The state synced to now, for the endpoints kept in venueReads.ts and accountSettings.ts. */
  synced(): ExchangeState {
    this.sync()
    return this.#s
  }

  #authed(owner: string): Account {
    this.sync()
    return authedAccount(this.#s, owner)
  }
}

/** Creates the exchange core. */
export function createPerpsExchange(options: PerpsExchangeOptions): PerpsExchange {
  return new PerpsExchange(options)
}
