/**
 * The venue's contract as the official bindings read it, on the client's read and error paths:
 * tolerant decimals (rewritten to canonical form), an unreadable row dropped and reported (never the
 * whole read), 425 / 503-post-only as typed errors, `retry_after_seconds` honoured like Retry-After,
 * and `Poly-RateLimit-*` headers observed.
 */
import { afterEach, describe, expect, it } from 'vitest'
import {
  EngineRestartingError,
  PostOnlyModeError,
  RateLimitError,
  UnknownOutcomeError,
} from '../../../src/errors.ts'
import { bodyRetryAfterMs } from '../../../src/http/callJson.ts'
import { parseRateLimitHeaders, type RateLimitObservation } from '../../../src/http/rateLimitHeaders.ts'
import { canonicalWireDecimal } from '../../../src/perps/schemas/wireDecimal.ts'
import type { PerpsEndpoint } from '../../../src/perps/weights.ts'
import { createHarness, type Harness, ORDER_DATA, PORTFOLIO_BODY } from './harness.ts'

let h: Harness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

describe('wire decimals', () => {
  it.each([
    ['100.5', '100.5'],
    ['100.50', '100.50'],
    ['.5', '0.5'],
    ['-.5', '-0.5'],
    ['+1', '1'],
    ['1.', '1'],
    ['1e-7', '0.0000001'],
    ['-2.5E+3', '-2500'],
    ['0.000e5', '0'],
    ['-0e3', '0'],
    // Already in our form: kept verbatim (the fast path), as before.
    ['007.10', '007.10'],
  ])('%j reads as %j', (wire, canonical) => {
    expect(canonicalWireDecimal(wire)).toBe(canonical)
  })

  it.each([
    '',
    '.',
    '+',
    '-',
    'e5',
    '1e',
    'NaN',
    'Infinity',
    ' 1',
    '1 ',
    '0x10',
    '1,5',
    '1e99999',
    '9'.repeat(81),
  ])('%j is no decimal', (wire) => {
    expect(canonicalWireDecimal(wire)).toBeUndefined()
  })
})

describe('tolerant reads', () => {
  it('a portfolio with official-but-odd decimals reads, a blank liquidation price reads as 0', async () => {
    const dropped: string[] = []
    h = createHarness({ observer: { droppedItems: (_e, lines) => dropped.push(...lines) } })
    const pos = PORTFOLIO_BODY.positions[0]
    h.reply({
      body: {
        ...PORTFOLIO_BODY,
        withdrawable: '+1.',
        positions: [{ ...pos, size: '.5', liquidation_price: '', unrealized_pnl: '1e-7' }],
      },
    })
    const p = await h.client.getPortfolio()
    expect(p.withdrawable).toBe('1')
    expect(p.positions[0]).toMatchObject({ size: '0.5', liquidation_price: '0', unrealized_pnl: '0.0000001' })
    expect(dropped).toEqual([])
  })

  it('an order whose price is no number is dropped and reported; the rest of the read stands', async () => {
    const dropped: { endpoint: PerpsEndpoint; lines: readonly string[] }[] = []
    h = createHarness({ observer: { droppedItems: (endpoint, lines) => dropped.push({ endpoint, lines }) } })
    h.reply({
      body: [ORDER_DATA, { ...ORDER_DATA, order_id: 43, price: '' }, { ...ORDER_DATA, order_id: 44 }],
    })
    const orders = await h.client.getOpenOrders()
    expect(orders.map((o) => o.oid)).toEqual([42, 44])
    expect(dropped).toEqual([{ endpoint: 'getOpenOrders', lines: ['[1.price]: expected a decimal string'] }])
  })

  it('a fills page in the venue layout reads into the domain fill; a bad row is dropped, not the page', async () => {
    const dropped: string[] = []
    h = createHarness({ observer: { droppedItems: (_e, lines) => dropped.push(...lines) } })
    const row = {
      trade_id: 7,
      order_id: 42,
      instrument_id: 1,
      side: 'long',
      price: '100.5',
      quantity: '.01',
      taker: true,
      fee: '0.0005',
      fee_asset: 'pUSD',
      previous_size: '0',
      previous_entry_price: '0',
      pnl: '0',
      liquidation: false,
      timestamp: 1_767_000_000_000,
      hash: '',
    }
    h.reply({ body: { data: [row, { ...row, trade_id: 8, price: 'NaN' }], more: false } })
    const page = await h.client.getFills()
    expect(page.data).toEqual([
      {
        tid: 7,
        oid: 42,
        iid: 1,
        side: 'long',
        p: '100.5',
        qty: '0.01',
        taker: true,
        fee: '0.0005',
        fea: 'pUSD',
        psz: '0',
        pep: '0',
        pnl: '0',
        liq: false,
        ts: 1_767_000_000_000,
        hash: '0x',
      },
    ])
    expect(dropped).toEqual(['[1.price]: expected a decimal string'])
  })
})

