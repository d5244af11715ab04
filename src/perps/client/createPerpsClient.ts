/**
 * The perps client object: binds one `PerpsClientContext` to the endpoint functions. It is a thin
 * delegator; each endpoint lives in its own file and can be called directly with a context.
 */
import type {
  Credentials,
  Fill,
  FillsPage,
  FundingCharge,
  FundingPage,
  Portfolio,
  Withdrawal,
  WithdrawalsPage,
} from '../schemas/account.ts'
import type { AccountStats, DeleteProxyResult } from '../schemas/accountAdmin.ts'
import type {
  AutoCancelStatus,
  Balance,
  Deposit,
  DepositsPage,
  HistoryPointsPage,
  InstrumentConfig,
  UpdateLeverageResult,
  UpdateMarginResult,
} from '../schemas/accountState.ts'
import type {
  CollateralAsset,
  ExchangeInfo,
  FeeSchedule,
  Index,
  Instrument,
  PublicPortfolio,
  ServerTime,
  StatisticsItem,
} from '../schemas/info.ts'
import type { Book, FundingRatesPage, KlinesPage, TradesPage } from '../schemas/market.ts'
import type { NotificationsPage } from '../schemas/notifications.ts'
import type { CancelResult, CreateOrderAck, ModifyResult, Order } from '../schemas/orders.ts'
import type { Ticker } from '../schemas/tickers.ts'
import type { CommandSigner } from '../signing/commandSigner.ts'
import type { CreateOrderInput } from '../signing/ops.ts'
import type { LimiterView } from '../throttle/weightLimiter.ts'
import { type ApplyReferralResult, applyReferral } from './applyReferral.ts'
import { type CancelAllParams, type CancelAllResult, cancelAll } from './cancelAll.ts'
import { admitCancelOrders, cancelOrders } from './cancelOrders.ts'
import { cancelOrdersCoid } from './cancelOrdersCoid.ts'
import { createPerpsContext, type PerpsClientConfig, type PerpsClientContext } from './context.ts'
import { admitCreateOrders, type CreateOrdersOptions, createOrders } from './createOrders.ts'
import {
  type CreateProxyOptions,
  type CreateProxyParams,
  type CreateProxyResponse,
  createProxy,
} from './createProxy.ts'
import { type DeleteProxyParams, deleteProxy, type ProxyRevoker } from './deleteProxy.ts'
import { type GetAccountConfigParams, getAccountConfig } from './getAccountConfig.ts'
import { getAccountStats } from './getAccountStats.ts'
import { getAssets } from './getAssets.ts'
import { getAutoCancel } from './getAutoCancel.ts'
import { getBalances } from './getBalances.ts'
import { type GetBookParams, getBook } from './getBook.ts'
import { getCredentials } from './getCredentials.ts'
import { type GetDepositsParams, getDeposits, iterateDeposits, paginateDeposits } from './getDeposits.ts'
import { type GetEquityHistoryParams, getEquityHistory } from './getEquityHistory.ts'
import { getExchange } from './getExchange.ts'
import { getFees } from './getFees.ts'
import { type GetFillsParams, getFills, iterateFills, paginateFills } from './getFills.ts'
import { type GetFundingParams, getFunding, iterateFunding, paginateFunding } from './getFunding.ts'
import { type GetFundingHistoryParams, getFundingHistory } from './getFundingHistory.ts'
import { getIndex } from './getIndex.ts'
import { type GetInstrumentsParams, getInstruments } from './getInstruments.ts'
import { type GetKlinesParams, getKlines } from './getKlines.ts'
import { type GetNotificationsParams, getNotifications } from './getNotifications.ts'
import { type GetOpenOrdersParams, getOpenOrders } from './getOpenOrders.ts'
import { type GetOrdersParams, getOrders } from './getOrders.ts'
import { type GetPnlHistoryParams, getPnlHistory } from './getPnlHistory.ts'
import { getPortfolio } from './getPortfolio.ts'
import { getPublicPortfolio } from './getPublicPortfolio.ts'
import { type GetStatisticsOptions, type GetStatisticsParams, getStatistics } from './getStatistics.ts'
import { type GetTickersParams, getTickers } from './getTickers.ts'
import { getTime } from './getTime.ts'
import { type GetTradesParams, getTrades } from './getTrades.ts'
import {
  type GetWithdrawalsParams,
  getWithdrawals,
  iterateWithdrawals,
  paginateWithdrawals,
} from './getWithdrawals.ts'
import type { HistoryPage, PaginateHistoryOptions } from './historyPaging.ts'
import { admitModifyOrders, type ModifyOrderParams, modifyOrders } from './modifyOrders.ts'
import type { AdmittedCommand, PerpsCallOptions, PerpsCommandOptions, PerpsReadOptions } from './perpsCall.ts'
import { type AutoCancelAck, type SetAutoCancelParams, setAutoCancel } from './setAutoCancel.ts'
import { type UpdateLeverageParams, updateLeverage } from './updateLeverage.ts'
import { type UpdateMarginParams, updateMargin } from './updateMargin.ts'
import { type WithdrawParams, withdraw } from './withdraw.ts'

