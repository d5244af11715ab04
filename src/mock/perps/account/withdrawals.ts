/**
 * Withdrawal lifecycle. The spec has no create endpoint in our scope, so withdrawals come from
 * scenarios or tests (`exchange.requestWithdrawal`). A withdrawal is `pending` with hash `0x` until
 * mined, then gains one confirmation per block until it is `confirmed`; a scripted outcome can
 * instead end it `failed` or `removed` (reorg) part-way. Progress is a function of time only.
 */
import type { Withdrawal } from '../../../perps/schemas/account.ts'

export type WithdrawalOutcome = 'confirm' | 'fail' | 'remove'

export interface WithdrawalTiming {
  /** Time from request to the transaction being mined (hash known). */
  mineDelayMs: number
  /** Block time: one confirmation per block. */
  blockMs: number
  requiredConfirmations: number
  /** For `fail`/`remove`: confirmations seen before the transaction fails or is dropped. */
  failAfterConfirmations: number
}

export const DEFAULT_WITHDRAWAL_TIMING: Readonly<WithdrawalTiming> = Object.freeze({
  mineDelayMs: 6_000,
  blockMs: 2_000,
  requiredConfirmations: 20,
  failAfterConfirmations: 3,
})

export interface WithdrawalRecord {
  id: number
  asset: string
  /** Raw token units (collateral decimals). */
  amountRaw: bigint
  /** Fee in decimalized units, as the wire shows it. */
  fee: string
  /** Fee in USD micros (debited with the amount, refunded with it on failure). */
  feeMicros: bigint
  /** Amount in USD micros. */
  amountMicros: bigint
  to: string
  status: 'pending' | 'confirmed' | 'removed' | 'failed'
  hash: string
  confirmations: number
  createdAt: number
  confirmedAt: number | undefined
  outcome: WithdrawalOutcome
  timing: WithdrawalTiming
}

/**
 * Moves a pending withdrawal forward to `now`. `newHash` is called once, when it is mined.
 * Returns true when it just left `pending` with a refund due (failed or removed).
 */
export function progressWithdrawal(w: WithdrawalRecord, now: number, newHash: () => string): boolean {
  if (w.status !== 'pending') return false
  const minedAt = w.createdAt + w.timing.mineDelayMs
  if (now < minedAt) return false
  if (w.hash === '0x') w.hash = newHash()
  const blocks = Math.floor((now - minedAt) / w.timing.blockMs)
  if (w.outcome === 'confirm') {
    w.confirmations = Math.min(blocks, w.timing.requiredConfirmations)
    if (w.confirmations >= w.timing.requiredConfirmations) {
      w.status = 'confirmed'
      w.confirmedAt = minedAt + w.timing.requiredConfirmations * w.timing.blockMs
    }
    return false
  }
  w.confirmations = Math.min(blocks, w.timing.failAfterConfirmations)
  if (blocks < w.timing.failAfterConfirmations) return false
  if (w.outcome === 'fail') {
    w.status = 'failed'
  } else {
    // A reorg dropped the block: the hash stays (it identifies the transaction), confirmations reset.
    w.status = 'removed'
    w.confirmations = 0
  }
  return true
}

export function withdrawalToWire(w: WithdrawalRecord): Withdrawal {
  const row: Withdrawal = {
    withdraw_id: w.id,
    asset: w.asset,
    amount: w.amountRaw.toString(),
    to: w.to,
    fee: w.fee,
    status: w.status,
    hash: w.hash,
    confirmations: w.confirmations,
    required_confirmations: w.timing.requiredConfirmations,
    created_timestamp: w.createdAt,
  }
  if (w.confirmedAt !== undefined) row.confirmed_timestamp = w.confirmedAt
  return row
}
