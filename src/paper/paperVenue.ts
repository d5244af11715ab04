/**
 * The paper venue: the mock's exchange core in this process, its market driven by the real venue's
 * public stream (liveFeed.ts → the replay's row driver with the documented queue-aware fill model)
 * instead of the invented price process, its instruments and fee tiers read from the venue's public
 * REST (publicVenue.ts), and one account, the paper account (paperAccount.ts), resumed from the
 * journal. The bot runs unchanged against it as `simulate` runs against its core (docs/architecture.md,
 * "Venue port": the paper adapter): its proxy-signed commands reach the book as typed values through
 * the in-process transport (no signature, no JSON), its stream inputs come from the core's publisher
 * as values (mock/stream/inProcessStreamHub.ts → engine/inProcessStream.ts), both handed over in
 * order by a delivery queue that empties itself on wall time (paperDeliveries.ts). No port is opened
 * and no socket joins the bot to its book. Orders rest in this local book and fill only from the
 * venue's prints and book; the venue receives public reads and subscriptions, never a signed request
 * (the bot's commands stop here).
 */
import type { Clock } from '../clock.ts'
import { openInProcessStream } from '../engine/inProcessStream.ts'
import { paperVenue } from '../engine/venueAdapters.ts'
import type { VenuePort } from '../engine/venuePort.ts'
import type { JournalDb } from '../journal/database.ts'
import type { Journal } from '../journal/journal.ts'
import type { MockRequest } from '../mock/mockHttp.ts'
import { createMockServerHandler, type MockServer } from '../mock/server.ts'
import { createInProcessStreamHub } from '../mock/stream/inProcessStreamHub.ts'
import { VirtualClock } from '../mock/virtualClock.ts'
import { DEFAULT_FILL_MODEL, type FillModelConfig } from '../research/replay/fillModel.ts'
import { createRowDriver } from '../research/replay/replayDriver.ts'
import type { Secrets, Settings } from '../settings/schema.ts'
import { createInProcessTransport } from '../sim/simulate/inProcessTransport.ts'
import { type LiveFeed, type LiveFeedHealth, startLiveFeed } from './liveFeed.ts'
import {
  applyPaperResume,
  journalPaperHistory,
  loadPaperResume,
  type PaperResume,
  paperAccountSeed,
} from './paperAccount.ts'
import { createSelfDrainingDeliveries } from './paperDeliveries.ts'
import { readPublicVenue } from './publicVenue.ts'

/** The paper book's address where one is shown (status, logs): never dialled, nothing listens. */
export const PAPER_BOOK_LABEL = 'in-process:paper-book'

export interface PaperVenueOptions {
  /** The venue's public REST and WebSocket (`PERPS_URL`, `PERPS_WS_URL`). */
  restUrl: string
  wsUrl: string
  symbols: readonly string[]
  /** USD the paper account starts with (its first run). */
  startingCollateral: string
  /** The journal holding earlier paper runs (resumed from), if journaling. */
  journalDb?: JournalDb | undefined
  /** The paper clock: wall time (default), or a test's virtual clock shared with the stand-in venue. */
  clock?: VirtualClock | undefined
  /** Runs the public sockets' heartbeat and reconnects. Default wall time. */
  streamClock?: Clock | undefined
  /** Fill model (tier `trades`). Default: the replay's defaults (all of a print, no latency). */
  model?: Omit<FillModelConfig, 'tier'> | undefined
  /** How long the first tickers may take. Default 20 s. */
  readyTimeoutMs?: number | undefined
  /**
   * Told when the venue's public stream goes silent past `silentAfterMs` (prices held, nothing fills)
   * and when it comes back: the paper book's own stream stays fresh, so the bot cannot see it.
   */
  onFeedSilence?: ((silent: boolean, health: LiveFeedHealth) => void) | undefined
  /** Default 15 s. */
  silentAfterMs?: number | undefined
}

/** What crossed between the bot and its book, by kind (counted at the book). */
export interface PaperTraffic {
  /** Reads (GET): JSON text, parsed by the client's schemas as off the wire. */
  reads: number
  /** Commands that reached the book as typed values (no signature, no JSON). */
  typedCommands: number
  /** Commands that reached it signed, as JSON: none while the bot speaks typed commands. */
  signedCommands: number
}

export interface PaperVenue {
  /** The local book in this process: the exchange core behind the mock's request limiter. */
  readonly book: MockServer
  /** The book's clock (wall time, or the test's). */
  readonly clock: VirtualClock
  readonly resumed: PaperResume
  readonly feeCategory: string
  feed(): LiveFeedHealth & { modelFills: number }
  traffic(): PaperTraffic
  /**
   * The venue port of a bot trading this book (engine/venueAdapters.ts `paperVenue`): its commands
   * and reads through an in-process transport with the bot's request deadline and body cap, its
   * stream from the book's publisher; the catalogue the real one at `catalogueUrl`.
   */
  port(o: { settings: Pick<Settings, 'perps'>; secrets: Secrets; catalogueUrl: string }): VenuePort
  /** Stops the book and the feed; with the journal, first journals the book's whole fill and funding history. */
  close(journal?: Pick<Journal, 'fill' | 'funding' | 'saveState'> | undefined): Promise<void>
}

/**
 * Local book steps. A venue ticker is taken at the step boundary after it arrived and pushed on to the
 * bot at once (not at the next push tick), so the paper bot sees a price at most a step after a bot
 * on the venue would.
 */
