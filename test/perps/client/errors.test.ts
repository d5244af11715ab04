/**
 * Error paths of EVERY endpoint (table-driven): 400, 401, 422, 429 with and without Retry-After,
 * 500, malformed JSON, schema mismatch naming the field, network failure; each with exactly one
 * request. Reads use NO_RETRY here; retries are covered in transport.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest'
import {
  RateLimitError,
  RequestRejectedError,
  TransportError,
  UnexpectedResponseError,
  UnknownOutcomeError,
} from '../../../src/errors.ts'
import { CASES, type EndpointCase } from './errorCases.ts'
import { createHarness, type Harness, T0 } from './harness.ts'

let h: Harness
afterEach(async () => {
  h.agent.assertNoPendingInterceptors()
  await h.close()
})

function errBody(c: EndpointCase, error: string): unknown {
  const body = { status: 'err', error, ref: 'g-1', ts: T0 }
  return c.batch ? [body] : body
}

async function failure(c: EndpointCase): Promise<unknown> {
  const e = await c.call(h.client).then(
    () => undefined,
    (err: unknown) => err,
  )
  expect(e, 'the call should have failed').toBeDefined()
  expect(h.requests).toHaveLength(1)
  expect(h.requests[0]?.method).toBe(c.method)
  expect(h.requests[0]?.path).toBe(c.path)
  return e
}

it('the table covers every endpoint of the weight table', async () => {
  const { PERPS_WEIGHTS } = await import('../../../src/perps/weights.ts')
  expect(CASES.map((c) => c.endpoint).sort()).toEqual(Object.keys(PERPS_WEIGHTS).sort())
  h = createHarness()
})

describe.each(CASES)('$endpoint error paths', (c) => {
  it('400 → RequestRejectedError carrying the venue text', async () => {
    h = createHarness()
    const text = 'invalid query parameters: missing field `instrument_id`'
    h.reply({ status: 400, body: errBody(c, text) })
    const e = await failure(c)
    expect(e).toBeInstanceOf(RequestRejectedError)
    expect(e).toMatchObject({ status: 400, code: text, path: c.path.split('?')[0] })
  })

  it('401 unauthorized → RequestRejectedError', async () => {
    h = createHarness()
    h.reply({ status: 401, body: errBody(c, 'unauthorized') })
    const e = await failure(c)
    expect(e).toBeInstanceOf(RequestRejectedError)
    expect(e).not.toBeInstanceOf(RateLimitError)
    expect(e).toMatchObject({ status: 401, code: 'unauthorized' })
  })

  it('422 → RequestRejectedError with the engine id', async () => {
    h = createHarness()
    h.reply({ status: 422, body: errBody(c, 'insufficient_margin') })
    const e = await failure(c)
    expect(e).toMatchObject({ status: 422, code: 'insufficient_margin' })
  })

  it('429 with Retry-After → RateLimitError.retryAfterMs and the onRateLimited hook', async () => {
    h = createHarness()
    h.reply({ status: 429, body: errBody(c, 'ip_rate_limited'), headers: { 'Retry-After': '3' } })
    const e = await failure(c)
    expect(e).toBeInstanceOf(RateLimitError)
    expect(e).toMatchObject({ status: 429, code: 'ip_rate_limited', retryAfterMs: 3000 })
    expect(h.rateLimited).toEqual([{ endpoint: c.endpoint, error: e }])
  })

  it('429 open_orders_limit without Retry-After → retryAfterMs undefined', async () => {
    h = createHarness()
    h.reply({ status: 429, body: errBody(c, 'open_orders_limit') })
    const e = await failure(c)
    expect(e).toBeInstanceOf(RateLimitError)
    expect((e as RateLimitError).retryAfterMs).toBeUndefined()
  })

  it(`500 → ${c.command ? 'UnknownOutcomeError (a command may have applied)' : 'RequestRejectedError'}`, async () => {
    h = createHarness()
    h.reply({ status: 500, body: errBody(c, 'internal_error') })
    const e = await failure(c)
    if (c.command) {
      expect(e).toBeInstanceOf(UnknownOutcomeError)
      expect((e as UnknownOutcomeError).cause).toMatchObject({ status: 500, code: 'internal_error' })
    } else {
      expect(e).toBeInstanceOf(RequestRejectedError)
      expect(e).toMatchObject({ status: 500, code: 'internal_error' })
    }
  })

  it('an error body of another shape still maps by status (code http_<status>)', async () => {
    h = createHarness()
    h.reply({ status: 403, raw: '<html>forbidden</html>' })
    const e = await failure(c)
    expect(e).toMatchObject({ status: 403, code: 'http_403' })
  })

  it('malformed JSON on 200 → UnexpectedResponseError', async () => {
    h = createHarness()
    h.reply({ raw: '{"status":"ok",' })
    const e = await failure(c)
    expect(e).toBeInstanceOf(UnexpectedResponseError)
    expect((e as Error).message).toMatch(/not valid JSON/)
  })

  it('schema mismatch → UnexpectedResponseError naming the field', async () => {
    h = createHarness()
    h.reply({ body: c.mismatch.body })
    const e = await failure(c)
    expect(e).toBeInstanceOf(UnexpectedResponseError)
    const issues = (e as UnexpectedResponseError).issues
    expect(
      issues.some((i) => i.startsWith(`${c.mismatch.field}:`)),
      issues.join('; '),
    ).toBe(true)
  })

  it('connection refused → TransportError (never delivered, so not an unknown outcome)', async () => {
    h = createHarness()
    h.fail(Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' }))
    const e = await c.call(h.client).catch((err: unknown) => err)
    expect(e).toBeInstanceOf(TransportError)
    expect(e).toMatchObject({ maybeDelivered: false })
  })

  it(`connection reset after send → ${c.command ? 'UnknownOutcomeError' : 'TransportError'}`, async () => {
    h = createHarness()
    h.fail(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))
    const e = await c.call(h.client).catch((err: unknown) => err)
    expect(e).toBeInstanceOf(c.command ? UnknownOutcomeError : TransportError)
  })
})
