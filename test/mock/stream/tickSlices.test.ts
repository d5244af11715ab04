/**
 * A push tick written in slices (streamServer.ts `tickSlices`: the real clock's default, so commands
 * are read between slices): the tick's pushes arrive whole and in sequence, a change push made between
 * two slices goes out at once, and the rest of the tick does not follow it with the instrument's older
 * ticker. The turns between slices are the test's own, released by hand.
 */
import { WebSocket } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { mulDecimal } from '../../../src/decimal.ts'
import { type RunningMock, startMockServer } from '../../../src/mock/server.ts'
import { T0, until } from '../../perps/stream/streamHarness.ts'

interface Frame {
  ch?: string
  sq?: number
  id?: number
  data?: { iid?: number; idx?: string }
}

let mock: RunningMock
let ws: WebSocket
const frames: Frame[] = []
/** The turns the tick is waiting for, released by `release`. */
const turns: (() => void)[] = []
const release = (): void => turns.shift()?.()

/** Releases the tick's turns one by one (bounded) until `total` tickers have arrived. */
async function finishTick(total: number): Promise<void> {
  for (let k = 0; k < 100 && turns.length > 0; k++) {
    release()
    await until(() => turns.length > 0 || tickers().length >= total, 'a slice')
  }
  await until(() => tickers().length >= total, 'the whole tick')
}

beforeAll(async () => {
  mock = await startMockServer({
    clock: 'stepped',
    startTime: T0,
    seed: 7,
    catalogue: { eventCount: 2 },
    streamTickSlices: { pushes: 2, nextTurn: () => new Promise<void>((resolve) => turns.push(resolve)) },
  })
  ws = new WebSocket(mock.wsUrl)
  ws.addEventListener('message', (ev) => frames.push(JSON.parse(String(ev.data)) as Frame))
  await new Promise((resolve) => ws.addEventListener('open', resolve, { once: true }))
  ws.send(JSON.stringify({ id: 1, req: 'sub', chs: ['tickers::all'] }))
  await until(() => frames.some((f) => f.id === 1), 'sub ack')
})

afterAll(async () => {
  ws.close()
  await mock.close()
})

const tickers = (): Frame[] => frames.filter((f) => f.ch === 'tickers::all')

describe('a push tick in slices', () => {
  it('writes a slice, waits for its turn, and skips the older ticker of an instrument changed meanwhile', async () => {
    const instruments = mock.exchange.tickers(undefined).map((t) => t.instrument_id)
    expect(instruments.length).toBeGreaterThan(4)
    const moved = instruments[instruments.length - 1] as number
    const asset = mock.exchange.instruments().find((i) => i.instrument_id === moved)?.base_asset as string
    const before = tickers().length

    mock.clock.advance(1_000)
    await until(() => tickers().length === before + 2 && turns.length === 1, 'the first slice')
    expect(tickers().length).toBe(before + 2)

    // Between slices: the venue moves the last instrument and pushes the change at once.
    const old = mock.exchange.tickers(moved)[0]?.index_price
    mock.exchange.setIndexPrice(asset, mulDecimal(mock.exchange.index(asset).index_price, '1.01'))
    const price = mock.exchange.tickers(moved)[0]?.index_price
    expect(price).not.toBe(old)
    mock.stream?.publishNow([moved])
    await until(() => tickers().length === before + 3, 'the change push')
    expect(tickers().at(-1)?.data).toMatchObject({ iid: moved, idx: price })

    await finishTick(before + instruments.length)
    const tick = tickers().slice(before)
    // Every instrument once (the moved one by its change push only), sequence numbers without a gap.
    expect(tick.map((f) => f.data?.iid).sort()).toEqual([...instruments].sort())
    expect(tick.filter((f) => f.data?.iid === moved)).toHaveLength(1)
    const sq = tick.map((f) => f.sq as number)
    expect(sq).toEqual(sq.map((_, k) => (sq[0] as number) + k))
    expect(turns).toHaveLength(0)
  })

  it('ticks again on the next step once the sliced tick is done', async () => {
    const before = tickers().length
    mock.clock.advance(1_000)
    await until(() => tickers().length === before + 2 && turns.length === 1, 'the next tick')
    await finishTick(before + mock.exchange.tickers(undefined).length)
    expect(tickers().length).toBe(before + mock.exchange.tickers(undefined).length)
  })
})
