import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { InputValidationError } from '../../../src/errors.ts'
import { createHarness, type Harness, TICKERS_BODY } from './harness.ts'

let h: Harness
beforeEach(() => {
  h = createHarness()
})
afterEach(async () => {
  h.agent.assertNoPendingInterceptors()
  await h.close()
})

describe('getTickers', () => {
  it('reads every ticker in one public GET of weight 2', async () => {
    h.reply({ body: TICKERS_BODY })
    const rows = await h.client.getTickers()
    const req = h.only()
    expect([req.method, req.path, req.headers['polymarket-secret']]).toEqual([
      'GET',
      '/v1/info/tickers',
      undefined,
    ])
    expect(rows).toEqual(TICKERS_BODY)
    expect(h.charges[0]).toEqual({ endpoint: 'getTickers', requestWeight: 2, actionWeight: 0 })
  })

  it('sends instrument_id and keeps only that instrument', async () => {
    h.reply({ body: TICKERS_BODY })
    const rows = await h.client.getTickers({ instrumentId: 2 })
    expect(h.only().path).toBe('/v1/info/tickers?instrument_id=2')
    expect(rows.map((r) => r.symbol)).toEqual(['BTC-USDC'])
  })

  it('rejects a bad instrument id before any request; a row with a numeric price is dropped, not the read', async () => {
    await expect(h.client.getTickers({ instrumentId: -1 })).rejects.toBeInstanceOf(InputValidationError)
    expect(h.requests).toHaveLength(0)
    h.reply({ body: [{ ...TICKERS_BODY[0], mark_price: 160.2 }, TICKERS_BODY[0]] })
    await expect(h.client.getTickers()).resolves.toHaveLength(1)
  })
})
