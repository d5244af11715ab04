/**
 * Our perps read schemas accept every shape the official client (@polymarket/client 0.2.0, through its
 * @polymarket/bindings schemas) accepts for the same reads. Each fixture is first parsed by the
 * official schema (so it is a shape the official client takes) and then by ours, and the normalised
 * values are compared. Fixture values follow the official package's own tests where they exist.
 */
import {
  PerpsCancelOrderResultSchema,
  PerpsCreateProxyResponseSchema,
  PerpsCredentialsResponseSchema,
  PerpsPostOrderAckSchema,
  PerpsStatisticSchema,
  PerpsWithdrawalSchema,
} from '@polymarket/bindings/perps'
import { describe, expect, it } from 'vitest'
import { CreateProxyResult, Credentials, Withdrawal } from '../../src/perps/schemas/account.ts'
import { ProxyExpiryMs } from '../../src/perps/schemas/common.ts'
import { StatisticsItem } from '../../src/perps/schemas/info.ts'
import {
  CancelResult,
  CreateOrderAck,
  ModifyResult,
  UNSPECIFIED_REJECTION,
} from '../../src/perps/schemas/orders.ts'

const ADDRESS = '0x0000000000000000000000000000000000000001'
const PROXY = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const MINED = `0x${'ab'.repeat(32)}`
const EXPIRY_MS = 1_767_225_600_000

/** The official package's withdrawal fixture (funds.test.ts). */
const baseWithdrawal = {
  withdraw_id: 1,
  asset: 'USDC',
  amount: '1000000',
  fee: '0',
  status: 'pending',
  to: ADDRESS,
  confirmations: 0,
  required_confirmations: 10,
  created_timestamp: 1_700_000_000_000,
}

describe('credentials: proxy expiry in nanoseconds (official: above 2^53 is ns, divided by 1e6)', () => {
  it.each([
    ['nanoseconds', EXPIRY_MS * 1_000_000, EXPIRY_MS],
    ['nanoseconds with sub-ms digits (floored)', (EXPIRY_MS + 123) * 1_000_000 + 456_789, EXPIRY_MS + 123],
    ['milliseconds', EXPIRY_MS, EXPIRY_MS],
    ['exactly 2^53 - 1 (kept)', Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  ])('%s', (_what, expiry, wantMs) => {
    const body = { address: ADDRESS, keys: [{ proxy: PROXY, expiry, label: 'bot' }] }
    const official = PerpsCredentialsResponseSchema.parse(body)
    const ours = Credentials.parse(body)
    expect(ours.keys[0]?.expiry).toBe(wantMs)
    expect(ours.keys[0]?.expiry).toBe(official.keys[0]?.expiresAt)
    expect(ours.keys[0]?.label).toBe('bot')
  })

  it('still rejects what the official client rejects: fractions and non-numbers', () => {
    for (const expiry of [1.5, '1767225600000', null]) {
      const body = { address: ADDRESS, keys: [{ proxy: PROXY, expiry }] }
      expect(PerpsCredentialsResponseSchema.safeParse(body).success).toBe(false)
      expect(Credentials.safeParse(body).error?.issues[0]?.path).toEqual(['keys', 0, 'expiry'])
    }
    expect(ProxyExpiryMs.safeParse(-1).success).toBe(false)
  })
})

describe("withdrawals: a hash that is '', '0x' or absent reads as not yet mined", () => {
  it.each([
    ["''", { hash: '' }],
    ["'0x'", { hash: '0x' }],
    ['absent', {}],
  ])('%s', (_what, hash) => {
    const row = { ...baseWithdrawal, ...hash }
    expect(PerpsWithdrawalSchema.parse(row).hash).toBeUndefined()
    expect(Withdrawal.parse(row).hash).toBe('0x')
  })

  it('a mined hash is kept as sent; null is tolerated too', () => {
    expect(Withdrawal.parse({ ...baseWithdrawal, hash: MINED }).hash).toBe(MINED)
    expect(Withdrawal.parse({ ...baseWithdrawal, hash: null }).hash).toBe('0x')
    expect(Withdrawal.safeParse({ ...baseWithdrawal, hash: 'pending' }).error?.issues[0]?.path).toEqual([
      'hash',
    ])
  })
})

describe('statistics rows without symbol', () => {
  it('parse, with the symbol absent', () => {
    const row = { instrument_id: 6, volume: '12.5', open_price: '100', klines: [] }
    expect(PerpsStatisticSchema.parse(row).symbol).toBeUndefined()
    expect(StatisticsItem.parse(row).symbol).toBeUndefined()
    expect(StatisticsItem.parse({ ...row, symbol: 'BTC-PERP' }).symbol).toBe('BTC-PERP')
  })
})

describe('batch acknowledgements', () => {
  it('a cancel result ok without oid (official: allowed)', () => {
    const ack = { status: 'ok' }
    expect(PerpsCancelOrderResultSchema.parse(ack).orderId).toBeUndefined()
    expect(CancelResult.parse(ack)).toEqual({ status: 'ok' })
    const coidOnly = { status: 'ok', coid: '0123456789abcdef0123456789abcdef' }
    expect(PerpsCancelOrderResultSchema.safeParse(coidOnly).success).toBe(true)
    expect(CancelResult.parse(coidOnly)).toEqual(coidOnly)
  })

  it('err without error (official: a default text) reads as UNSPECIFIED_REJECTION, for every batch kind', () => {
    for (const ack of [{ status: 'err' }, { status: 'err', oid: 7 }, { status: 'err', error: '' }]) {
      expect(PerpsPostOrderAckSchema.safeParse(ack).success).toBe(true)
      expect(PerpsCancelOrderResultSchema.safeParse(ack).success).toBe(true)
      for (const schema of [CreateOrderAck, CancelResult, ModifyResult]) {
        expect(schema.parse(ack)).toMatchObject({ status: 'err', error: UNSPECIFIED_REJECTION })
      }
    }
    expect(CancelResult.parse({ status: 'err', oid: 7 })).toMatchObject({ oid: 7 })
  })

  it('keeps a sent error code, as the official client does (its fixtures)', () => {
    const ack = { coid: 'fedcba9876543210fedcba9876543210', error: 'insufficient_margin', status: 'err' }
    expect(PerpsPostOrderAckSchema.parse(ack)).toMatchObject({ error: 'insufficient_margin' })
    expect(CreateOrderAck.parse(ack)).toEqual(ack)
  })

  it('a create ack ok without oid is rejected, by the official client too', () => {
    expect(PerpsPostOrderAckSchema.safeParse({ status: 'ok' }).success).toBe(false)
    expect(CreateOrderAck.safeParse({ status: 'ok' }).success).toBe(false)
  })
})

describe('createProxy answers', () => {
  it('without status (the official client reads only the secret)', () => {
    const body = { secret: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY' }
    expect(PerpsCreateProxyResponseSchema.parse(body).secret).toBe(body.secret)
    expect(CreateProxyResult.parse(body).secret).toBe(body.secret)
    expect(CreateProxyResult.parse({ status: 'ok', ...body }).secret).toBe(body.secret)
  })

  it('without a secret: rejected by both', () => {
    expect(PerpsCreateProxyResponseSchema.safeParse({ status: 'ok' }).success).toBe(false)
    expect(CreateProxyResult.safeParse({ status: 'ok' }).error?.issues[0]?.path).toEqual(['secret'])
    expect(CreateProxyResult.safeParse({ secret: '' }).success).toBe(false)
  })
})
