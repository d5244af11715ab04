/**
 * The owner-signed withdrawal (`POST /v1/account/withdraw`) as the official client builds it: an
 * EIP-712 `Withdraw(address account,address token,uint256 amount,uint256 fee,address to,uint64 salt,
 * uint64 ts)` under the domain `{name, version, chainId, verifyingContract: the perps deposit
 * contract}`, `fee` signed as 0 (the venue charges its published fee), `ts` in **seconds**, `amount`
 * in collateral base units; the body `{op: {type: 'withdraw', args: {account, token, amount, to}},
 * salt, sig, ts}`.
 */
import type { Address, Hex } from 'viem'
import { hashTypedData } from 'viem/utils'
import { InputValidationError } from '../../errors.ts'
import type { PerpsDomain } from './domain.ts'

/** Production contracts (the official client's `production` environment). */
export const PERPS_DEPOSIT_CONTRACT: Address = '0xDCa4af75705dbB50f62437045afF9921947917d2'
export const COLLATERAL_TOKEN: Address = '0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB'

export const WITHDRAW_TYPES = {
  Withdraw: [
    { name: 'account', type: 'address' },
    { name: 'token', type: 'address' },
    { name: 'amount', type: 'uint256' },
    { name: 'fee', type: 'uint256' },
    { name: 'to', type: 'address' },
    { name: 'salt', type: 'uint64' },
    { name: 'ts', type: 'uint64' },
  ],
} as const

export interface WithdrawMessage {
  /** The owner (the account). */
  account: Address
  token: Address
  /** Collateral base units (pUSD has 6 decimals: 100 pUSD = 100000000). */
  amount: bigint
  to: Address
  salt: number
  /** Unix seconds. */
  ts: number
}

export interface WithdrawBody {
  op: { type: 'withdraw'; args: { account: Address; token: Address; amount: string; to: Address } }
  salt: number
  sig: Hex
  ts: number
}

/** The digest the owner signs. @throws {@link InputValidationError} for a non-positive amount. */
export function withdrawDigest(domain: PerpsDomain, contract: Address, m: WithdrawMessage): Hex {
  if (m.amount <= 0n) throw new InputValidationError('withdraw amount must be positive')
  return hashTypedData({
    domain: {
      name: domain.name,
      version: domain.version,
      chainId: domain.chainId,
      verifyingContract: contract,
    },
    types: WITHDRAW_TYPES,
    primaryType: 'Withdraw',
    message: {
      account: m.account,
      token: m.token,
      amount: m.amount,
      fee: 0n,
      to: m.to,
      salt: BigInt(m.salt),
      ts: BigInt(m.ts),
    },
  })
}

/** The body sent for a signed withdrawal message. */
export function withdrawBody(m: WithdrawMessage, sig: Hex): WithdrawBody {
  return {
    op: {
      type: 'withdraw',
      args: { account: m.account, token: m.token, amount: m.amount.toString(), to: m.to },
    },
    salt: m.salt,
    sig,
    ts: m.ts,
  }
}
