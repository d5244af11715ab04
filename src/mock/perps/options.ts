/**
 * Options of the mock Perps exchange and their resolution into validated settings. Decisions where
 * the venue is silent are marked "Decision:" in comments.
 */
import type { Clock } from '../../clock.ts'
import { InputValidationError } from '../../errors.ts'
import { isOneOf } from '../../guards.ts'
import type { FeeSchedule } from '../../perps/schemas/info.ts'
import type { OrderGoneCode } from '../../perps/schemas/orders.ts'
import { DEFAULT_PERPS_DOMAIN, type PerpsDomain } from '../../perps/signing/domain.ts'
import { DEFAULT_ACCOUNT_OPEN_ORDER_CAP, DEFAULT_ACTION_BUDGET_PER_MINUTE } from '../../perps/weights.ts'
import { DEFAULT_WITHDRAWAL_TIMING, type WithdrawalTiming } from './account/withdrawals.ts'
import {
  type CollateralSpec,
  DEFAULT_COLLATERAL,
  DEFAULT_FEE_TIERS,
  DEFAULT_INSTRUMENTS,
  type FeeTierSpec,
  feeScheduleToWire,
  type InstrumentSpec,
} from './instruments.ts'
import type { MarketDriver, MarketTap } from './market/marketDriver.ts'
import { SCENARIO_NAMES } from './market/scenarios.ts'
import { parseUsd, toScaled } from './money.ts'
import type { SignerCheck } from './signatures/signerRecovery.ts'

/** Signatures older than this are `signature expired`; ts further ahead is `invalid signature`. */
export const SIGNATURE_WINDOW_MS = 5 * 60_000
/** Rows per page of the history endpoints. */
export const HISTORY_PAGE_LIMIT = 100
/** The venue's published verifying contract (protocol-notes a.1). */
export const DEFAULT_CONTRACT = '0xDCa4af75705dbB50f62437045afF9921947917d2'

/** The signed layouts of `modifyOrders` the mock can verify (see `modifyOrdersLayout`). */
export const MODIFY_ORDERS_LAYOUTS = ['oid-p-qty', 'oid-qty-p'] as const
export type ModifyOrdersLayout = (typeof MODIFY_ORDERS_LAYOUTS)[number]

export function isModifyOrdersLayout(v: string): v is ModifyOrdersLayout {
  return isOneOf(MODIFY_ORDERS_LAYOUTS, v)
}

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
  /**
   * Virtual ms a signed command may spend between its signing and its receipt beyond the venue's own
   * rules (`exp` not passed, an auto-cancel time 5 s ahead). Default 0. The mock server sets it on an
   * accelerated clock: a request's wall-time transit there counts `speed` times over, so a command
   * signed with a 4 s `exp` (133 ms of wall time at 30×) would expire in flight on a busy machine.
   */
  transitAllowanceMs?: number | undefined
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
  /** Withdrawals kept per account: the oldest finished ones go first; pending ones are never dropped. Default 10,000. */
  withdrawalHistoryLimit?: number | undefined
  historyOrder?: HistoryOrder | undefined
  /** While in liquidation, positions are cut by `liquidationFraction` every `liquidationIntervalMs`. */
  liquidationIntervalMs?: number | undefined
  liquidationFraction?: number | undefined
  withdrawalTiming?: Partial<WithdrawalTiming> | undefined
  /** Accounts createProxy may create in all (then 422 `account_limit_reached`). Default 10,000. */
  maxAccounts?: number | undefined
  /**
   * The signed layout of `modifyOrders` the mock verifies: `oid-p-qty` (default, ours:
   * `["modifyOrders", [[oid, p, qty]...]]`) or `oid-qty-p`, a stand-in for a venue that signs
   * another layout (then our modifies fail with `invalid signature` while other commands verify).
   */
  modifyOrdersLayout?: ModifyOrdersLayout | undefined
  /**
   * What a cancel or modify of an order that left the book (filled, cancelled) is answered with: one
   * of these, drawn from a stream of its own seeded by `seed` (default: the official client's three,
   * `order_not_found`, `order_not_in_orderbook`, `order_unknown`). An order id never seen is always
   * `order_not_found`.
   */
  goneCodes?: readonly OrderGoneCode[] | undefined
  /**
   * Send the venue's per-signer `Poly-RateLimit-Remaining/-Reset/-Tier` headers on every signed
   * command's answer (the signer's action bucket; `Reset` a Unix time in seconds). Default off.
   */
  signerRateLimitHeaders?: boolean | undefined
  /**
   * Who signed a command (signerRecovery.ts): by default every signature is recovered at once; the
   * simulator passes a `DeferredSignerCheck` that verifies on another thread.
   */
  signerCheck?: SignerCheck | undefined
  /** Replays recorded data instead of inventing the market (replayMarket.ts; `simulate --data`). */
  marketDriver?: MarketDriver | undefined
  /** Sees every market after each step (recording the mock's market as a dataset). */
  marketTap?: MarketTap | undefined
}

/** Validated options with defaults applied. */
export interface Resolved {
  seed: number
  startingCollateral: bigint
  defaultLeverage: number
  transitAllowanceMs: number
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
  withdrawalHistoryLimit: number
  historyOrder: HistoryOrder
  liquidationIntervalMs: number
  liquidationFractionPpm: bigint
  withdrawalTiming: WithdrawalTiming
  maxAccounts: number
  marketDriver: MarketDriver | undefined
  marketTap: MarketTap | undefined
}

export function resolveOptions(o: PerpsExchangeOptions): Resolved {
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
    transitAllowanceMs: positiveInt(o.transitAllowanceMs, 0, 'transitAllowanceMs', 0),
    actionBudget: positiveInt(
      o.actionBudgetPerMinute,
      DEFAULT_ACTION_BUDGET_PER_MINUTE,
      'actionBudgetPerMinute',
    ),
    accountOpenOrderLimit: positiveInt(
      o.accountOpenOrderLimit,
      DEFAULT_ACCOUNT_OPEN_ORDER_CAP,
      'accountOpenOrderLimit',
    ),
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
    withdrawalHistoryLimit: positiveInt(o.withdrawalHistoryLimit, 10_000, 'withdrawalHistoryLimit'),
    historyOrder: o.historyOrder ?? 'newest-first',
    liquidationIntervalMs: positiveInt(o.liquidationIntervalMs, 5_000, 'liquidationIntervalMs'),
    liquidationFractionPpm: BigInt(Math.round(fraction * 1_000_000)),
    withdrawalTiming: { ...DEFAULT_WITHDRAWAL_TIMING, ...o.withdrawalTiming },
    maxAccounts: positiveInt(o.maxAccounts, 10_000, 'maxAccounts'),
    marketDriver: o.marketDriver,
    marketTap: o.marketTap,
  }
}

export function unknownScenario(name: string): InputValidationError {
  return new InputValidationError(`unknown scenario ${JSON.stringify(name)}`, {
    details: [`known: ${SCENARIO_NAMES.join(', ')}`],
  })
}