const PAPER_STEP_MS = 100
/** The local book's own push tick (portfolio, unchanged tickers). */
const PAPER_PUSH_MS = 250

/**
 * @throws {@link PaperFeedError} when the venue's public REST or stream cannot be read.
 */
export async function startPaperVenue(o: PaperVenueOptions): Promise<PaperVenue> {
  const clock = o.clock ?? new VirtualClock({ mode: 'real' })
  const venue = await readPublicVenue({ url: o.restUrl, symbols: o.symbols, clock })
  const resumed = o.journalDb
    ? await loadPaperResume(o.journalDb, venue.specs, o.startingCollateral)
    : await Promise.resolve(emptyResume(o.startingCollateral))
  const feed: LiveFeed = startLiveFeed({
    url: o.wsUrl,
    instruments: venue.specs.map((s) => ({
      id: s.id,
      symbol: s.symbol,
      priceDecimals: s.priceDecimals,
      quantityDecimals: s.quantityDecimals,
      fundingIntervalMs: venue.fundingIntervalMs.get(s.id) ?? 3_600_000,
    })),
    clock,
    streamClock: o.streamClock ?? new VirtualClock({ mode: 'real' }),
    readyTimeoutMs: o.readyTimeoutMs,
  })
  try {
    await feed.ready
  } catch (e) {
    await feed.close()
    throw e
  }
  const driver = createRowDriver({
    sources: feed.sources,
    model: { ...DEFAULT_FILL_MODEL, ...o.model, tier: 'trades' },
    // No klines: prices come from tickers, fills from prints.
    klineIntervalMs: 60_000,
    from: clock.now(),
    // A quiet instrument is not a gap in a live feed.
    gapMs: Number.POSITIVE_INFINITY,
  })
  let book: MockServer
  try {
    book = createMockServerHandler({
      clock,
      scenario: 'calm',
      exchange: {
        instruments: venue.specs,
        feeTiers: venue.feeTiers,
        marketDriver: driver,
        historyMinutes: 0,
        stepMs: PAPER_STEP_MS,
        accounts: [paperAccountSeed(resumed.collateral, clock.now())],
      },
    })
  } catch (e) {
    await feed.close()
    throw e
  }
  applyPaperResume(book.exchange, resumed)
  const deliveries = createSelfDrainingDeliveries()
  const hub = createInProcessStreamHub({
    exchange: book.exchange,
    clock,
    serverClock: book.serverClock,
    pushIntervalMs: PAPER_PUSH_MS,
    deliver: (handOver) => deliveries.push(handOver),
  })
  const traffic: PaperTraffic = { reads: 0, typedCommands: 0, signedCommands: 0 }
  const count = (req: MockRequest): void => {
    if (req.method === 'GET') traffic.reads += 1
    else if (req.vouched !== undefined) traffic.typedCommands += 1
    else traffic.signedCommands += 1
  }
  // A moved venue price reaches the bot at the next step boundary, not the next push tick.
  const moved = new Set<number>()
  let due: unknown
  const running = book
  feed.onTicker((iid) => {
    moved.add(iid)
    if (due !== undefined) return
    const now = clock.now()
    due = clock.setTimeout(
      () => {
        due = undefined
        running.exchange.sync()
        hub.publishNow([...moved])
        moved.clear()
      },
      PAPER_STEP_MS - (now % PAPER_STEP_MS) + 1,
    )
  })
  // Checked on wall time: a silent socket is silent whatever the book's clock does.
  const wall = o.streamClock ?? new VirtualClock({ mode: 'real' })
  const silentAfter = o.silentAfterMs ?? 15_000
  let silent = false
  let lastSeen = { pushes: 0, at: wall.now() }
  const watch = setInterval(() => {
    const h = feed.health()
    if (h.pushes !== lastSeen.pushes) lastSeen = { pushes: h.pushes, at: wall.now() }
    const now = wall.now() - lastSeen.at > silentAfter
    if (now !== silent) {
      silent = now
      o.onFeedSilence?.(silent, h)
    }
  }, 1_000)
  watch.unref()
  return {
    book,
    clock,
    resumed,
    feeCategory: venue.feeCategory,
    feed: () => ({ ...feed.health(), modelFills: driver.modelFills }),
    traffic: () => ({ ...traffic }),
    port: ({ settings, secrets, catalogueUrl }) =>
      paperVenue({
        perps: createInProcessTransport({
          handler: book.handler,
          clock,
          deadlineMs: settings.perps.requestTimeoutMs,
          maxBodyBytes: settings.perps.maxResponseBytes,
          origin: PAPER_BOOK_LABEL,
          deliveries,
          typedCommands: true,
          onExchange: count,
        }),
        streamSource: openInProcessStream(hub),
        streamUrl: PAPER_BOOK_LABEL,
        catalogueUrl,
        clock,
        secrets,
      }),
    async close(journal) {
      clearInterval(watch)
      if (due !== undefined) clock.clearTimeout(due)
      if (journal !== undefined) journalPaperHistory(book.exchange, journal)
      hub.close()
      book.dispose()
      await feed.close()
    },
  }
}

function emptyResume(collateral: string): PaperResume {
  return {
    collateral,
    fills: 0,
    funding: 0,
    positions: [],
    lastTradeId: 0,
    lastOrderId: 0,
    lastFundingId: 0,
  }
}
