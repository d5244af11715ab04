/**
 * The mock side of the tick-to-trade bench, in whichever process runs the mock: moves one
 * instrument's index (then pushes at once, as the venue pushes on change), notes command arrivals,
 * and matches the first order change made while a command is handled to the move of its instrument.
 * Start (the move) and end (the command's arrival) are both taken here, on this process's clock.
 */
import { performance } from 'node:perf_hooks'
import { mulDecimal } from '../src/decimal.ts'
import { requestWeight } from '../src/mock/requestLimiter.ts'
import type { MockServer } from '../src/mock/server.ts'
import type { MockStreamServer } from '../src/mock/stream/streamServer.ts'
import type { WireExchange } from '../src/sim/botOnMock.ts'

/** Paths whose reads are market data (the rest of the reads are account and orders). */
export const MARKET_DATA = ['/v1/info/index', '/v1/info/tickers', '/v1/info/statistics']

/**
 * The mock's open-order cap for `n` instruments: the venue's default tier caps an account at 1,000
 * open orders, and 1,000 instruments quoting both sides need 2,000; at the cap half of them retry
 * refused creates (429 `open_orders_limit`) and spend the request budget, so nothing is measured.
 * The bench raises the cap (a higher tier) to measure the path, not the cap.
 */
export function openOrderCap(n: number): number {
  return Math.max(1_000, 3 * n)
}

export interface ProbeTotals {
  /** Request weight spent on market-data reads so far. */
  marketWeight: number
  /** Wall ms each move's push tick took to publish (the mock's own work, inside the measured time). */
  publishMs: number[]
  /** The mock's clock (virtual ms). */
  now: number
}

export interface TickToTradeProbe {
  /** Moves the index of `asset` by 5 bps up or down and pushes the tick. */
  move(iid: number, asset: string, up: boolean): void
  onRequest(command: boolean): void
  onExchange(x: WireExchange): void
  /** Latencies measured so far (ms, move → arrival), taken and cleared. */
  take(): number[]
  /** Each measured move's instrument and wall time (ms since the epoch, `performance.timeOrigin` based), in `take`'s order, taken with it. */
  takeMoves(): { iid: number; at: number }[]
  totals(): ProbeTotals
}

export function createTickToTradeProbe(
  mock: MockServer,
  stream: MockStreamServer | undefined,
): TickToTradeProbe {
  const exchange = mock.exchange
  const pending = new Map<number, number>()
  /** Arrival times of the commands being handled (the mock verifies signatures asynchronously). */
  const inFlight: number[] = []
  let latencies: number[] = []
  let moves: { iid: number; at: number }[] = []
  let marketWeight = 0
  const publishMs: number[] = []
  // Only order changes made while a command is handled count (a move can also fill a resting quote);
  // with two commands in flight the earlier arrival is taken (the larger latency).
  exchange.onOrderChange((_owner, _oid, order) => {
    const arrival = inFlight[0]
    if (arrival === undefined) return
    const iid = order().iid
    const t0 = pending.get(iid)
    if (t0 === undefined) return
    pending.delete(iid)
    latencies.push(arrival - t0)
    moves.push({ iid, at: performance.timeOrigin + t0 })
  })
  return {
    move(iid, asset, up) {
      const price = exchange.index(asset).index_price
      pending.set(iid, performance.now())
      exchange.setIndexPrice(asset, mulDecimal(price, up ? '1.0005' : '0.9995'))
      const t = performance.now()
      stream?.publishNow([iid])
      publishMs.push(performance.now() - t)
    },
    onRequest(command) {
      if (command) inFlight.push(performance.now())
    },
    onExchange(x) {
      if (x.req.method === 'GET' && MARKET_DATA.some((p) => x.req.path.startsWith(p)))
        marketWeight += requestWeight(x.req)
      if (x.command) inFlight.shift()
    },
    take() {
      const out = latencies
      latencies = []
      return out
    },
    takeMoves() {
      const out = moves
      moves = []
      return out
    },
    totals: () => ({ marketWeight, now: mock.clock.now(), publishMs: publishMs.splice(0) }),
  }
}
