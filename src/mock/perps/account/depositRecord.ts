/** A deposit as the mock keeps it (deposits.ts moves it along; state.ts holds it per account). */
export interface DepositRecord {
  hash: string
  asset: string
  /** Raw token units (collateral decimals). */
  amountRaw: bigint
  amountMicros: bigint
  from: string
  to: string
  status: 'pending' | 'confirmed' | 'removed'
  confirmations: number
  requiredConfirmations: number
  blockMs: number
  outcome: 'confirm' | 'remove'
  createdAt: number
  confirmedAt: number | undefined
}
