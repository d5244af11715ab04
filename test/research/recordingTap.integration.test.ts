/**
 * `run --record` over real loopback: the recording tap on the bot's own public sockets
 * (research/record/recordingTap.ts) against an accelerated mock. The dataset gets what the bot
 * receives (tickers, best bid/offer) plus trades and books of the traded instruments, stamped on the
 * bot's clock; the tap's own channels never reach the bot's parsing (no unrouted book or trades
 * push), and frames that arrive while the recorder process starts are kept.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import type { StreamsHealth } from '../../src/bot/inputs/streams/botStreams.ts'
import { generateInstruments } from '../../src/mock/perps/instruments.ts'
import { ChunkCursor } from '../../src/research/dataset/cursor.ts'
import type { DataKind, DatasetInstrument } from '../../src/research/dataset/format.ts'
import { DatasetStore } from '../../src/research/dataset/store.ts'
import { instrumentOfSpec } from '../../src/research/download/mockSource.ts'
import { recordedChannels, startRecordingTap } from '../../src/research/record/recordingTap.ts'
import { startBotOnMock } from '../../src/sim/botOnMock.ts'
import { indexPegInstruments } from '../../src/sim/generatedInstruments.ts'

const root = mkdtempSync(join(tmpdir(), 'perpbot-rec-tap-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('recording through the bot’s own sockets (run --record)', { timeout: 120_000 }, () => {
  it('names tickers::all and each traded instrument’s bbo, trades and book', () => {
    expect(recordedChannels([3, 7])).toEqual([
      'tickers::all',
      'bbo::3',
      'trades::3',
      'book::3',
      'bbo::7',
      'trades::7',
      'book::7',
    ])
  })

  it('records the bot’s pushes plus trades and books, which skip the bot’s parsing', async () => {
    const specs = generateInstruments(3)
    const dir = join(root, 'run')
    // The instruments arrive after the bot starts (as the venue's list is read): frames are held meanwhile.
    let give: (list: DatasetInstrument[]) => void = () => undefined
    const instruments = new Promise<DatasetInstrument[]>((resolve) => {
      give = resolve
    })
    const tap = startRecordingTap({ dir, source: 'record:test', instruments, maxBytes: 1e8, flushMs: 500 })
    const run = await startBotOnMock({
      mock: {
        seed: 5,
        scenario: 'calm',
        clock: 'accelerated',
        speed: 20,
        catalogue: { eventCount: 20 },
        exchange: { instruments: specs },
      },
      overrides: { instruments: indexPegInstruments(specs) },
      logLevel: 'warn',
      streamTap: tap,
    })
    const started = run.mock.clock.now()
    try {
      // Frames reach the tap before its process is up; they are handed over once it is.
      await vi.waitFor(() => expect(tap.received).toBeGreaterThan(0), { timeout: 10_000 })
      expect(tap.frames).toBe(0)
      give(specs.map(instrumentOfSpec))
      await tap.ready
      // Two virtual minutes and more: the mock's minute prints on `trades::`.
      await vi.waitFor(() => expect(run.mock.clock.now() - started).toBeGreaterThan(130_000), {
        timeout: 60_000,
        interval: 100,
      })
      const health = run.bot.status().details?.stream as StreamsHealth | undefined
      expect(health).toBeDefined()
      // The tap's channels (trades, book) were never parsed or routed by the bot.
      expect(health?.unrouted.book ?? 0).toBe(0)
      expect(health?.unrouted.trades ?? 0).toBe(0)
      // 3 traded instruments: tickers::all + 3 bbo on the bot's socket, 6 tap channels beside them.
      const channels = health?.connections.filter((c) => !c.private).reduce((n, c) => n + c.channels, 0)
      expect(channels).toBe(1 + 3 + 6)
      const result = await tap.stop()
      expect(result?.rows).toBeGreaterThan(0)
      expect(tap.frames).toBeGreaterThan(0)
    } finally {
      await run.stop()
    }
    const store = DatasetStore.open(dir)
    const symbol = specs[0]?.symbol ?? ''
    const rows = (kind: DataKind): { t: number }[] => {
      const c = new ChunkCursor(store, kind, symbol, 0, Number.MAX_SAFE_INTEGER)
      const out: { t: number }[] = []
      for (
        let x = c.takeUntil(Number.MAX_SAFE_INTEGER);
        x !== undefined;
        x = c.takeUntil(Number.MAX_SAFE_INTEGER)
      )
        out.push(x)
      return out
    }
    // A push a virtual second on each channel (books at most one a second), over 130 virtual s.
    const tickers = rows('tickers')
    expect(tickers.length).toBeGreaterThanOrEqual(100)
    expect(rows('bbo').length).toBeGreaterThanOrEqual(100)
    expect(rows('book').length).toBeGreaterThanOrEqual(100)
    expect(rows('trades').length).toBeGreaterThanOrEqual(1)
    // Stamped on the bot's clock (the mock's virtual time), from before the recorder process was up.
    expect(tickers[0]?.t ?? 0).toBeLessThan(started + 30_000)
    expect(tickers[0]?.t ?? 0).toBeGreaterThanOrEqual(started - 60_000)
  })
})
