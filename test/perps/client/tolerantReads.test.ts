/**
 * Reads the live venue sends looser than our first schemas assumed (issue 8): the client returns them
 * normalised, and a shape still not understood is an UnexpectedResponseError naming the body path.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { UnexpectedResponseError } from '../../../src/errors.ts'
import { UNSPECIFIED_REJECTION } from '../../../src/perps/schemas/orders.ts'
import {
  CREDENTIALS_BODY,
  createHarness,
  type Harness,
  OWNER_ADDRESS,
  PROXY_ADDRESS,
  SECRET,
  STATISTICS_BODY,
  withdrawal,
} from './harness.ts'

let h: Harness
let open: Harness | undefined
function setup(): Harness {
  h = createHarness()
  open = h
  return h
}
afterEach(async () => {
  if (open === undefined) return
  open.agent.assertNoPendingInterceptors()
  await open.close()
  open = undefined
})

const EXPIRY_MS = 1_767_225_600_000

describe('createProxy', () => {
  it('an answer without status still yields the credentials (the proxy is registered: keep its secret)', async () => {
    setup()
    h.reply({ body: { secret: SECRET } })
    const res = await h.client.createProxy({ proxy: PROXY_ADDRESS, expiry: EXPIRY_MS })
    expect(res.status).toBe('ok')
    expect(res.credentials.proxy).toBe(PROXY_ADDRESS)
    expect(res.credentials.secret).toBe(SECRET)
  })
})

describe('getCredentials', () => {
  it('converts a nanosecond expiry to ms', async () => {
    setup()
    h.reply({
      body: { address: OWNER_ADDRESS, keys: [{ proxy: PROXY_ADDRESS, expiry: EXPIRY_MS * 1_000_000 }] },
    })
    const c = await h.client.getCredentials()
    expect(c.keys).toEqual([{ proxy: PROXY_ADDRESS, expiry: EXPIRY_MS }])
  })

  it('a shape still not understood names the body path, in a field', async () => {
    setup()
    h.reply({
      body: {
        ...CREDENTIALS_BODY,
        keys: [
          { proxy: PROXY_ADDRESS, expiry: '2026-01-01' },
          { proxy: 'nope', expiry: 1 },
        ],
      },
    })
    const err = await h.client.getCredentials().catch((e: unknown) => e)
    expect(err).toBeInstanceOf(UnexpectedResponseError)
    const e = err as UnexpectedResponseError
    expect(e.path).toBe('/v1/account/credentials')
    expect(e.fieldPaths).toEqual(['keys.0.expiry', 'keys.1.proxy'])
    expect(e.message).toContain('keys.0.expiry')
  })
})

describe('getWithdrawals', () => {
  it("reads a pending hash sent as '' or left out as 0x", async () => {
    setup()
    const { hash: _h, ...noHash } = withdrawal(2, 2_000, 'pending')
    h.reply({ body: { data: [{ ...withdrawal(1, 1_000, 'pending'), hash: '' }, noHash], more: false } })
    const page = await h.client.getWithdrawals()
    expect(page.data.map((w) => w.hash)).toEqual(['0x', '0x'])
  })
})

describe('getStatistics', () => {
  it('reads rows without symbol', async () => {
    setup()
    const rows = STATISTICS_BODY.map(({ symbol: _s, ...row }) => row)
    h.reply({ body: rows })
    const stats = await h.client.getStatistics()
    expect(stats.map((s) => s.symbol)).toEqual(rows.map(() => undefined))
    expect(stats.length).toBeGreaterThan(0)
  })
})

describe('cancelOrders', () => {
  it('takes ok without oid and err without error', async () => {
    setup()
    h.reply({ body: [{ status: 'ok' }, { status: 'err' }] })
    const res = await h.client.cancelOrders([1, 2])
    expect(res).toEqual([{ status: 'ok' }, { status: 'err', error: UNSPECIFIED_REJECTION }])
  })
})

describe('UnexpectedResponseError.fieldPaths', () => {
  it('is (root) for a body that is not JSON or has no path', () => {
    expect(new UnexpectedResponseError('/x', ['body is not valid JSON']).fieldPaths).toEqual(['(root)'])
    expect(new UnexpectedResponseError('/x', ['(root): expected 2 results, got 1']).fieldPaths).toEqual([
      '(root)',
    ])
    expect(new UnexpectedResponseError('/x', ['a.b: x', 'a.b: y', 'c: z']).fieldPaths).toEqual(['a.b', 'c'])
    expect(new UnexpectedResponseError('/x', ['a: x'], { fieldPaths: ['given'] }).fieldPaths).toEqual([
      'given',
    ])
  })
})
