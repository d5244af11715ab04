/**
 * The dataset over the embedded mock's history: download, resume, determinism, and the bad inputs
 * (corrupt file named and only it fetched again, unknown instrument, window outside the data, gaps).
 */
import { mkdtempSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { generateInstruments } from '../../src/mock/perps/instruments.ts'
import { ChunkCursor } from '../../src/research/dataset/cursor.ts'
import { CorruptChunkError, chunkPath, DatasetError } from '../../src/research/dataset/format.ts'
import { DatasetStore } from '../../src/research/dataset/store.ts'
import { download } from '../../src/research/download/downloader.ts'
import { MockHistorySource } from '../../src/research/download/mockSource.ts'
import { DEFAULT_FILL_MODEL } from '../../src/research/replay/fillModel.ts'
import { prepareReplay } from '../../src/research/replay/prepareReplay.ts'

const root = mkdtempSync(join(tmpdir(), 'perpbot-ds-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

const T0 = Date.UTC(2026, 0, 5, 0, 50)
const T1 = Date.UTC(2026, 0, 5, 1, 10)
const specs = generateInstruments(2, 1)
const plan = {
  symbols: specs.map((s) => s.symbol),
  kinds: ['klines', 'trades', 'funding'] as const,
  from: T0,
  to: T1,
}

async function fetchInto(dir: string) {
  const source = new MockHistorySource(specs, 1)
  const store = DatasetStore.openOrCreate(dir, source.name, source.klineIntervalMs)
  return { store, p: await download({ source, store, plan }) }
}

describe('dataset from the embedded mock', () => {
  const dir = join(root, 'a')
  it('downloads paged hourly chunks; a second run fetches nothing; the same window gives the same bytes', async () => {
    const { p } = await fetchInto(dir)
    // 2 hours touched × 2 instruments × 3 kinds.
    expect(p.chunksTotal).toBe(12)
    expect(p.skipped).toBe(0)
    // 20 minutes of 1 s klines and trades per instrument, and the 01:00 funding settlement.
    expect(p.rows).toBe(2 * (1_200 + 1_200 + 1))
    expect(p.pages).toBeGreaterThan(2 * 12)
    const again = await fetchInto(dir)
    expect(again.p.skipped).toBe(12)
    expect(again.p.pages).toBe(0)
    const other = join(root, 'b')
    await fetchInto(other)
    const file = chunkPath('trades', 'BTC-USDC', T0)
    expect(readFileSync(join(other, file)).equals(readFileSync(join(dir, file)))).toBe(true)
  })

  it('streams rows in time order, one chunk at a time', () => {
    const store = DatasetStore.open(dir)
    const c = new ChunkCursor(store, 'klines', 'BTC-USDC', T0, T1)
    let n = 0
    let last = 0
    for (let r = c.takeUntil(T1); r !== undefined; r = c.takeUntil(T1)) {
      expect(r.t).toBeGreaterThan(last)
      last = r.t
      n++
    }
    expect(n).toBe(1_200)
  })

  it('names a corrupt file, and the next download fetches only it', async () => {
    const file = chunkPath('klines', 'ETH-USDC', T1 - 1)
    truncateSync(join(dir, file), 40)
    const store = DatasetStore.open(dir)
    expect(() => store.readChunk(file, 'klines')).toThrow(CorruptChunkError)
    expect(() => store.readChunk(file, 'klines')).toThrow(file)
    const again = await fetchInto(dir)
    expect(again.p.skipped).toBe(11)
    expect(DatasetStore.open(dir).readChunk(file, 'klines')).toHaveLength(600)
  })

  it('refuses an instrument not in the dataset and a window outside it', () => {
    const model = { ...DEFAULT_FILL_MODEL }
    expect(() => prepareReplay({ dir, symbols: ['DOGE-USDC'], model })).toThrow(
      /DOGE-USDC is not in the dataset/,
    )
    expect(() => prepareReplay({ dir, from: T0 - 3_600_000, to: T1, model })).toThrow(/outside the dataset/)
    expect(() => prepareReplay({ dir: join(root, 'none'), model })).toThrow(DatasetError)
  })

  it('reports missing hours as gaps the run crosses', () => {
    const m = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))
    delete m.chunks[chunkPath('klines', 'BTC-USDC', T0)]
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify(m))
    const p = prepareReplay({ dir, model: { ...DEFAULT_FILL_MODEL } })
    expect(p.missing).toEqual([{ symbol: 'BTC-USDC', from: T0, to: Date.UTC(2026, 0, 5, 1) }])
    expect(p.label).toContain('1 gap(s) crossed')
    // Trades present for both: the queue-aware trades model.
    expect(p.label).toContain('fill model trades')
  })
})

describe('row checks', () => {
  it('agree with the row schemas on good and bad rows', async () => {
    const { ROW_CHECKS, ROW_SCHEMAS } = await import('../../src/research/dataset/format.ts')
    const cases = [
      ['klines', { t: 1, o: '1', h: '2', l: '0.5', c: '1', v: '3', n: 2 }],
      ['klines', { t: 1, o: 1, h: '2', l: '0.5', c: '1', v: '3', n: 2 }],
      ['trades', { t: 1, p: '1.5', q: '2' }],
      ['trades', { t: 1, p: '1.5', q: '2', s: 'up' }],
      ['trades', { t: 1.5, p: '1.5', q: '2' }],
      ['tickers', { t: 1, ts: 2, i: '1', m: '1', r: '-0.0001' }],
      ['tickers', { t: 1, i: '1', m: 'x' }],
      ['bbo', { t: 1, bp: '1', bq: '1', ap: '2', aq: '1' }],
      ['funding', { t: 1, r: '1e-5' }],
      [
        'book',
        {
          t: 1,
          b: [['99.5', '2']],
          a: [
            ['100.5', '1'],
            ['101', '3'],
          ],
        },
      ],
      ['book', { t: 1, b: [], a: [] }],
      ['book', { t: 1, b: [['99.5', 2]], a: [] }],
      ['book', { t: 1, b: [['99.5']], a: [] }],
      ['book', { t: 1, b: [], a: {} }],
      ['book', { b: [], a: [] }],
    ] as const
    for (const [kind, row] of cases)
      expect(ROW_CHECKS[kind](row) === undefined, `${kind} ${JSON.stringify(row)}`).toBe(
        ROW_SCHEMAS[kind].safeParse(row).success,
      )
  })
})

describe('replay driver over a corrupt file', () => {
  it('keeps the error for the caller and holds the market instead of throwing into the mock', async () => {
    const dir = join(root, 'c')
    await fetchInto(dir)
    truncateSync(join(dir, chunkPath('trades', 'BTC-USDC', T1 - 1)), 30)
    const { createReplayDriver } = await import('../../src/research/replay/replayDriver.ts')
    const { createMarket } = await import('../../src/mock/perps/market/market.ts')
    const driver = createReplayDriver({
      store: DatasetStore.open(dir),
      symbols: ['BTC-USDC'],
      from: T0,
      to: T1,
      model: { ...DEFAULT_FILL_MODEL, tier: 'trades' },
    })
    const m = createMarket(specs[0] as (typeof specs)[number], 1, 60)
    let last = 0n
    for (let t = T0 + 1_000; t <= T1; t += 1_000) last = driver.step(m, t, 1_000).markTicks
    expect(driver.failure).toBeInstanceOf(CorruptChunkError)
    expect(driver.failure?.message).toContain(chunkPath('trades', 'BTC-USDC', T1 - 1))
    expect(last).toBeGreaterThan(0n)
  })
})
