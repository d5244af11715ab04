/**
 * The mock's signed setting commands (also typed: `vouched`, from an in-process venue): leverage and margin mode (`PATCH /v1/trade/leverage`), isolated
 * margin (`PATCH /v1/trade/margin`), and cancel by client order id (`DELETE /v1/trade/orders-coid`).
 * Leverage is enforced in the margin maths (margin.ts reads `account.leverage`); the margin mode is
 * stored and reported (portfolio `cross`, `/v1/account/config`), while the maths stay cross margin.
 */
import type { CancelResult } from '../../../perps/schemas/orders.ts'
import type { VouchedCommand } from '../../mockHttp.ts'
import { closeOrder } from '../book.ts'
import { unprocessable } from '../errors.ts'
import { admitCommand, takeActionWeight, verifyAny } from '../gate.ts'
import { usd } from '../money.ts'
import { type ExchangeState, marketOf, nowOf } from '../state.ts'

const USD_MICROS = 1_000_000n

/** Answers `{status:"ok", instrument_id, leverage, cross}`; 422 `invalid_leverage` / `invalid_margin_mode`. */
export async function updateLeverageCommand(
  s: ExchangeState,
  body: unknown,
  vouched?: VouchedCommand | undefined,
) {
  const cmd = admitCommand(s, await verifyAny(s, body, 'updateLeverage', vouched), 'updateLeverage')
  const { iid, lev, cross } = cmd.op.args
  const m = s.byId.get(iid)
  if (m === undefined) throw unprocessable('instrument_not_found')
  if (lev < 1 || lev > m.spec.maxLeverage) throw unprocessable('invalid_leverage')
  if (cross && m.spec.isolatedOnly) throw unprocessable('invalid_margin_mode')
  takeActionWeight(cmd.account, 1)
  cmd.commit()
  cmd.account.leverage.set(iid, lev)
  cmd.account.cross.set(iid, cross)
  return { status: 'ok' as const, instrument_id: iid, leverage: lev, cross }
}

/** Isolated margin in or out: 422 `invalid_margin_mode` on a cross instrument, `position_not_found` when flat. */
export async function updateMarginCommand(
  s: ExchangeState,
  body: unknown,
  vouched?: VouchedCommand | undefined,
) {
  const cmd = admitCommand(s, await verifyAny(s, body, 'updateMargin', vouched), 'updateMargin')
  const { iid, amt: amount } = cmd.op.args
  marketOf(s, iid)
  if (cmd.account.cross.get(iid) ?? true) throw unprocessable('invalid_margin_mode')
  const pos = cmd.account.positions.get(iid)
  if (pos === undefined || pos.size === 0n) throw unprocessable('position_not_found')
  const m = /^(-?)(\d+)(?:\.(\d{1,6}))?$/.exec(amount)
  if (m === null) throw unprocessable('invalid_margin_amount')
  const micros = (BigInt(m[2] ?? '0') * USD_MICROS + BigInt((m[3] ?? '').padEnd(6, '0'))) * (m[1] ? -1n : 1n)
  const next = (cmd.account.isolatedMargin.get(iid) ?? 0n) + micros
  if (next < 0n) throw unprocessable('margin_below_required_initial')
  takeActionWeight(cmd.account, 1)
  cmd.commit()
  cmd.account.isolatedMargin.set(iid, next)
  return { status: 'ok' as const, instrument_id: iid, margin: usd(next) }
}

/** Per client order id: ok (with oid), or `order_unknown` (the venue's code for a coid that resolves to no resting order). */
export async function cancelByCoidCommand(
  s: ExchangeState,
  body: unknown,
  vouched?: VouchedCommand | undefined,
): Promise<CancelResult[]> {
  const cmd = admitCommand(s, await verifyAny(s, body, 'cancelOrdersCOID', vouched), 'cancelOrdersCOID')
  cmd.commit()
  const now = nowOf(s)
  return cmd.op.args.map((coid): CancelResult => {
    const order = [...cmd.account.open.values()].find((o) => o.coid === coid)
    if (order === undefined) return { status: 'err', error: 'order_unknown', coid }
    closeOrder(s, order, 'cancelled', now)
    return { status: 'ok', oid: order.oid, coid }
  })
}
