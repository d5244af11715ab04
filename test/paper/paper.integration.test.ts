/**
 * `run --paper` against ground truth, over real loopback: the standalone mock acts as the live venue
 * (its public tape printing the market's flow every push tick, as a venue prints its trades); a live
 * bot trades it with its own keys, and beside it the paper venue (src/paper/) reads only the venue's
 * public REST and stream while a second bot, same strategy, trades the paper book with the paper
 * account's local keys. The paper bot's fill count and net PnL must land within docs/research.md's
 * ground-truth tolerance of the live bot's; the venue must count no signed or authenticated request
 * that is not the live bot's (the paper side sends none at all).
 * The paper bot reaches its book in process (typed commands, the book's pushes as values; no port,
 * no socket, no JSON): the second test counts its connections (none) and the book's signed commands
 * (none). Stepped clock shared by every party (test/helpers/loopbackStepper.ts): time jumps to the
 * next timer only once every request and frame on the loopback sockets has been read and no immediate
 * is pending (the paper book's delivery queue runs on immediates), so the run is counted in timer
 * steps, not wall seconds, and neither bot pays network latency in virtual time. 2 instruments,
 * index-peg at a 2 bps half-spread, 4 virtual minutes (live 206 fills, net 3.11; paper 201, 3.58;
 * over the former loopback hop 204, 3.69 and 198, 2.86). (On the accelerated clock, 4 minutes at 4×
 * took 60 wall s, and less time or more speed missed the PnL tolerance under load: the paper side's
 * loopback hops then cost it more virtual latency than the live bot paid.)
 */
import { subscribe, unsubscribe } from 'node:diagnostics_channel'
import type { Socket } from 'node:net'
import { describe, expect, it } from 'vitest'
import { AUTH_HEADER_PAIRS } from '../../src/mock/perps/handler.ts'
import { generateInstruments } from '../../src/mock/perps/instruments.ts'
import { PaperFeedError } from '../../src/paper/liveFeed.ts'
import { PAPER_KEYS, paperProxyAddress } from '../../src/paper/paperAccount.ts'
import { PAPER_BOOK_LABEL, startPaperVenue } from '../../src/paper/paperVenue.ts'
import { startBotAgainst, startLoopbackMock } from '../../src/sim/botOnMock.ts'
import { generatedInstrumentConfig } from '../../src/sim/generatedInstruments.ts'
import { loopbackStepper } from '../helpers/loopbackStepper.ts'

const MINUTES = Number(process.env.PAPER_GT_MINUTES ?? 4)
const T0 = Date.UTC(2026, 10, 2, 12)

function within(
  paper: { fills: number; netPnl: number },
  truth: { fills: number; netPnl: number; volume: number },
) {
  const fillTol = Math.max(2, 0.15 * truth.fills)
  const pnlTol = Math.max(0.25 * Math.abs(truth.netPnl), 1e-4 * truth.volume)
  return {
    fills: Math.abs(paper.fills - truth.fills) <= fillTol,
    pnl: Math.abs(paper.netPnl - truth.netPnl) <= pnlTol,
  }
}

