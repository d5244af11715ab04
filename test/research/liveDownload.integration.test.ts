/**
 * `perpbot download --live` over real loopback HTTP: the command exactly as a trader runs it, pointed
 * at the embedded mock's address instead of the venue's. Chunks land per hour and kind, a rerun
 * fetches nothing, an unknown instrument and a venue error mid-download exit 2 with what was saved
 * kept, and the rerun after the error fetches only the rest.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { generateInstruments } from '../../src/mock/perps/instruments.ts'
import { type RunningMock, startMockServer } from '../../src/mock/server.ts'
import { createPerpsClient } from '../../src/perps/client/createPerpsClient.ts'
import { ChunkCursor } from '../../src/research/dataset/cursor.ts'
import { DatasetStore } from '../../src/research/dataset/store.ts'
import { perpbot } from '../cli/perpbotCli.ts'

const NOW = Date.UTC(2026, 0, 5, 12, 0)
const specs = generateInstruments(2, 1)
const root = mkdtempSync(join(tmpdir(), 'perpbot-live-dl-'))
let mock: RunningMock

beforeAll(async () => {
  mock = await startMockServer({
    port: 0,
    seed: 1,
    clock: 'stepped',
    startTime: NOW,
    exchange: { instruments: specs },
  })
})
afterAll(async () => {
  await mock.close()
  rmSync(root, { recursive: true, force: true })
})

const window = ['--from', '2026-01-05T09:30Z', '--to', '2026-01-05T12:00Z']

describe('perpbot download --live against the mock over loopback', () => {
  const dir = join(root, 'a')

  it('writes an hourly chunk per kind and instrument, the rows as the venue serves them', async () => {
    const r = await perpbot(['download', '--live', mock.url, '--out', dir, ...window])
    expect(r.err).not.toMatch(/failed/)
    expect(r.code).toBe(0)
    // Instruments 2, klines 6 pages × 5, trades and funding 6 pages × 10 each: all through the limiter.
    expect(r.out).toMatch(/downloaded 18 chunk\(s\).*and kept 0 already present.*\(request weight 152\)/)
    const store = DatasetStore.open(dir)
    expect(store.manifest.source).toBe(`live:${mock.url}:klines=1m`)
    expect(store.manifest.klineIntervalMs).toBe(60_000)
    expect(Object.keys(store.manifest.instruments).sort()).toEqual(specs.map((s) => s.symbol).sort())
    const symbol = specs[0]?.symbol ?? ''
    const hour = Date.UTC(2026, 0, 5, 10)
    const klines = [...rowsOf(new ChunkCursor(store, 'klines', symbol, hour, hour + 3_600_000))]
    expect(klines).toHaveLength(60)
    // The same candles the client reads directly.
    const client = createPerpsClient({ baseUrl: mock.url })
    const direct = await client.getKlines({
      instrumentId: specs[0]?.id ?? 0,
      interval: '1m',
      startTimestamp: hour,
      endTimestamp: hour + 3_599_999,
    })
    await client.close()
    expect(klines.map((k) => [k.t, k.o, k.h, k.l, k.c, k.v, k.n])).toEqual(direct.data)
    const trades = [...rowsOf(new ChunkCursor(store, 'trades', symbol, hour, hour + 3_600_000))]
    expect(trades.length).toBeGreaterThan(0)
    expect(trades.every((t, i) => i === 0 || t.t >= (trades[i - 1]?.t ?? 0))).toBe(true)
    expect(trades.every((t) => t.s === 'long' || t.s === 'short')).toBe(true)
    const funding = [...rowsOf(new ChunkCursor(store, 'funding', symbol, hour, hour + 3_600_000))]
    expect(funding.length).toBeGreaterThan(0)
  })

  it('fetches nothing on a second run', async () => {
    const r = await perpbot(['download', '--live', mock.url, '--out', dir, ...window])
    expect(r.code).toBe(0)
    expect(r.out).toMatch(/downloaded 0 chunk\(s\) \(0 rows.*and kept 18 already present/)
  })

  it('refuses an unknown instrument with exit 2', async () => {
    const r = await perpbot([
      'download',
      '--live',
      mock.url,
      '--out',
      join(root, 'b'),
      '--instruments',
      'NOPE-USD',
      ...window,
    ])
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/unknown instrument\(s\) NOPE-USD/)
  })

  it('keeps what was saved when the venue fails mid-download (exit 2), and the rerun fetches only the rest', async () => {
    const c = join(root, 'c')
    mock.setFaults({ rules: [{ match: { endpoint: 'getFundingHistory' }, error500: 1 }] })
    const failed = await perpbot(['download', '--live', mock.url, '--out', c, ...window])
    mock.setFaults('none')
    expect(failed.code).toBe(2)
    expect(failed.err).toMatch(/failed while reading funding of .* from 2026-01-05T09:30:00\.000Z/)
    expect(failed.err).toMatch(/2 chunk\(s\) saved this run stay in .*run the same command again/)
    expect(Object.keys(DatasetStore.open(c).manifest.chunks)).toHaveLength(2)
    const again = await perpbot(['download', '--live', mock.url, '--out', c, ...window])
    expect(again.code).toBe(0)
    expect(again.out).toMatch(/downloaded 16 chunk\(s\).*and kept 2 already present/)
  })

  it('says what is wrong with the flags', async () => {
    const r = await perpbot(['download', '--live', 'venue', '--out', join(root, 'd')])
    expect(r.code).toBe(2)
    expect(r.err).toMatch(/--live must be the venue's http\(s\) address/)
    const i = await perpbot(['download', '--live', mock.url, '--interval', '3m', '--out', join(root, 'd')])
    expect(i.code).toBe(2)
    expect(i.err).toMatch(/--interval must be one of 1s, 1m/)
  })
})

function* rowsOf<K extends 'klines' | 'trades' | 'funding'>(c: ChunkCursor<K>) {
  for (
    let r = c.takeUntil(Number.MAX_SAFE_INTEGER);
    r !== undefined;
    r = c.takeUntil(Number.MAX_SAFE_INTEGER)
  )
    yield r
}
