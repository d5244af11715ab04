/**
 * Recording: pushes become rows with their receive time, hours rotate into their own files, the disk
 * bound deletes the oldest closed hours, and the result reads back through the dataset reader.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { StreamPush } from '../../src/perps/stream/schemas.ts'
import { ChunkCursor } from '../../src/research/dataset/cursor.ts'
import { chunkPath } from '../../src/research/dataset/format.ts'
import { DatasetStore } from '../../src/research/dataset/store.ts'
import { createHourlyWriter } from '../../src/research/record/hourlyWriter.ts'
import { startRecording } from '../../src/research/record/streamRecording.ts'

const root = mkdtempSync(join(tmpdir(), 'perpbot-rec-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
const H = 3_600_000
const T0 = Date.UTC(2026, 0, 5)
const BTC = { id: 1, symbol: 'BTC-USDC', baseAsset: 'BTC', priceDecimals: 1, quantityDecimals: 4, spec: {} }

const ticker = (t: number, mark: string): StreamPush => ({
  kind: 'tickers',
  ch: 'tickers::all',
  iid: undefined,
  ts: t - 5,
  sq: 1,
  data: { iid: 1, idx: mark, mark, last: mark, mid: mark, oi: '0', fr: '0.0000125', nxf: t + H },
})
const bbo = (t: number): StreamPush => ({
  kind: 'bbo',
  ch: 'bbo::1',
  iid: 1,
  ts: t,
  sq: 1,
  data: { iid: 1, bp: '99.9', bq: '2', ap: '100.1', aq: '3' },
})

describe('recording the public stream', () => {
  it('keeps tickers and bbo with their receive time, one file per hour, readable by the reader', () => {
    const store = DatasetStore.openOrCreate(join(root, 'a'), 'record:test', 1_000)
    let listener: ((p: StreamPush) => void) | undefined
    let now = T0
    const rec = startRecording({
      client: {
        onPush: (l) => {
          listener = l
          return () => {
            listener = undefined
          }
        },
      },
      store,
      clock: { now: () => now },
      instruments: [BTC],
      maxBytes: 1e9,
    })
    for (let t = T0 + 1_000; t < T0 + 2 * H; t += 60_000) {
      now = t
      listener?.(ticker(t, '100.0'))
      listener?.(bbo(t))
    }
    const r = rec.stop()
    expect(listener).toBeUndefined()
    expect(r.rows).toBe(240)
    expect(Object.keys(store.manifest.chunks).sort()).toEqual(
      [
        chunkPath('bbo', 'BTC-USDC', T0),
        chunkPath('bbo', 'BTC-USDC', T0 + H),
        chunkPath('tickers', 'BTC-USDC', T0),
        chunkPath('tickers', 'BTC-USDC', T0 + H),
      ].sort(),
    )
    const c = new ChunkCursor(DatasetStore.open(store.dir), 'tickers', 'BTC-USDC', T0, T0 + 2 * H)
    const first = c.peek()
    expect(first).toEqual({ t: T0 + 1_000, ts: T0 + 995, i: '100.0', m: '100.0', r: '0.0000125' })
  })

  it('stays under the disk bound by deleting the oldest closed hours', () => {
    const store = DatasetStore.openOrCreate(join(root, 'b'), 'record:test', 1_000)
    const w = createHourlyWriter(store, 3_000)
    for (let t = T0; t < T0 + 6 * H; t += 10_000)
      w.add('bbo', 'BTC-USDC', { t, bp: String(t % 997), bq: '1', ap: '2', aq: '1' })
    w.flush()
    expect(w.bytes()).toBeLessThanOrEqual(3_000)
    expect(w.dropped).toBeGreaterThan(0)
    const left = Object.values(store.manifest.chunks).map((c) => c.from)
    // The newest (open) hour is always kept.
    expect(Math.max(...left)).toBe(T0 + 5 * H)
  })
})
