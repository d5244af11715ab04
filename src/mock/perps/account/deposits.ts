/**
 * Deposits landing from the chain (`exchange.deposit`: the soak's operator, scenarios, tests). The
 * spec has no create endpoint in our scope; `GET /v1/account/deposits` and the `deposits` channel
 * report them. A deposit is seen `pending` with its transaction hash, gains one confirmation per
 * block and is `confirmed` (and credited) at the required count; a reorg (`remove`) drops it
 * (`removed`, never credited). Without a confirmation time it is confirmed and credited at once.
 * The hash is derived from the venue's deposit counter (no randomness drawn: seeded runs stay the same).
 */
import { createHash } from 'node:crypto'
import { isDecimalString } from '../../../decimal.ts'
import { InputValidationError } from '../../../errors.ts'
import type { Deposit } from '../../../perps/schemas/accountState.ts'
import { parseUsd, rescaleTicks, USD_DECIMALS } from '../money.ts'
import type { Account, ExchangeState } from '../state.ts'
import { nowOf } from '../state.ts'
import { type HistoryWindowFilter, page } from '../wire.ts'
import type { DepositRecord } from './depositRecord.ts'

export type { DepositRecord }

export interface DepositRequest {
  /** Amount in collateral units (decimal string, e.g. `"250"`). */
  amount: string
  /** Blocks to confirm it, one every `blockMs` (default: confirmed at once). */
  requiredConfirmations?: number | undefined
  blockMs?: number | undefined
  /** `remove`: a reorg drops it after its first confirmation. */
  outcome?: 'confirm' | 'remove' | undefined
}

export interface DepositFilter extends HistoryWindowFilter {
  status?: string | undefined
  hash?: string | undefined
}

/** Deposits kept per account (oldest finished ones dropped first). */
const DEPOSITS_KEPT = 1_000

const depositHash = (n: number): string =>
  `0x${createHash('sha256').update(`perpbot-mock-deposit:${n}`).digest('hex')}`

/** Records a deposit for `account`; credits it now unless it has confirmations to wait for. */
export function startDeposit(s: ExchangeState, account: Account, request: DepositRequest): DepositRecord {
  const amountMicros = isDecimalString(request.amount) ? parseUsd(request.amount) : 0n
  if (amountMicros <= 0n)
    throw new InputValidationError(`deposit amount must be a positive decimal, not ${request.amount}`)
  const c = s.o.collateral
  const required = request.requiredConfirmations ?? 0
  const now = nowOf(s)
  s.depositCount += 1
  const d: DepositRecord = {
    hash: depositHash(s.depositCount),
    asset: c.asset,
    amountRaw: rescaleTicks(amountMicros, USD_DECIMALS, c.decimals, 'down'),
    amountMicros,
    from: account.owner,
    to: s.o.contract,
    status: 'pending',
    confirmations: 0,
    requiredConfirmations: required,
    blockMs: request.blockMs ?? 2_000,
    outcome: request.outcome ?? 'confirm',
    createdAt: now,
    confirmedAt: undefined,
  }
  account.deposits.push(d)
  if (account.deposits.length > DEPOSITS_KEPT) {
    const i = account.deposits.findIndex((x) => x.status !== 'pending')
    if (i >= 0) account.deposits.splice(i, 1)
  }
  if (!progressDeposit(d, now, account)) s.activeDeposits.set(d, account)
  return d
}

/** Moves a pending deposit to `now`; true once it is no longer pending (credited if confirmed). */
export function progressDeposit(d: DepositRecord, now: number, account: Account): boolean {
  if (d.status !== 'pending') return true
  const blocks = Math.floor((now - d.createdAt) / d.blockMs)
  if (d.outcome === 'remove' && blocks >= 1) {
    d.status = 'removed'
    d.confirmations = 0
    return true
  }
  d.confirmations = Math.min(blocks, d.requiredConfirmations)
  if (d.confirmations < d.requiredConfirmations) return false
  d.status = 'confirmed'
  d.confirmedAt = d.createdAt + d.requiredConfirmations * d.blockMs
  account.collateral += d.amountMicros
  return true
}

export function progressDeposits(s: ExchangeState, t: number): void {
  for (const [d, account] of s.activeDeposits) if (progressDeposit(d, t, account)) s.activeDeposits.delete(d)
}

/** The REST row (bindings `PerpsDepositSchema`: `confirmed_timestamp` absent until confirmed). */
export function depositToWire(d: DepositRecord): Deposit {
  const row: Deposit = {
    hash: d.hash,
    asset: d.asset,
    amount: d.amountRaw.toString(),
    status: d.status,
    from: d.from,
    to: d.to,
    confirmations: d.confirmations,
    required_confirmations: d.requiredConfirmations,
    created_timestamp: d.createdAt,
  }
  if (d.confirmedAt !== undefined) row.confirmed_timestamp = d.confirmedAt
  return row
}

export function depositsPage(
  s: ExchangeState,
  account: Account,
  filter: DepositFilter,
): { data: Deposit[]; more: boolean } {
  const rows = account.deposits.filter(
    (d) =>
      (filter.status === undefined || d.status === filter.status) &&
      (filter.hash === undefined || d.hash.toLowerCase() === filter.hash.toLowerCase()),
  )
  return page(s, rows, (d) => d.createdAt, filter, depositToWire)
}
