/**
 * The history pagers against a reference server implementing the documented paging contract:
 * rows with start <= ts <= end (end defaults to now), newest first, at most 100, `more` when older
 * rows in the window did not fit.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { InputValidationError, TransportError, UnexpectedResponseError } from '../../../src/errors.ts'
import {
  createHarness,
  funding,
  type Harness,
  type RecordedRequest,
  type Reply,
  T0,
  withdrawal,
} from './harness.ts'

let h: Harness
afterEach(async () => {
  h.agent.assertNoPendingInterceptors()
  await h.close()
})

type Row = Record<string, unknown>

/** The reference server for one request. */
function serve(rows: Row[], tsKey: string, idKey: string, req: RecordedRequest, pageSize = 100): Reply {
  const q = new URL(req.path, 'http://x').searchParams
  const start = q.has('start_timestamp') ? Number(q.get('start_timestamp')) : 0
  const end = q.has('end_timestamp') ? Number(q.get('end_timestamp')) : T0
  const inWindow = rows
    .filter((r) => (r[tsKey] as number) >= start && (r[tsKey] as number) <= end)
    .sort(
      (a, b) => (b[tsKey] as number) - (a[tsKey] as number) || (b[idKey] as number) - (a[idKey] as number),
    )
  return { body: { data: inWindow.slice(0, pageSize), more: inWindow.length > pageSize } }
}

/** Queues `n` replies from the reference server. */
function queue(n: number, rows: Row[], tsKey = 'created_timestamp', idKey = 'withdraw_id'): void {
  for (let i = 0; i < n; i++) h.respond((req) => serve(rows, tsKey, idKey, req))
}

function endOf(req: RecordedRequest | undefined): string | null {
  return new URL(req?.path ?? '/', 'http://x').searchParams.get('end_timestamp')
}

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const x of it) out.push(x)
  return out
}