describe('typed refusals', () => {
  it('425 on a read is EngineRestartingError, retried after the body’s retry_after_seconds', async () => {
    h = createHarness({ readRetry: { attempts: 2, baseDelayMs: 1, maxDelayMs: 5_000 } })
    h.reply({ status: 425, body: { status: 'err', error: 'engine_restarting', retry_after_seconds: 2 } })
    h.reply({ body: { time: 5 } })
    const before = h.clock.delays.length
    await expect(h.client.getTime()).resolves.toMatchObject({ time: 5 })
    expect(h.clock.delays.slice(before)).toContain(2_000)
  })

  it('425 on a command is EngineRestartingError (nothing applied), not an unknown outcome', async () => {
    h = createHarness()
    h.reply({
      status: 425,
      body: { status: 'err', error: 'engine_restarting' },
      headers: { 'retry-after': '3' },
    })
    const e = await h.client.cancelAll().catch((err: unknown) => err)
    expect(e).toBeInstanceOf(EngineRestartingError)
    expect(e).toMatchObject({ status: 425, retryAfterMs: 3_000, retryable: true })
  })

  it('503 naming post-only mode is PostOnlyModeError on a command; another 503 stays an unknown outcome', async () => {
    h = createHarness()
    h.reply({ status: 503, body: [{ status: 'err', error: 'post_only_mode' }] })
    const e = await h.client
      .createOrders([{ iid: 1, buy: true, p: '100', qty: '1', tif: 'gtc', po: false }])
      .catch((err: unknown) => err)
    expect(e).toBeInstanceOf(PostOnlyModeError)
    expect(e).toMatchObject({ status: 503, code: 'post_only_mode' })
    h.reply({ status: 503, body: { status: 'err', error: 'service_unavailable' } })
    const other = await h.client.cancelAll().catch((err: unknown) => err)
    expect(other).toBeInstanceOf(UnknownOutcomeError)
  })

  it('429 without Retry-After takes the body’s retry_after_seconds', async () => {
    h = createHarness()
    h.reply({ status: 429, body: { status: 'err', error: 'ip_rate_limited', retry_after_seconds: '1.5' } })
    const e = await h.client.getTime().catch((err: unknown) => err)
    expect(e).toBeInstanceOf(RateLimitError)
    expect((e as RateLimitError).retryAfterMs).toBe(1_500)
  })

  it('retry_after_seconds: numbers and numeric strings, capped at an hour; anything else ignored', () => {
    expect(bodyRetryAfterMs({ retry_after_seconds: 0.2 })).toBe(200)
    expect(bodyRetryAfterMs([{ retry_after_seconds: 4 }])).toBe(4_000)
    expect(bodyRetryAfterMs({ retry_after_seconds: 1e12 })).toBe(3_600_000)
    for (const v of [-1, 'soon', null, Number.NaN, {}])
      expect(bodyRetryAfterMs({ retry_after_seconds: v })).toBe(undefined)
    expect(bodyRetryAfterMs('text')).toBeUndefined()
  })
})

describe("Poly-RateLimit-* headers (the official meaning: the signer's bucket)", () => {
  it('are parsed from success and error answers and handed to the observer with the endpoint', async () => {
    const seen: { endpoint: PerpsEndpoint; o: RateLimitObservation }[] = []
    h = createHarness({ observer: { rateLimit: (endpoint, o) => seen.push({ endpoint, o }) } })
    h.reply({
      body: { time: 5 },
      headers: { 'poly-ratelimit-remaining': '57', 'poly-ratelimit-reset': '1782753360' },
    })
    await h.client.getTime()
    // The official client's own sample: a 429 with a debt of 2 tokens, reset a Unix time.
    h.reply({
      status: 429,
      body: { status: 'err', error: 'action_rate_limited' },
      headers: {
        'retry-after': '3',
        'poly-ratelimit-remaining': '-2',
        'poly-ratelimit-reset': '1784913054',
        'poly-ratelimit-tier': 'standard',
      },
    })
    await h.client.getTime().catch(() => undefined)
    h.reply({ body: { time: 6 } })
    await h.client.getTime()
    expect(seen).toEqual([
      { endpoint: 'getTime', o: { remaining: 57, resetAtMs: 1_782_753_360_000, warning: false } },
      {
        endpoint: 'getTime',
        o: { remaining: -2, resetAtMs: 1_784_913_054_000, tier: 'standard', warning: false },
      },
    ])
  })

  it('reads the warning flag as the official parser does, and ignores a Limit header (there is none)', () => {
    expect(parseRateLimitHeaders({ 'poly-ratelimit-warning': 'TRUE' })).toEqual({ warning: true })
    expect(parseRateLimitHeaders({ 'poly-ratelimit-warning': 'no' })).toBeUndefined()
    expect(parseRateLimitHeaders({ 'poly-ratelimit-limit': '1000' })).toBeUndefined()
  })

  it('refuses values that are no numbers or out of any range', () => {
    expect(
      parseRateLimitHeaders({ 'poly-ratelimit-remaining': 'soon', 'poly-ratelimit-reset': '1e99' }),
    ).toBeUndefined()
    expect(parseRateLimitHeaders({ 'poly-ratelimit-remaining': 'NaN' })).toBeUndefined()
    expect(parseRateLimitHeaders({})).toBeUndefined()
  })
})

describe('retryable item rejections', () => {
  it('order_in_flight and the pending-state cancel codes are retryable; a definite refusal is not', async () => {
    const { isRetryableItemError } = await import('../../../src/perps/schemas/orders.ts')
    h = createHarness()
    h.reply({
      body: [
        { status: 'err', error: 'order_in_flight', oid: 1 },
        { status: 'err', error: 'order_not_found', oid: 2 },
        { status: 'ok', oid: 3 },
      ],
    })
    const results = await h.client.cancelOrders([1, 2, 3])
    expect(results.map(isRetryableItemError)).toEqual([true, false, false])
  })
})
