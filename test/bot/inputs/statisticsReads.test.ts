import { describe, expect, it } from 'vitest'
import { createStatisticsReads, perCycle } from '../../../src/bot/inputs/statisticsReads.ts'
import { ResponseTooLargeError } from '../../../src/errors.ts'
import type { StatisticsItem } from '../../../src/perps/schemas/info.ts'

const item = (id: number): StatisticsItem =>
  ({ instrument_id: id, volume: '1', open_price: '1', klines: [] }) as unknown as StatisticsItem

function venue(allFits: boolean) {
  const calls: (number | undefined)[] = []
  const kept: (number | undefined)[] = []
  return {
    calls,
    kept,
    perps: {
      async getStatistics(
        p?: { instrumentId?: number | undefined },
        o?: { newestKlines?: number | undefined },
      ) {
        calls.push(p?.instrumentId)
        kept.push(o?.newestKlines)
        if (p?.instrumentId === undefined) {
          if (!allFits) throw new ResponseTooLargeError('/v1/info/statistics', 8_388_608, 9_500_000, true)
          return [item(1), item(2), item(3)]
        }
        return [item(p.instrumentId)]
      },
    },
  }
}

describe('statistics reads', () => {
  const signal = new AbortController().signal
  const base = { intervalMs: 15_000, staleMs: 180_000, weightPerMinute: 240, klinesKept: 120 }

  it('reads every instrument at once while the answer fits', async () => {
    const v = venue(true)
    const warned: string[] = []
    const read = createStatisticsReads({
      ...base,
      perps: v.perps,
      ids: [1, 2, 3],
      logger: { warn: (_o, m) => void warned.push(m) },
    })
    expect((await read(signal)).map((i) => i.instrument_id)).toEqual([1, 2, 3])
    await read(signal)
    expect(v.calls).toEqual([undefined, undefined])
    // Only the klines the strategies keep are read.
    expect(v.kept).toEqual([120, 120])
    expect(warned).toEqual([])
  })

  it('past the response cap, rotates per-instrument reads so each stays fresh, and says so once', async () => {
    const ids = Array.from({ length: 100 }, (_, i) => i + 1)
    const v = venue(false)
    const warned: string[] = []
    const read = createStatisticsReads({
      ...base,
      perps: v.perps,
      ids,
      logger: { warn: (_o, m) => void warned.push(m) },
    })
    // 100 instruments, each within 120 s at one poll per 15 s: 13 per poll.
    expect(perCycle({ ...base, ids })).toBe(13)
    const first = await read(signal)
    expect(first.map((i) => i.instrument_id)).toEqual(ids.slice(0, 13))
    const seen = new Set(first.map((i) => i.instrument_id))
    for (let k = 0; k < 7; k++) for (const i of await read(signal)) seen.add(i.instrument_id)
    expect(seen.size).toBe(100)
    expect(v.calls.filter((c) => c === undefined)).toHaveLength(1)
    expect(warned).toHaveLength(1)
    expect(warned[0]).toMatch(/13 instrument\(s\) per poll in rotation, each every 120 s/)
  })

  it('caps the rotation by the weight share, and warns when that cannot keep statistics fresh', async () => {
    const ids = Array.from({ length: 1000 }, (_, i) => i + 1)
    // 240 weight a minute at weight 2 and one poll per 15 s: 30 reads per poll.
    expect(perCycle({ ...base, ids })).toBe(30)
    const warned: string[] = []
    const read = createStatisticsReads({
      ...base,
      perps: venue(false).perps,
      ids,
      logger: { warn: (_o, m) => void warned.push(m) },
    })
    expect(await read(signal)).toHaveLength(30)
    expect(warned[0]).toMatch(/longer than quoting.staleStatisticsMs/)
  })

  it('other errors pass through and the next poll tries every instrument again', async () => {
    let fail = true
    const read = createStatisticsReads({
      ...base,
      ids: [1],
      logger: { warn: () => undefined },
      perps: {
        async getStatistics() {
          if (fail) {
            fail = false
            throw new Error('503')
          }
          return [item(1)]
        },
      },
    })
    await expect(read(signal)).rejects.toThrow('503')
    expect(await read(signal)).toHaveLength(1)
  })
})
