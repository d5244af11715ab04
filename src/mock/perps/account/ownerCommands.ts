/**
 * The owner's commands and reads added in issue 35, as the official client sends them: revoking a
 * proxy (`DELETE /v1/account/proxy`, the generic Op `["deleteProxy", [proxy]]` signed by the owner),
 * a withdrawal (`POST /v1/account/withdraw`, the `Withdraw` typed data signed by the owner, `ts` in
 * seconds, `amount` in base units), the 7-day statistics (`GET /v1/account/stats`) and the
 * notifications page (`GET /v1/account/notifications`; the mock raises none, so it is empty).
 */
import { type Hex, isAddress, isHex } from 'viem'
import { z } from 'zod'
import { addDecimal, fromTicks, mulDecimal } from '../../../decimal.ts'
import { opDigest } from '../../../perps/signing/typedData.ts'
import { withdrawDigest } from '../../../perps/signing/withdraw.ts'
import { badRequest, MockRejection, TEXT, unprocessable } from '../errors.ts'
import { admitSalt } from '../gate.ts'
import { USD_DECIMALS } from '../money.ts'
import { DEFAULT_CONTRACT } from '../options.ts'
import type { Account, ExchangeState } from '../state.ts'
import { nowOf } from '../state.ts'
import { startWithdrawal } from './accountWithdrawals.ts'

const Sig = z.string().regex(/^0x[0-9a-fA-F]{130}$/)
const Uint = z.number().int().nonnegative()

const DeleteProxyBody = z.object({
  op: z.object({ type: z.literal('deleteProxy'), args: z.object({ proxy: z.string() }) }),
  salt: Uint,
  sig: Sig,
  ts: Uint,
})

const WithdrawBody = z.object({
  op: z.object({
    type: z.literal('withdraw'),
    args: z.object({
      account: z.string(),
      token: z.string(),
      amount: z.string().regex(/^\d+$/),
      to: z.string(),
    }),
  }),
  salt: Uint,
  sig: Sig,
  ts: Uint,
})

function parse<T>(schema: z.ZodType<T>, body: unknown): T {
  const r = schema.safeParse(body)
  if (!r.success) {
    const i = r.error.issues[0]
    throw badRequest(
      `invalid request body: ${i === undefined ? 'malformed' : `${i.path.join('.') || '(root)'}: ${i.message}`}`,
    )
  }
  return r.data
}

function recovered(s: ExchangeState, digest: Hex, sig: string, expected: string): string {
  if (!isHex(sig)) throw badRequest(TEXT.invalidSignature)
  let signer: string | undefined
  try {
    signer = s.signers.signer(digest, sig, expected)
  } catch {
    signer = undefined
  }
  if (signer === undefined || signer.toLowerCase() !== expected.toLowerCase())
    throw badRequest(TEXT.invalidSignature)
  return signer
}

/** `DELETE /v1/account/proxy`: the owner of the proxy's account revokes it. */
export function deleteProxyCommand(s: ExchangeState, body: unknown): { status: 'ok' } {
  const b = parse(DeleteProxyBody, body)
  const key = b.op.args.proxy.toLowerCase()
  const record = s.proxies.get(key)
  if (record === undefined) throw unprocessable('proxy_not_found')
  const owner = record.account.owner
  recovered(
    s,
    opDigest(s.o.domain, ['deleteProxy', [b.op.args.proxy]], { salt: b.salt, ts: b.ts }),
    b.sig,
    owner,
  )
  const commit = admitSalt(s, owner, b.salt, b.ts)
  commit()
  s.proxies.delete(key)
  record.account.proxies = record.account.proxies.filter((p) => p !== record)
  return { status: 'ok' }
}

/** `POST /v1/account/withdraw`: the owner withdraws `amount` base units to `to`. */
export function withdrawCommand(s: ExchangeState, body: unknown): { status: 'ok'; withdraw_id: number } {
  const b = parse(WithdrawBody, body)
  const { account: owner, token, amount, to } = b.op.args
  const bad = () => badRequest('invalid request body: op.args: expected addresses')
  if (!isAddress(owner, { strict: false })) throw bad()
  if (!isAddress(to, { strict: false })) throw bad()
  if (!isAddress(token, { strict: false })) throw bad()
  const contract = DEFAULT_CONTRACT
  if (!isAddress(contract, { strict: false })) throw bad()
  // Decision: ts in seconds within the signature window, as the other commands' in ms.
  if (Math.abs(b.ts * 1000 - nowOf(s)) > 5 * 60_000) throw badRequest(TEXT.signatureExpired)
  const digest = withdrawDigest(s.o.domain, contract, {
    account: owner,
    token,
    amount: BigInt(amount),
    to,
    salt: b.salt,
    ts: b.ts,
  })
  recovered(s, digest, b.sig, owner)
  const account = s.accounts.get(owner.toLowerCase())
  if (account === undefined) throw badRequest(TEXT.accountNotFound)
  const commit = admitSalt(s, owner, b.salt, b.ts * 1000)
  try {
    const id = startWithdrawal(s, account, { amount: fromTicks(BigInt(amount), USD_DECIMALS), to })
    commit()
    return { status: 'ok', withdraw_id: id }
  } catch (e) {
    if (e instanceof MockRejection) throw e
    throw unprocessable(
      e instanceof Error && /insufficient/.test(e.message) ? 'insufficient_balance' : 'invalid_withdrawal',
    )
  }
}

/** `GET /v1/account/stats`: volumes (USD) of the account's fills in the last 7 days and its maker share. */
export function accountStats(
  s: ExchangeState,
  fills: readonly { price: string; quantity: string; taker: boolean; timestamp: number }[],
) {
  const since = nowOf(s) - 7 * 86_400_000
  let taker = '0'
  let maker = '0'
  for (const f of fills) {
    if (f.timestamp < since) continue
    const v = mulDecimal(f.price, f.quantity)
    if (f.taker) taker = addDecimal(taker, v)
    else maker = addDecimal(maker, v)
  }
  const total = addDecimal(taker, maker)
  const share = total === '0' ? '0' : (Number(maker) / Number(total)).toFixed(6)
  return {
    volume_7d: total,
    taker_volume_7d: taker,
    maker_volume_7d: maker,
    account_maker_share_7d: share,
  }
}

/** `GET /v1/account/notifications`: the mock raises no notifications. */
export function notificationsPage(_account: Account) {
  return { items: [], unread: 0, durable_source_seq: 0, has_more: false, next_cursor: null }
}
