/**
 * Recording: pushes become rows with their receive time, hours rotate into their own files, the disk
 * bound deletes the oldest closed hours, and the result reads back through the dataset reader.
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
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
  it('keeps tickers and bbo with their receive time, one file per hour, readable by the reader', async () => {
    const store = DatasetStore.openOrCreate(join(root, 'a'), 'record:test', 1_000)
    let listener: ((p: StreamPush) => void) | undefined
    let now = T0
    const rec = startRecording({
      listen: {
        client: {
          onPush: (l) => {
            listener = l
            return () => {
              listener = undefined
            }
          },
        },
        clock: { now: () => now },
      },
      store,
      instruments: [BTC],
      maxBytes: 1e9,
    })
    for (let t = T0 + 1_000; t < T0 + 2 * H; t += 60_000) {
      now = t
      listener?.(ticker(t, '100.0'))
      listener?.(bbo(t))
    }
    const r = await rec.stop()
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

  it('stays under the disk bound by deleting the oldest closed hours', async () => {
    const store = DatasetStore.openOrCreate(join(root, 'b'), 'record:test', 1_000)
    const w = createHourlyWriter(store, 3_000)
    for (let t = T0; t < T0 + 6 * H; t += 10_000)
      w.add('bbo', 'BTC-USDC', { t, bp: String(t % 997), bq: '1', ap: '2', aq: '1' })
    await w.flush()
    expect(w.bytes()).toBeLessThanOrEqual(3_000)
    expect(w.dropped).toBeGreaterThan(0)
    const left = Object.values(store.manifest.chunks).map((c) => c.from)
    // The newest (open) hour is always kept.
    expect(Math.max(...left)).toBe(T0 + 5 * H)
  })
})

/** Gzip members in a buffer (each starts with the magic 1f 8b 08 after the previous one ends). */
function members(buf: Buffer): number {
  let n = 0
  for (let i = 0; i + 2 < buf.length; i++) if (buf[i] === 0x1f && buf[i + 1] === 0x8b && buf[i + 2] === 8) n++
  return n
}

describe('recording book snapshots and trades', () => {
  it('keeps trades with their venue time and side, and at most one book a second cut to the depth', async () => {
    const store = DatasetStore.openOrCreate(join(root, 'c'), 'record:test', 1_000)
    let listener: ((p: StreamPush) => void) | undefined
    let now = T0
    const rec = startRecording({
      listen: {
        client: {
          onPush: (l) => {
            listener = l
            return () => undefined
          },
        },
        clock: { now: () => now },
      },
      store,
      instruments: [BTC],
      maxBytes: 1e9,
      bookDepth: 2,
    })
    const levels = (from: number, dir: number): [string, string][] =>
      [0, 1, 2, 3].map((i) => [`${from + dir * i}.0`, `${i + 1}`])
    // Ten books a second for three seconds: three kept.
    for (let t = T0; t < T0 + 3_000; t += 100) {
      now = t
      listener?.({
        kind: 'book',
        ch: 'book::1',
        iid: 1,
        ts: t,
        sq: 1,
        data: { b: levels(99, -1), a: levels(101, 1) },
      })
    }
    listener?.({
      kind: 'trades',
      ch: 'trades::1',
      iid: 1,
      ts: T0 + 3_000,
      sq: 1,
      data: [{ tid: 9, iid: 1, side: 'short', p: '99.0', qty: '0.5', ts: T0 + 2_990 }],
    })
    await rec.stop()
    const book = new ChunkCursor(DatasetStore.open(store.dir), 'book', 'BTC-USDC', T0, T0 + H)
    const rows = [
      book.takeUntil(T0 + H),
      book.takeUntil(T0 + H),
      book.takeUntil(T0 + H),
      book.takeUntil(T0 + H),
    ]
    expect(rows.map((r) => r?.t)).toEqual([T0, T0 + 1_000, T0 + 2_000, undefined])
    expect(rows[0]).toEqual({
      t: T0,
      b: [
        ['99.0', '1'],
        ['98.0', '2'],
      ],
      a: [
        ['101.0', '1'],
        ['102.0', '2'],
      ],
    })
    const trades = new ChunkCursor(DatasetStore.open(store.dir), 'trades', 'BTC-USDC', T0, T0 + H)
    expect(trades.peek()).toEqual({ t: T0 + 2_990, p: '99.0', q: '0.5', s: 'short' })
  })
})

