import { describe, expect, it } from 'vitest'
import { PushDataCache } from '../../../src/perps/stream/pushDataCache.ts'

const ticker = (iid: number, idx: string) => ({ iid, idx, mark: '100.6', oi: '10', nxf: 9_000 })

describe('the push data cache', () => {
  it('gives back the accepted value for raw data equal field for field, per channel and instrument', () => {
    const cache = new PushDataCache<string>()
    cache.remember('tickers::all', ticker(1, '100'), 'parsed-1')
    cache.remember('tickers::all', ticker(2, '200'), 'parsed-2')
    expect(cache.lookup('tickers::all', ticker(1, '100'))).toBe('parsed-1')
    expect(cache.lookup('tickers::all', ticker(2, '200'))).toBe('parsed-2')
    expect(cache.lookup('tickers::1', ticker(1, '100'))).toBeUndefined()
  })

  it('misses on any changed, added or missing field, and on a field of another type', () => {
    const cache = new PushDataCache<string>()
    cache.remember('tickers::all', ticker(1, '100'), 'parsed')
    expect(cache.lookup('tickers::all', ticker(1, '100.5'))).toBeUndefined()
    expect(cache.lookup('tickers::all', { ...ticker(1, '100'), extra: 1 })).toBeUndefined()
    const { oi: _, ...missing } = ticker(1, '100')
    expect(cache.lookup('tickers::all', missing)).toBeUndefined()
    expect(cache.lookup('tickers::all', { ...ticker(1, '100'), nxf: '9000' })).toBeUndefined()
  })

  it('keeps only flat objects: nested data, arrays and primitives are parsed every time', () => {
    const cache = new PushDataCache<string>()
    const nested = { iid: 1, klines: [[1, '1']] }
    cache.remember('statistics::all', nested, 'parsed')
    cache.remember('fills', [{ tid: 1 }], 'parsed')
    cache.remember('x', 'text', 'parsed')
    expect(cache.size).toBe(0)
    expect(cache.lookup('statistics::all', nested)).toBeUndefined()
  })

  it('forgets a channel (unsubscribed)', () => {
    const cache = new PushDataCache<string>()
    cache.remember('bbo::1', { iid: 1, bp: '99' }, 'parsed')
    cache.forget('bbo::1')
    expect(cache.lookup('bbo::1', { iid: 1, bp: '99' })).toBeUndefined()
    expect(cache.size).toBe(0)
  })
})
