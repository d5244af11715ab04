/**
 * The in-process transport: answers reach the bot only through the delivery queue, in arrival order,
 * and the exchange hook sees each request as the mock got it with the mock's answer.
 */
import { describe, expect, it } from 'vitest'
import type { MockRequest, MockResponse } from '../../../src/mock/mockHttp.ts'
import { VirtualClock } from '../../../src/mock/virtualClock.ts'
import {
  createDeliveryQueue,
  createInProcessTransport,
} from '../../../src/sim/simulate/inProcessTransport.ts'

const flush = () => new Promise<void>((r) => setImmediate(r))

describe('in-process transport', () => {
  it('hands answers over only through the queue, oldest first, and shows every exchange', async () => {
    const clock = new VirtualClock({ mode: 'stepped', startMs: 0 })
    const deliveries = createDeliveryQueue()
    const seen: [MockRequest, MockResponse][] = []
    const t = createInProcessTransport({
      deliveries,
      clock,
      deadlineMs: 5_000,
      maxBodyBytes: 1 << 20,
      handler: (req) => ({ status: req.method === 'POST' ? 201 : 200, body: { path: req.path } }),
      onExchange: (req, res) => void seen.push([req, res]),
    })
    const order: string[] = []
    const a = t.request({ method: 'POST', path: '/v1/trade/orders', body: { sig: '0xab' } }).then((r) => {
      order.push(r.text)
      return r
    })
    const b = t.request({ method: 'GET', path: '/v1/info/index' }).then((r) => void order.push(r.text))
    await flush()
    expect(deliveries.size).toBe(2)
    expect(order).toEqual([])
    expect(
      seen.map(([req, res]) => [req.method, req.path, (req.body as { sig?: string })?.sig, res.status]),
    ).toEqual([
      ['POST', '/v1/trade/orders', '0xab', 201],
      ['GET', '/v1/info/index', undefined, 200],
    ])
    expect(deliveries.deliverOne()).toBe(true)
    expect(deliveries.deliverOne()).toBe(true)
    expect(deliveries.deliverOne()).toBe(false)
    await Promise.all([a, b])
    expect(order).toEqual(['{"path":"/v1/trade/orders"}', '{"path":"/v1/info/index"}'])
    expect((await a).status).toBe(201)
    expect(deliveries.size).toBe(0)
    clock.dispose()
  })

  it("hands an answer over as its value beside its text (the size, the cap); a fault's raw text alone", async () => {
    const clock = new VirtualClock({ mode: 'stepped', startMs: 0 })
    const deliveries = createDeliveryQueue()
    const bytes: number[] = []
    const body = { price: '100.5', rows: [1, 2] }
    const t = createInProcessTransport({
      deliveries,
      clock,
      deadlineMs: 5_000,
      maxBodyBytes: 30,
      handler: (req) =>
        req.path === '/raw'
          ? { status: 200, body: undefined, raw: '{"price":' }
          : req.path === '/big'
            ? { status: 200, body: { pad: 'x'.repeat(40) } }
            : { status: 200, body },
      onAnswer: (_req, _status, n) => void bytes.push(n),
    })
    const read = (path: string) => {
      const r = t.request({ method: 'GET', path })
      void flush().then(() => deliveries.deliverOne())
      return r
    }
    const value = await read('/value')
    expect(value.json).toBe(body)
    expect(value.text).toBe(JSON.stringify(body))
    const raw = await read('/raw')
    expect(raw.json).toBeUndefined()
    expect(raw.text).toBe('{"price":')
    await expect(read('/big')).rejects.toThrow(/30/)
    expect(bytes).toEqual([JSON.stringify(body).length, 9, 50])
    clock.dispose()
  })
})
