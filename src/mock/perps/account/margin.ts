/**
 * Margin and liquidation: per-instrument and account risk (cross margin, tiered leverage), the
 * pre-trade worst-case check, and the liquidation engine that runs on every simulation step.
 */
import { divRound } from '../../../decimal.ts'
import { closeOrder, trade } from '../book.ts'
import type { Market } from '../market/market.ts'
import { abs, maxBig, minBig, notionalMicros, sign } from '../money.ts'
import { type Account, type ExchangeState, marketOf } from '../state.ts'
import { scaledToMicros, tierMaxLeverage, unrealizedScaled } from './positions.ts'

export interface InstrumentRisk {
  notional: bigint
  leverage: number
  im: bigint
  mm: bigint
  upnl: bigint
  /** Initial margin of the worst case max(|pos + open buys|, |pos − open sells|). */
  imWorst: bigint
}

export interface AccountRisk {
  equity: bigint
  im: bigint
  mm: bigint
  imWorst: bigint
  positionValue: bigint
  perInstrument: Map<number, InstrumentRisk>
}

function leverageFor(s: ExchangeState, account: Account, m: Market, notional: bigint): number {
  const setting = Math.min(account.leverage.get(m.spec.id) ?? s.o.defaultLeverage, m.spec.maxLeverage)
  return Math.max(1, Math.min(setting, tierMaxLeverage(m.tiers, notional)))
}

function instrumentRisk(
  s: ExchangeState,
  account: Account,
  m: Market,
  buys: bigint,
  sells: bigint,
): InstrumentRisk {
  const { priceDecimals: pd, quantityDecimals: qd } = m.spec
  const pos = account.positions.get(m.spec.id)
  const size = pos?.size ?? 0n
  const notional = notionalMicros(size, qd, m.markTicks, pd)
  const leverage = leverageFor(s, account, m, notional)
  const im = divRound(notional, BigInt(leverage), 'up')
  const worst = maxBig(abs(size + buys), abs(size - sells))
  const worstNotional = notionalMicros(worst, qd, m.markTicks, pd)
  return {
    notional,
    leverage,
    im,
    mm: divRound(im, 2n, 'up'),
    upnl: pos === undefined ? 0n : scaledToMicros(unrealizedScaled(pos, m.markTicks), qd, pd),
    imWorst: divRound(worstNotional, BigInt(leverageFor(s, account, m, worstNotional)), 'up'),
  }
}

/** Non-reduce-only resting quantity per instrument and side. */
function openExposure(account: Account): Map<number, { buys: bigint; sells: bigint }> {
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

export function accountRisk(s: ExchangeState, account: Account): AccountRisk {
  const exposure = openExposure(account)
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
    const r = instrumentRisk(s, account, marketOf(s, iid), e?.buys ?? 0n, e?.sells ?? 0n)
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
 * The account's equity and maintenance margin alone, as `accountRisk` sums them: both come from the
 * positions only (an instrument with resting orders and no position adds no margin and no PnL), so
 * the liquidation check on every simulation step builds no per-instrument map, set or sorted list.
 */
function equityAndMaintenance(s: ExchangeState, account: Account): { equity: bigint; mm: bigint } {
  let equity = account.collateral
  let mm = 0n
  for (const [iid, pos] of account.positions) {
    const m = marketOf(s, iid)
    const { priceDecimals: pd, quantityDecimals: qd } = m.spec
    const notional = notionalMicros(pos.size, qd, m.markTicks, pd)
    const im = divRound(notional, BigInt(leverageFor(s, account, m, notional)), 'up')
    mm += divRound(im, 2n, 'up')
    equity += scaledToMicros(unrealizedScaled(pos, m.markTicks), qd, pd)
  }
  return { equity, mm }
}

/**
 * Pre-trade check on the worst case max(|pos + open buys|, |pos − open sells|) (protocol-notes f):
 * an order is refused when that initial margin would exceed equity and the order makes it larger.
 */
export function exceedsMargin(
  s: ExchangeState,
  account: Account,
  m: Market,
  addBuys: bigint,
  addSells: bigint,
): boolean {
  // The sums `accountRisk` makes, without its per-instrument map, set and sorted list (this runs for
  // every order placed or enlarged): integer sums do not depend on the order of the instruments.
  const exposure = openExposure(account)
  let equity = account.collateral
  let imWorst = 0n
  let before = 0n
  const visit = (iid: number): void => {
    const e = exposure.get(iid)
    const r = instrumentRisk(s, account, marketOf(s, iid), e?.buys ?? 0n, e?.sells ?? 0n)
    equity += r.upnl
    imWorst += r.imWorst
    if (iid === m.spec.id) before = r.imWorst
  }
  for (const iid of account.positions.keys()) visit(iid)
  for (const iid of exposure.keys()) if (!account.positions.has(iid)) visit(iid)
  const e = exposure.get(m.spec.id) ?? { buys: 0n, sells: 0n }
  const after = instrumentRisk(s, account, m, e.buys + addBuys, e.sells + addSells).imWorst
  const total = imWorst - before + after
  return total > equity && after > before
}

/**
 * Liquidation: equity below maintenance margin puts the account `in_liquidation` (its resting
 * orders are cancelled). Every `liquidationIntervalMs` it is re-checked; if still below, each
 * position is cut by `liquidationFraction` at the mark, paying the liquidation fee. An account whose
 * equity is gone is closed out entirely (the insurance fund absorbs a negative balance).
 */
export function checkLiquidation(s: ExchangeState, account: Account, t: number): void {
  if (account.positions.size === 0) {
    account.inLiquidation = false
    return
  }
  const risk = equityAndMaintenance(s, account)
  if (!account.inLiquidation) {
    if (risk.equity >= risk.mm) return
    account.inLiquidation = true
    account.nextLiquidationAt = t + s.o.liquidationIntervalMs
    for (const order of [...account.open.values()]) closeOrder(s, order, 'cancelled', t)
    return
  }
  if (t < account.nextLiquidationAt) return
  if (risk.equity >= risk.mm) {
    account.inLiquidation = false
    return
  }
  const bankrupt = risk.equity <= 0n
  for (const pos of [...account.positions.values()]) {
    const m = marketOf(s, pos.iid)
    const cut = bankrupt
      ? abs(pos.size)
      : minBig(
          abs(pos.size),
          maxBig(1n, divRound(abs(pos.size) * s.o.liquidationFractionPpm, 1_000_000n, 'up')),
        )
    trade(s, account, m, -sign(pos.size) * cut, m.markTicks, 'liquidation', t)
  }
  if (bankrupt && account.collateral < 0n) account.collateral = 0n
  account.nextLiquidationAt = t + s.o.liquidationIntervalMs
  if (account.positions.size === 0) account.inLiquidation = false
}