/** The batch commands, admitted by the request gate before they are signed (see `AdmittedCommand`). */
export interface AdmittedBatches {
  createOrders(
    orders: readonly CreateOrderInput[],
    options?: CreateOrdersOptions,
  ): Promise<AdmittedCommand<CreateOrderAck[]>>
  modifyOrders(
    mods: readonly ModifyOrderParams[],
    options?: PerpsCommandOptions,
  ): Promise<AdmittedCommand<ModifyResult[]>>
  cancelOrders(
    oids: readonly number[],
    options?: PerpsCommandOptions,
  ): Promise<AdmittedCommand<CancelResult[]>>
}

export interface PerpsClient {
  readonly context: PerpsClientContext
  /** The client's own throttle (`throttle` in the config): its budgets and breaker, read-only. */
  readonly throttle: LimiterView | undefined
  // public info
  getIndex(asset: string, options?: PerpsReadOptions): Promise<Index>
  getPublicPortfolio(address: string, options?: PerpsReadOptions): Promise<PublicPortfolio>
  getStatistics(params?: GetStatisticsParams, options?: GetStatisticsOptions): Promise<StatisticsItem[]>
  getTickers(params?: GetTickersParams, options?: PerpsReadOptions): Promise<Ticker[]>
  getFees(options?: PerpsReadOptions): Promise<FeeSchedule>
  getAssets(options?: PerpsReadOptions): Promise<CollateralAsset[]>
  getExchange(options?: PerpsReadOptions): Promise<ExchangeInfo>
  getTime(options?: PerpsReadOptions): Promise<ServerTime>
  getInstruments(params?: GetInstrumentsParams, options?: PerpsReadOptions): Promise<Instrument[]>
  getBook(params: GetBookParams, options?: PerpsReadOptions): Promise<Book>
  getKlines(params: GetKlinesParams, options?: PerpsReadOptions): Promise<KlinesPage>
  getTrades(params: GetTradesParams, options?: PerpsReadOptions): Promise<TradesPage>
  getFundingHistory(params: GetFundingHistoryParams, options?: PerpsReadOptions): Promise<FundingRatesPage>
  // account reads (header auth)
  getWithdrawals(params?: GetWithdrawalsParams, options?: PerpsReadOptions): Promise<WithdrawalsPage>
  paginateWithdrawals(
    params?: GetWithdrawalsParams,
    options?: PaginateHistoryOptions,
  ): AsyncGenerator<HistoryPage<Withdrawal>, void, undefined>
  iterateWithdrawals(
    params?: GetWithdrawalsParams,
    options?: PaginateHistoryOptions,
  ): AsyncGenerator<Withdrawal, void, undefined>
  getFills(params?: GetFillsParams, options?: PerpsReadOptions): Promise<FillsPage>
  paginateFills(
    params?: GetFillsParams,
    options?: PaginateHistoryOptions,
  ): AsyncGenerator<HistoryPage<Fill>, void, undefined>
  iterateFills(
    params?: GetFillsParams,
    options?: PaginateHistoryOptions,
  ): AsyncGenerator<Fill, void, undefined>
  getFunding(params?: GetFundingParams, options?: PerpsReadOptions): Promise<FundingPage>
  paginateFunding(
    params?: GetFundingParams,
    options?: PaginateHistoryOptions,
  ): AsyncGenerator<HistoryPage<FundingCharge>, void, undefined>
  iterateFunding(
    params?: GetFundingParams,
    options?: PaginateHistoryOptions,
  ): AsyncGenerator<FundingCharge, void, undefined>
  getPortfolio(options?: PerpsReadOptions): Promise<Portfolio>
  getCredentials(options?: PerpsReadOptions): Promise<Credentials>
  getOpenOrders(params?: GetOpenOrdersParams, options?: PerpsReadOptions): Promise<Order[]>
  getOrders(params?: GetOrdersParams, options?: PerpsReadOptions): Promise<Order[]>
  getBalances(options?: PerpsReadOptions): Promise<Balance[]>
  getDeposits(params?: GetDepositsParams, options?: PerpsReadOptions): Promise<DepositsPage>
  paginateDeposits(
    params?: GetDepositsParams,
    options?: PaginateHistoryOptions,
  ): AsyncGenerator<HistoryPage<Deposit>, void, undefined>
  iterateDeposits(
    params?: GetDepositsParams,
    options?: PaginateHistoryOptions,
  ): AsyncGenerator<Deposit, void, undefined>
  getEquityHistory(params: GetEquityHistoryParams, options?: PerpsReadOptions): Promise<HistoryPointsPage>
  getPnlHistory(params: GetPnlHistoryParams, options?: PerpsReadOptions): Promise<HistoryPointsPage>
  getAccountConfig(params?: GetAccountConfigParams, options?: PerpsReadOptions): Promise<InstrumentConfig[]>
  /** The dead-man switch's status: armed deadline, triggers used of the daily limit, next reset. */
  getAutoCancel(options?: PerpsReadOptions): Promise<AutoCancelStatus>
  applyReferral(code: string, options?: PerpsCallOptions): Promise<ApplyReferralResult>
  /** 7-day volumes and maker share. */
  getAccountStats(options?: PerpsReadOptions): Promise<AccountStats>
  /** A page of the account's notifications (newest first) and the unread count. */
  getNotifications(params?: GetNotificationsParams, options?: PerpsReadOptions): Promise<NotificationsPage>
  // signed
  /** Revokes a proxy key (owner-signed). */
  deleteProxy(
    params: DeleteProxyParams,
    options: PerpsCallOptions & { owner: ProxyRevoker },
  ): Promise<DeleteProxyResult>
  /** Withdraws collateral (base units) to the owner's wallet; owner-signed; the withdrawal's id. */
  withdraw(
    params: WithdrawParams,
    options: PerpsCallOptions & { owner: Pick<CommandSigner, 'signWithdraw'> },
  ): Promise<number>
  createProxy(params: CreateProxyParams, options?: CreateProxyOptions): Promise<CreateProxyResponse>
  createOrders(orders: readonly CreateOrderInput[], options?: CreateOrdersOptions): Promise<CreateOrderAck[]>
  modifyOrders(mods: readonly ModifyOrderParams[], options?: PerpsCommandOptions): Promise<ModifyResult[]>
  cancelOrders(oids: readonly number[], options?: PerpsCommandOptions): Promise<CancelResult[]>
  cancelOrdersCoid(coids: readonly string[], options?: PerpsCommandOptions): Promise<CancelResult[]>
  /** The three batch commands in two halves: admitted now, signed and sent by the handle's `send`. */
  readonly admitted: AdmittedBatches
  cancelAll(params?: CancelAllParams, options?: PerpsCommandOptions): Promise<CancelAllResult>
  /** Leverage and margin mode (`cross` false = isolated) of one instrument. */
  updateLeverage(params: UpdateLeverageParams, options?: PerpsCommandOptions): Promise<UpdateLeverageResult>
  /** Isolated margin in (positive) or out (negative) of one position. */
  updateMargin(params: UpdateMarginParams, options?: PerpsCommandOptions): Promise<UpdateMarginResult>
  /** The dead-man switch: arm with a deadline (Unix ms), or clear with 0. */
  setAutoCancel(params: SetAutoCancelParams, options?: PerpsCommandOptions): Promise<AutoCancelAck>
  /** Closes the transport if the client created it (a given `transport` is left open). */
  close(): Promise<void>
}

