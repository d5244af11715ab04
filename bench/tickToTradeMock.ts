/**
 * The tick-to-trade bench's mock in its own process (`--layout process`), so the bot under test has
 * its own core as it would against the venue. Steered by the parent over the IPC channel `fork`
 * opens (no HTTP control is added to the mock): `move`, `take` (latencies so far), `totals`, `stop`.
 * Serves 127.0.0.1 only, on a free port, and says `ready` with its URLs.
 *
 *   forked by bench/tickToTrade.bench.ts: tickToTradeMock.ts --instruments N --seed S
 */
import { PerformanceObserver, performance } from 'node:perf_hooks'
import { generateInstruments } from '../src/mock/perps/instruments.ts'
import { COMMAND_PATHS, startLoopbackMock } from '../src/sim/botOnMock.ts'
import { numberFlag } from './stats.ts'
import { createTickToTradeProbe, openOrderCap, type ProbeTotals } from './tickToTradeProbe.ts'

export type MockRequestMessage =
  | { type: 'move'; iid: number; asset: string; up: boolean }
  | { type: 'take' }
  | { type: 'totals' }
  | { type: 'stop' }

export type MockReplyMessage =
  | { type: 'ready'; url: string; streamUrl: string | undefined }
  | {
      type: 'latencies'
      latencies: number[]
      moves: { iid: number; at: number }[]
      /** The mock's own collections since the last take, [from, to] in wall ms since the epoch. */
      gcPauses: [number, number][]
    }
  | ({ type: 'totals' } & ProbeTotals)
  | { type: 'stopped' }

const send = (m: MockReplyMessage): void => void process.send?.(m)

if (process.send === undefined) throw new Error('tickToTradeMock.ts runs as a forked child of the bench')
const N = numberFlag('instruments', 100)
const SEED = numberFlag('seed', 3)
const STREAMS = numberFlag('streams', 1) === 1
const specs = generateInstruments(N)

// The venue's own collections: a command that arrives during one waits it out (kept bounded).
let gcPauses: [number, number][] = []
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    const from = performance.timeOrigin + e.startTime
    if (gcPauses.length < 100_000) gcPauses.push([from, from + e.duration])
  }
}).observe({ entryTypes: ['gc'] })

let probe: ReturnType<typeof createTickToTradeProbe> | undefined
const loop = await startLoopbackMock({
  mock: {
    seed: SEED,
    scenario: 'calm',
    clock: 'real',
    catalogue: { eventCount: 20 },
    exchange: { instruments: specs, accountOpenOrderLimit: numberFlag('cap', openOrderCap(N)) },
  },
  streams: STREAMS,
  onRequest: (req) =>
    probe?.onRequest(req.method !== 'GET' && COMMAND_PATHS.some((p) => req.path.startsWith(p))),
  onExchange: (x) => probe?.onExchange(x),
})
for (const s of specs) loop.mock.exchange.setRegime(s.baseAsset, 'frozen')
probe = createTickToTradeProbe(loop.mock, loop.stream)
const p = probe
let closing: Promise<void> | undefined
const close = (): Promise<void> => {
  closing ??= loop.close()
  return closing
}

process.on('message', (m: MockRequestMessage) => {
  switch (m.type) {
    case 'move':
      p.move(m.iid, m.asset, m.up)
      return
    case 'take':
      send({ type: 'latencies', latencies: p.take(), moves: p.takeMoves(), gcPauses })
      gcPauses = []
      return
    case 'totals':
      send({ type: 'totals', ...p.totals() })
      return
    case 'stop':
      void close().then(() => {
        send({ type: 'stopped' })
        process.disconnect()
      })
  }
})
// The parent gone (killed, crashed): no orphan server.
process.on('disconnect', () => void close().then(() => process.exit(0)))
send({ type: 'ready', url: loop.server.url, streamUrl: loop.streamUrl })