describe('run --paper beside a live bot on the stand-in venue', { timeout: 400_000 }, () => {
  it('fills and net PnL within the ground-truth tolerance; the venue receives nothing signed from paper', async () => {
    const specs = generateInstruments(2)
    const authed: string[] = []
    const venue = await startLoopbackMock({
      mock: {
        seed: 3,
        scenario: 'calm',
        clock: 'stepped',
        startTime: T0,
        streamTape: 'tick',
        catalogue: { eventCount: 5 },
        exchange: { instruments: specs },
      },
      onExchange: (x) => {
        const h = x.req.headers
        const proxy = AUTH_HEADER_PAIRS.map((p) => h[p.proxy]).find((v) => v !== undefined)
        if (x.command || proxy !== undefined) authed.push(String(proxy ?? x.req.path).toLowerCase())
      },
    })
    const clock = venue.mock.clock
    const stepper = loopbackStepper(clock)
    const overrides = {
      instruments: generatedInstrumentConfig(specs, 'index-peg', { levels: 1, halfSpreadBps: 2 }),
    }
    const paper = await stepper.during(
      startPaperVenue({
        restUrl: venue.server.url,
        wsUrl: venue.streamUrl ?? '',
        symbols: specs.map((s) => s.symbol),
        startingCollateral: '100000',
        clock,
        streamClock: clock,
      }),
    )
    const live = await stepper.during(
      startBotAgainst({
        perpsUrl: venue.server.url,
        streamUrl: venue.streamUrl,
        clock,
        overrides,
        logLevel: 'warn',
      }),
    )
    const paperBot = await stepper.during(
      startBotAgainst({
        perpsUrl: PAPER_BOOK_LABEL,
        streamUrl: PAPER_BOOK_LABEL,
        venue: (loaded) => paper.port({ ...loaded, catalogueUrl: venue.server.url }),
        clock,
        overrides,
        logLevel: 'warn',
        mode: 'paper',
        selfProvision: false,
        env: { PERPS_PROXY_PRIVATE_KEY: PAPER_KEYS.proxyKey, PERPS_PROXY_SECRET: PAPER_KEYS.secret },
      }),
    )
    try {
      const steps = await stepper.runTo(clock.now() + MINUTES * 60_000)
      if (process.env.PERPBOT_GT_PRINT) console.log({ steps })
    } finally {
      await stepper.during(paperBot.bot.stop('test over'))
      await stepper.during(live.bot.stop('test over'))
      stepper.close()
    }
    const pnl = (b: typeof live) => {
      const p = b.bot.status().account.pnl
      return { fills: p?.fills ?? 0, netPnl: Number(p?.netPnl ?? 0), volume: Number(p?.volume ?? 0) }
    }
    const truth = pnl(live)
    const paperRun = pnl(paperBot)
    const feed = paper.feed()
    const traffic = paper.traffic()
    await paper.close()
    await venue.close()
    if (process.env.PERPBOT_GT_PRINT) console.log({ truth, paper: paperRun, feed })
    expect(truth.fills).toBeGreaterThan(5)
    expect(feed.pushes).toBeGreaterThan(100)
    expect(feed.modelFills).toBeGreaterThan(0)
    expect(within(paperRun, truth)).toEqual({ fills: true, pnl: true })
    // The paper bot's commands reached its book as typed values, in process: none signed.
    expect(traffic.typedCommands).toBeGreaterThan(truth.fills)
    expect(traffic.signedCommands).toBe(0)
    // Only the live bot authenticated or signed anything at the venue; the paper account never appears.
    expect(authed.length).toBeGreaterThan(0)
    expect(authed.filter((a) => a === paperProxyAddress().toLowerCase())).toEqual([])
    expect(new Set(authed.filter((a) => a.startsWith('0x'))).size).toBe(1)
  })

  it('paper alone: the venue counts zero signed or authenticated requests; its stream going silent is reported', async () => {
    const specs = generateInstruments(1)
    let signed = 0
    let reads = 0
    const venue = await startLoopbackMock({
      mock: {
        seed: 4,
        clock: 'stepped',
        startTime: T0,
        streamTape: 'tick',
        exchange: { instruments: specs },
      },
      onExchange: (x) => {
        reads++
        if (x.command || AUTH_HEADER_PAIRS.some((p) => x.req.headers[p.proxy] !== undefined)) signed++
      },
    })
    const clock = venue.mock.clock
    const stepper = loopbackStepper(clock)
    const silences: boolean[] = []
    const listening = (): number =>
      process.getActiveResourcesInfo().filter((r) => r === 'TCPServerWrap').length
    const serversBefore = listening()
    const paper = await stepper.during(
      startPaperVenue({
        restUrl: venue.server.url,
        wsUrl: venue.streamUrl ?? '',
        symbols: specs.map((s) => s.symbol),
        startingCollateral: '100000',
        clock,
        streamClock: clock,
        silentAfterMs: 2_000,
        onFeedSilence: (silent) => silences.push(silent),
      }),
    )
    // The paper book opens no port (a server of an earlier file in this fork may have closed meanwhile).
    expect(listening()).toBeLessThanOrEqual(serversBefore)
    // Every connection made from here on: the paper bot's to its book would be one of them.
    const connected: (number | undefined)[] = []
    const onSocket = (m: unknown): void => {
      const socket = (m as { socket: Socket }).socket
      socket.once('connect', () => connected.push(socket.remotePort))
    }
    subscribe('net.client.socket', onSocket)
    const bot = await stepper.during(
      startBotAgainst({
        perpsUrl: PAPER_BOOK_LABEL,
        streamUrl: PAPER_BOOK_LABEL,
        venue: (loaded) => paper.port({ ...loaded, catalogueUrl: venue.server.url }),
        clock,
        overrides: {
          instruments: generatedInstrumentConfig(specs, 'index-peg', { levels: 1, halfSpreadBps: 2 }),
        },
        ops: true,
        logLevel: 'warn',
        mode: 'paper',
        selfProvision: false,
        env: { PERPS_PROXY_PRIVATE_KEY: PAPER_KEYS.proxyKey, PERPS_PROXY_SECRET: PAPER_KEYS.secret },
      }),
    )
    try {
      await stepper.runTo(clock.now() + 90_000)
      unsubscribe('net.client.socket', onSocket)
      // The paper bot traded its local book (orders went there with the local keys) ...
      expect(paper.book.exchange.openOrders(PAPER_KEYS.owner).length).toBeGreaterThan(0)
      // ... in process: the paper bot opened no connection at all (its strategy reads no catalogue,
      // the one thing it would read over HTTP), its commands typed values (none signed), its stream
      // the book's publisher, fresh and counted.
      expect(connected).toEqual([])
      const traffic = paper.traffic()
      expect(traffic.typedCommands).toBeGreaterThan(0)
      expect(traffic.signedCommands).toBe(0)
      expect(traffic.reads).toBeGreaterThan(0)
      const details = bot.bot.status().details
      if (process.env.PERPBOT_GT_PRINT) console.log(JSON.stringify({ details, connected, traffic }))
      expect(details?.stream).toMatchObject({
        url: PAPER_BOOK_LABEL,
        state: 'open',
        connections: [{ reconnects: 0 }],
      })
      const fromStream = { source: 'stream', streamHealthy: true }
      expect(details?.inputs).toMatchObject({ index: fromStream, orders: fromStream, fills: fromStream })
      const stream = details?.stream as { connections: { pushes: number }[] } | undefined
      expect(stream?.connections[0]?.pushes).toBeGreaterThan(100)
      // The ops endpoints and the dashboard serve the paper bot as any other.
      const get = (path: string) => stepper.during(fetch(`${bot.bot.opsUrl}${path}`))
      expect((await get('/readyz')).status).toBe(200)
      const seen = (await (await get('/status')).json()) as { mode?: string }
      expect(seen.mode).toBe('paper')
      expect(await (await get('/metrics')).text()).toMatch(/perpbot_/)
      expect((await get('/')).status).toBe(200)
      // The venue's stream goes away: the paper side says so (its own book's stream stays fresh).
      expect(silences).toEqual([])
      await stepper.during(venue.stream?.close() ?? Promise.resolve())
      // The silence watch looks once a wall second (paperVenue.ts): virtual time runs on meanwhile,
      // bounded far beyond the 2 s it needs to call the stream silent.
      await stepper.until(() => silences.length > 0, 3_600_000)
      expect(silences).toEqual([true])
    } finally {
      await stepper.during(bot.bot.stop('test over'))
      stepper.close()
      await paper.close()
      await venue.close()
    }
    // ... and the venue saw its public reads only.
    expect(reads).toBeGreaterThanOrEqual(3)
    expect(signed).toBe(0)
  })

  it('an unreachable public feed is a clear error naming the address', async () => {
    const err = await startPaperVenue({
      restUrl: 'http://127.0.0.1:9',
      wsUrl: 'ws://127.0.0.1:9/v1/ws',
      symbols: ['BTC-USDC'],
      startingCollateral: '100000',
    }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(PaperFeedError)
    expect(String((err as Error).message)).toMatch(/public REST at http:\/\/127\.0\.0\.1:9 could not be read/)
  })
})