/**
 * Builds a client from configuration.
 * @throws {ConfigError} listing every invalid setting.
 */
export function createPerpsClient(config: PerpsClientConfig): PerpsClient {
  const ctx = createPerpsContext(config)
  const ownsTransport = config.transport === undefined
  return {
    context: ctx,
    throttle: ctx.ownThrottle,
    getIndex: (asset, o) => getIndex(ctx, asset, o),
    getPublicPortfolio: (address, o) => getPublicPortfolio(ctx, address, o),
    getStatistics: (p, o) => getStatistics(ctx, p, o),
    getTickers: (p, o) => getTickers(ctx, p, o),
    getFees: (o) => getFees(ctx, o),
    getAssets: (o) => getAssets(ctx, o),
    getExchange: (o) => getExchange(ctx, o),
    getTime: (o) => getTime(ctx, o),
    getInstruments: (p, o) => getInstruments(ctx, p, o),
    getBook: (p, o) => getBook(ctx, p, o),
    getKlines: (p, o) => getKlines(ctx, p, o),
    getTrades: (p, o) => getTrades(ctx, p, o),
    getFundingHistory: (p, o) => getFundingHistory(ctx, p, o),
    getWithdrawals: (p, o) => getWithdrawals(ctx, p, o),
    paginateWithdrawals: (p, o) => paginateWithdrawals(ctx, p, o),
    iterateWithdrawals: (p, o) => iterateWithdrawals(ctx, p, o),
    getFills: (p, o) => getFills(ctx, p, o),
    paginateFills: (p, o) => paginateFills(ctx, p, o),
    iterateFills: (p, o) => iterateFills(ctx, p, o),
    getFunding: (p, o) => getFunding(ctx, p, o),
    paginateFunding: (p, o) => paginateFunding(ctx, p, o),
    iterateFunding: (p, o) => iterateFunding(ctx, p, o),
    getPortfolio: (o) => getPortfolio(ctx, o),
    getCredentials: (o) => getCredentials(ctx, o),
    getOpenOrders: (p, o) => getOpenOrders(ctx, p, o),
    getOrders: (p, o) => getOrders(ctx, p, o),
    getBalances: (o) => getBalances(ctx, o),
    getDeposits: (p, o) => getDeposits(ctx, p, o),
    paginateDeposits: (p, o) => paginateDeposits(ctx, p, o),
    iterateDeposits: (p, o) => iterateDeposits(ctx, p, o),
    getEquityHistory: (p, o) => getEquityHistory(ctx, p, o),
    getPnlHistory: (p, o) => getPnlHistory(ctx, p, o),
    getAccountConfig: (p, o) => getAccountConfig(ctx, p, o),
    getAutoCancel: (o) => getAutoCancel(ctx, o),
    applyReferral: (code, o) => applyReferral(ctx, code, o),
    createProxy: (p, o) => createProxy(ctx, p, o),
    getAccountStats: (o) => getAccountStats(ctx, o),
    getNotifications: (p, o) => getNotifications(ctx, p, o),
    deleteProxy: (p, o) => deleteProxy(ctx, p, o),
    withdraw: (p, o) => withdraw(ctx, p, o),
    createOrders: (orders, o) => createOrders(ctx, orders, o),
    modifyOrders: (mods, o) => modifyOrders(ctx, mods, o),
    cancelOrders: (oids, o) => cancelOrders(ctx, oids, o),
    cancelOrdersCoid: (coids, o) => cancelOrdersCoid(ctx, coids, o),
    admitted: {
      createOrders: (orders, o) => admitCreateOrders(ctx, orders, o),
      modifyOrders: (mods, o) => admitModifyOrders(ctx, mods, o),
      cancelOrders: (oids, o) => admitCancelOrders(ctx, oids, o),
    },
    cancelAll: (p, o) => cancelAll(ctx, p, o),
    updateLeverage: (p, o) => updateLeverage(ctx, p, o),
    updateMargin: (p, o) => updateMargin(ctx, p, o),
    setAutoCancel: (p, o) => setAutoCancel(ctx, p, o),
    close: async () => {
      await ctx.ownThrottle?.stop()
      if (ownsTransport) await ctx.transport.close()
    },
  }
}