describe('the hourly writer on disk', () => {
  it('appends a member per flush, reads past a cut append, and recompresses a closed hour whole', async () => {
    const store = DatasetStore.openOrCreate(join(root, 'd'), 'record:test', 1_000)
    const w = createHourlyWriter(store, 1e9)
    const path = chunkPath('bbo', 'BTC-USDC', T0)
    const file = join(store.dir, path)
    const row = (t: number) => ({ t, bp: '99.9', bq: String(t % 7), ap: '100.1', aq: '1' })
    for (let t = T0; t < T0 + 600_000; t += 1_000) w.add('bbo', 'BTC-USDC', row(t))
    await w.flush()
    for (let t = T0 + 600_000; t < T0 + 1_200_000; t += 1_000) w.add('bbo', 'BTC-USDC', row(t))
    await w.flush()
    expect(members(readFileSync(file))).toBe(2)
    expect(store.manifest.chunks[path]).toMatchObject({ rows: 1_200, from: T0, to: T0 + 1_199_001 })
    // A crash in the middle of an append: bytes past the manifest's count are not read ...
    appendFileSync(file, Buffer.from([0x1f, 0x8b, 8, 0, 0]))
    expect(DatasetStore.open(store.dir).readChunk(path, 'bbo')).toHaveLength(1_200)
    // ... and are cut before the next append.
    for (let t = T0 + 1_200_000; t < T0 + H; t += 1_000) w.add('bbo', 'BTC-USDC', row(t))
    await w.flush()
    expect(statSync(file).size).toBe(store.manifest.chunks[path]?.bytes)
    const before = statSync(file).size
    // The next hour closes this one: its members become one, smaller, with every row.
    w.add('bbo', 'BTC-USDC', row(T0 + H))
    await w.flush()
    const after = readFileSync(file)
    expect(members(after)).toBe(1)
    expect(after.length).toBeLessThan(before)
    expect(
      gunzipSync(after)
        .toString()
        .split('\n')
        .filter((l) => l !== ''),
    ).toHaveLength(3_600)
    expect(
      DatasetStore.open(store.dir)
        .readChunk(path, 'bbo')
        .map((r) => r.t),
    ).toEqual(Array.from({ length: 3_600 }, (_, i) => T0 + i * 1_000))
  })

  it("counts a previous run's hours against the bound", async () => {
    const dir = join(root, 'e')
    const first = createHourlyWriter(DatasetStore.openOrCreate(dir, 'record:test', 1_000), 1e9)
    for (let t = T0; t < T0 + 3 * H; t += 10_000)
      first.add('bbo', 'BTC-USDC', { t, bp: String(t % 997), bq: '1', ap: '2', aq: '1' })
    await first.flush()
    const store = DatasetStore.openOrCreate(dir, 'record:test', 1_000)
    const kept = first.bytes()
    // Restarted with a bound below what the folder holds: the oldest hours go, the new one stays.
    const second = createHourlyWriter(store, Math.floor(kept / 2))
    second.add('bbo', 'BTC-USDC', { t: T0 + 5 * H, bp: '1', bq: '1', ap: '2', aq: '1' })
    await second.flush()
    expect(second.bytes()).toBeLessThanOrEqual(Math.floor(kept / 2))
    expect(second.dropped).toBeGreaterThan(0)
    expect(Object.keys(store.manifest.chunks)).toContain(chunkPath('bbo', 'BTC-USDC', T0 + 5 * H))
    expect(Object.keys(store.manifest.chunks)).not.toContain(chunkPath('bbo', 'BTC-USDC', T0))
  })
})
