/**
 * Withdrawals on accounts: starting one (amount + fee debited now) and moving every pending one
 * forward on each simulation step (refunded when it fails or is dropped). The lifecycle of a single
 * record is in withdrawals.ts.
 */
import { InputValidationError } from '../../../errors.ts'
import { parseUsd, rescaleTicks, USD_DECIMALS } from '../money.ts'
import { type Account, ADDRESS_RE, type ExchangeState, nowOf, randomHex } from '../state.ts'
import {
  progressWithdrawal,
  type WithdrawalOutcome,
  type WithdrawalRecord,
  type WithdrawalTiming,
} from './withdrawals.ts'

export interface WithdrawalRequest {
  /** USD (decimal string). */
  amount: string
  /** Destination; default the owner address. */
  to?: string | undefined
  outcome?: WithdrawalOutcome | undefined
  timing?: Partial<WithdrawalTiming> | undefined
}

/**
 * Starts a withdrawal from the account's collateral; returns its id.
 * @throws {@link InputValidationError} for a bad amount or destination, or insufficient balance.
 */
export function startWithdrawal(s: ExchangeState, account: Account, request: WithdrawalRequest): number {
  const amountMicros = parseUsd(request.amount)
  if (amountMicros <= 0n) throw new InputValidationError('withdrawal amount must be positive')
  const to = request.to ?? account.owner
  if (!ADDRESS_RE.test(to)) throw new InputValidationError('withdrawal destination must be a 0x address')
  const c = s.o.collateral
  const feeMicros = parseUsd(c.withdrawalFee)
  if (amountMicros + feeMicros > account.collateral)
    throw new InputValidationError('insufficient balance for withdrawal')
  account.collateral -= amountMicros + feeMicros
  const w: WithdrawalRecord = {
    id: s.nextWithdrawId++,
    asset: c.asset,
    amountRaw: rescaleTicks(amountMicros, USD_DECIMALS, c.decimals, 'down'),
    fee: c.withdrawalFee,
    feeMicros,
    amountMicros,
    to,
    status: 'pending',
    hash: '0x',
    confirmations: 0,
    createdAt: nowOf(s),
    confirmedAt: undefined,
    outcome: request.outcome ?? 'confirm',
    timing: { ...s.o.withdrawalTiming, ...request.timing },
  }
  account.withdrawals.push(w)
  s.activeWithdrawals.set(w, account)
  forgetOldWithdrawals(s, account)
  return w.id
}

/** Drops the oldest finished withdrawals past `withdrawalHistoryLimit` (scenario switches add some each time). */
function forgetOldWithdrawals(s: ExchangeState, account: Account): void {
  let excess = account.withdrawals.length - s.o.withdrawalHistoryLimit
  if (excess <= 0) return
  account.withdrawals = account.withdrawals.filter((w) => w.status === 'pending' || excess-- <= 0)
}

/** Moves every pending withdrawal to `t`, refunding the ones that failed or were dropped. */
export function progressWithdrawals(s: ExchangeState, t: number): void {
  for (const [w, account] of s.activeWithdrawals) {
    if (progressWithdrawal(w, t, () => randomHex(s, 32))) account.collateral += w.amountMicros + w.feeMicros
    if (w.status !== 'pending') s.activeWithdrawals.delete(w)
  }
}
