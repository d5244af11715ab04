import { describe, expect, it } from 'vitest'
import { FILL_MID_HORIZONS_MS, FillMids, touchMid } from '../../src/journal/fillMids.ts'
import type { FillMidRecord } from '../../src/journal/records.ts'

/** A tracker and what it wrote; time is stepped by hand (every call names its moment). */
function setup(o: { maxPending?: number; ringSize?: number } = {}) {
  const written: FillMidRecord[] = []
  const mids = new FillMids({ write: (r) => written.push(r), ...o })
  const byHorizon = (tradeId: string): Record<number, string> =>
    Object.fromEntries(written.filter((w) => w.tradeId === tradeId).map((w) => [w.horizonMs, w.mid]))
  return { mids, written, byHorizon }
}

describe('FillMids (the pending-markout tracker)', () => {
  it('writes the mid at the fill and at 1 s, 10 s and 60 s, each once its moment has passed', () => {
    const { mids, written, byHorizon } = setup()
    // The touch moves up a tick every second: mid at second s is 100.s5 (bid 100.s, ask 100.s + 0.1).
    const touch = (s: number): void =>
      mids.touch(1, s * 1_000, String((1_000 + s) / 10), String((1_001 + s) / 10))
    touch(0)
    // Our fill at 0.5 s, seen 20 ms later.
    mids.fill({ iid: 1, tradeId: 't1', orderId: 7, ts: 500 }, 520)
    expect(byHorizon('t1')).toEqual({ 0: '100.05' })
    touch(1)
    // 1.5 s has not passed at the touch of 1 s.
    expect(Object.keys(byHorizon('t1'))).toEqual(['0'])
    for (let s = 2; s <= 61; s++) touch(s)
    expect(byHorizon('t1')).toEqual({ 0: '100.05', 1000: '100.15', 10000: '101.05', 60000: '106.05' })
    expect(written.find((w) => w.horizonMs === 1000)).toEqual({
      tradeId: 't1',
      orderId: 7,
      fillTs: 500,
      horizonMs: 1000,
      mid: '100.15',
      at: 1_000,
    })
    expect(mids.stats()).toEqual({ pending: 0, fills: 1, written: 4, unknown: 0, dropped: 0 })
    expect(FILL_MID_HORIZONS_MS).toEqual([0, 1_000, 10_000, 60_000])
  })

  it("an unchanged touch renewed (pushed again, not routed) keeps a quiet book's mid known", () => {
    const { mids, byHorizon } = setup()
    mids.renew(1, 0) // no touch yet: nothing to renew
    mids.touch(1, 0, '100', '101')
    mids.fill({ iid: 1, tradeId: 'q', orderId: 1, ts: 100 }, 100)
    for (let s = 1; s <= 61; s++) mids.renew(1, s * 1_500)
    expect(byHorizon('q')).toEqual({ 0: '100.5', 1000: '100.5', 10000: '100.5', 60000: '100.5' })
  })

  it('a fill that arrives late takes its past moments from the touches before them', () => {
    const { mids, byHorizon } = setup()
    for (let s = 0; s <= 12; s++) mids.touch(2, s * 1_000, `${10 + s}`, `${11 + s}`)
    // Filled at 0.2 s, seen by the bot at 12.5 s (a REST read): fill, 1 s and 10 s are settled at once.
    mids.fill({ iid: 2, tradeId: 'late', orderId: 1, ts: 200 }, 12_500)
    expect(byHorizon('late')).toEqual({ 0: '10.5', 1000: '11.5', 10000: '20.5' })
    expect(mids.stats().pending).toBe(1)
  })

  it('a moment with no fresh touch, a one-sided or a crossed touch is unknown: nothing is written', () => {
    const { mids, written, byHorizon } = setup()
    mids.touch(1, 0, '100', '101')
    mids.fill({ iid: 1, tradeId: 'a', orderId: 1, ts: 100 }, 100)
    // The stream goes quiet for 20 s: the touch of 0 s is 1.1 s old at 1.1 s (fresh), 10 s old at 10.1 s.
    mids.touch(1, 20_000, undefined, '99')
    expect(byHorizon('a')).toEqual({ 0: '100.5', 1000: '100.5' })
    // 60.1 s: the touch of 60 s is crossed.
    mids.touch(1, 60_000, '99', '98')
    mids.touch(1, 61_000, '99', '100')
    expect(byHorizon('a')).toEqual({ 0: '100.5', 1000: '100.5' })
    expect(mids.stats()).toMatchObject({ pending: 0, written: 2, unknown: 2 })
    expect(written).toHaveLength(2)
    expect(touchMid('1', undefined, 0)).toBeUndefined()
    expect(touchMid('0', '1', 0)).toBeUndefined()
    expect(touchMid('1', '1', 5)).toEqual({ mid: '1', t: 5 })
  })

  it('a fill with no touch yet is unknown at the fill, and its horizons wait for touches', () => {
    const { mids, byHorizon } = setup()
    mids.fill({ iid: 3, tradeId: 'b', orderId: 1, ts: 0 }, 10)
    mids.touch(3, 500, '1.0', '1.2')
    mids.touch(3, 1_500, '1.0', '1.4')
    expect(byHorizon('b')).toEqual({ 1000: '1.1' })
    expect(mids.stats()).toMatchObject({ pending: 1, unknown: 1 })
  })

  it('holds at most maxPending fills: a fill past it gets its mid at the fill only and is counted', () => {
    const { mids, byHorizon } = setup({ maxPending: 2 })
    mids.touch(1, 0, '10', '12')
    for (const id of ['f1', 'f2', 'f3']) mids.fill({ iid: 1, tradeId: id, orderId: 1, ts: 10 }, 20)
    expect(mids.stats()).toMatchObject({ pending: 2, fills: 3, dropped: 1 })
    for (let s = 1; s <= 71; s++) mids.touch(1, s * 1_000, '10', '12')
    expect(Object.keys(byHorizon('f1'))).toHaveLength(4)
    expect(byHorizon('f3')).toEqual({ 0: '11' })
    expect(mids.stats()).toMatchObject({ pending: 0, dropped: 1 })
  })

  it('advance (the stop) settles every moment already past; later ones stay unwritten', () => {
    const { mids, byHorizon } = setup()
    mids.touch(1, 0, '10', '12')
    mids.fill({ iid: 1, tradeId: 'c', orderId: 1, ts: 0 }, 1)
    mids.touch(1, 1_000, '11', '13')
    mids.advance(2_000)
    expect(byHorizon('c')).toEqual({ 0: '11', 1000: '12' })
    expect(mids.stats().pending).toBe(1)
  })

  it('keeps ringSize touches per instrument: a moment older than the oldest kept is unknown', () => {
    const { mids, byHorizon } = setup({ ringSize: 4 })
    for (let t = 0; t <= 1_000; t += 100) mids.touch(1, t, '10', '12')
    mids.fill({ iid: 1, tradeId: 'old', orderId: 1, ts: 50 }, 1_000)
    mids.fill({ iid: 1, tradeId: 'new', orderId: 2, ts: 750 }, 1_000)
    expect(byHorizon('old')).toEqual({})
    expect(byHorizon('new')).toEqual({ 0: '11' })
  })

  it('drops a touch older than the newest (out of order)', () => {
    const { mids, byHorizon } = setup()
    mids.touch(1, 1_000, '10', '12')
    mids.touch(1, 900, '50', '52')
    mids.fill({ iid: 1, tradeId: 'd', orderId: 1, ts: 950 }, 1_100)
    expect(byHorizon('d')).toEqual({})
    mids.fill({ iid: 1, tradeId: 'e', orderId: 1, ts: 1_050 }, 1_100)
    expect(byHorizon('e')).toEqual({ 0: '11' })
  })
})