describe('iterateWithdrawals', () => {
  it('one page when more is false', async () => {
    h = createHarness()
    const rows = [withdrawal(1, 1000), withdrawal(2, 2000)]
    queue(1, rows)
    const got = await collect(h.client.iterateWithdrawals())
    expect(got.map((w) => w.withdraw_id)).toEqual([2, 1])
    expect(h.requests).toHaveLength(1)
    expect(h.requests[0]?.path).toBe('/v1/account/withdrawals')
  })

  it('walks 250 rows backwards in 3 requests, each row once, newest first', async () => {
    h = createHarness()
    const rows = Array.from({ length: 250 }, (_, i) => withdrawal(i + 1, 10_000 + i * 10))
    queue(3, rows)
    const got = await collect(h.client.iterateWithdrawals({ status: 'confirmed', startTimestamp: 5 }))
    expect(got.map((w) => w.withdraw_id)).toEqual(Array.from({ length: 250 }, (_, i) => 250 - i))
    expect(h.requests.map((r) => r.path)).toEqual([
      '/v1/account/withdrawals?withdrawal_status=confirmed&start_timestamp=5',
      // inclusive end = oldest timestamp of the previous page
      `/v1/account/withdrawals?withdrawal_status=confirmed&start_timestamp=5&end_timestamp=${10_000 + 150 * 10}`,
      `/v1/account/withdrawals?withdrawal_status=confirmed&start_timestamp=5&end_timestamp=${10_000 + 51 * 10}`,
    ])
    expect(h.charges.map((c) => c.requestWeight)).toEqual([10, 10, 10])
  })

  it('rows sharing the boundary millisecond are fetched again and de-duplicated by id', async () => {
    h = createHarness()
    // ids 1..150; ids 41..80 share ts 5000, so the first page (ids 150..51) cuts that millisecond.
    const rows = Array.from({ length: 150 }, (_, i) => {
      const id = i + 1
      const ts = id <= 40 ? 1000 + id : id <= 80 ? 5000 : 5000 + id
      return withdrawal(id, ts)
    })
    queue(2, rows)
    const got = await collect(h.client.iterateWithdrawals())
    const ids = got.map((w) => w.withdraw_id)
    expect(ids).toHaveLength(150)
    expect(new Set(ids).size).toBe(150)
    expect(endOf(h.requests[1])).toBe('5000')
  })

  it('always progresses when more than a page shares one millisecond (the overflow is unreachable)', async () => {
    h = createHarness()
    const rows = [
      ...Array.from({ length: 120 }, (_, i) => withdrawal(i + 1, 9000)),
      ...Array.from({ length: 10 }, (_, i) => withdrawal(200 + i, 8000 - i)),
    ]
    queue(3, rows)
    const pages = await collect(h.client.paginateWithdrawals())
    expect(pages.map((p) => p.data.length)).toEqual([100, 0, 10])
    expect(h.requests.map(endOf)).toEqual([null, '9000', '8999'])
  })

  it('does not rely on the row order inside a page', async () => {
    h = createHarness()
    const rows = Array.from({ length: 3 }, (_, i) => withdrawal(i + 1, 1000 + i))
    h.reply({ body: { data: rows, more: false } }) // ascending on the wire
    const got = await collect(h.client.iterateWithdrawals())
    expect(got.map((w) => w.withdraw_id)).toEqual([3, 2, 1])
  })

  it('stops at maxPages', async () => {
    h = createHarness()
    const rows = Array.from({ length: 250 }, (_, i) => withdrawal(i + 1, 10_000 + i))
    queue(2, rows)
    const pages = await collect(h.client.paginateWithdrawals({}, { maxPages: 2 }))
    expect(pages).toHaveLength(2)
    expect(pages[1]?.more).toBe(true)
  })

  it('stops when an empty page still claims more', async () => {
    h = createHarness()
    h.reply({ body: { data: [], more: true } })
    expect(await collect(h.client.iterateWithdrawals())).toEqual([])
    expect(h.requests).toHaveLength(1)
  })

  it('a venue that repeats a page claiming more (window ignored) is an UnexpectedResponseError, not an endless walk (fuzz find)', async () => {
    h = createHarness()
    const page = { body: { data: [withdrawal(1, 5000)], more: true } }
    for (let i = 0; i < 3; i++) h.reply(page)
    const e = await collect(h.client.iterateWithdrawals()).catch((x: unknown) => x)
    expect(e).toBeInstanceOf(UnexpectedResponseError)
    expect(h.requests.map(endOf)).toEqual([null, '5000', '4999'])
  })

  it('validates on the first next(), before any request', async () => {
    h = createHarness()
    const it = h.client.iterateWithdrawals({ startTimestamp: 10, endTimestamp: 1 })
    await expect(it.next()).rejects.toBeInstanceOf(InputValidationError)
    expect(h.requests).toHaveLength(0)
  })

  it('an aborted signal stops before the next request', async () => {
    h = createHarness()
    const ctl = new AbortController()
    ctl.abort()
    const it = h.client.iterateWithdrawals({}, { signal: ctl.signal })
    await expect(it.next()).rejects.toBeInstanceOf(TransportError)
    expect(h.requests).toHaveLength(0)
  })
})

describe('iterateFunding', () => {
  it('keys rows without id by instrument and timestamp, so two instruments at one ms both survive', async () => {
    h = createHarness()
    // 101 charges: the boundary ms 1000 holds instrument 1 (page 1) and instrument 2 (cut off).
    const rows = [
      ...Array.from({ length: 99 }, (_, i) => funding(2000 + i, 1)),
      funding(1000, 1),
      funding(1000, 2),
      funding(500, 1),
    ]
    queue(2, rows, 'timestamp', 'instrument_id')
    const got = await collect(h.client.iterateFunding({ instrumentId: undefined, startTimestamp: 0 }))
    expect(got).toHaveLength(102)
    const at1000 = got.filter((f) => f.timestamp === 1000).map((f) => f.instrument_id)
    expect(at1000.sort()).toEqual([1, 2])
    expect(h.requests[1]?.path).toBe('/v1/account/funding?start_timestamp=0&end_timestamp=1000')
  })

  it('de-duplicates by id when the venue sends one', async () => {
    h = createHarness()
    // ids 1..60 share ts 1000; the first page (ids 101..2) cuts id 1 off that millisecond.
    const rows = Array.from({ length: 101 }, (_, i) => funding(i < 60 ? 1000 : 1000 + i, 1, i + 1))
    queue(2, rows, 'timestamp', 'id')
    const got = await collect(h.client.iterateFunding({ instrumentId: 1 }))
    expect(got.map((f) => f.id).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(
      Array.from({ length: 101 }, (_, i) => i + 1),
    )
    expect(h.requests[1]?.path).toBe('/v1/account/funding?instrument_id=1&end_timestamp=1000')
  })
})
