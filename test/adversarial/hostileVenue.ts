/**
 * The adversarial kit: a hostile venue on loopback (127.0.0.1) for the tests of issue 24. It is the
 * real mock (exchange, catalogue, WebSocket, its own fault injection) behind a chain of *tampers*:
 * middleware that can answer in the venue's place (a 429 with the Retry-After we choose, a lie about
 * the time) or hold and rewrite the mock's answer. The mock's fault config covers what a flaky venue
 * does by chance; tampers cover what an adversary does on purpose, switched on and off mid-run.
 *
 * `startBotOnHostileVenue` runs the shipped dry-run bot (the same `startBot` as `perpbot run`) against
 * it and records the wire (bounded), the log lines and the alerts.
 */
import type { Alert } from '../../src/alerts/alert.ts'
import type { RunningBot } from '../../src/bot/startBot.ts'
import type { StopReport } from '../../src/bot/startup/stopSequence.ts'
import type { Journal } from '../../src/journal/journal.ts'
import { FAULT_HEADER, type FaultConfig } from '../../src/mock/faults.ts'
import { type RunningMockServer, startMockHttpServer } from '../../src/mock/httpServer.ts'
import type { MockHandler, MockRequest, MockResponse } from '../../src/mock/mockHttp.ts'
import { createMockServerHandler, type MockServer, type MockServerOptions } from '../../src/mock/server.ts'
import {
  createMockStreamServer,
  type MockStreamServer,
  STREAM_PATH,
} from '../../src/mock/stream/streamServer.ts'
import { seededRandom } from '../../src/random.ts'
import { startBotAgainst } from '../../src/sim/botOnMock.ts'

/**
 * Middleware over the mock: answer `req` yourself, or call `next()` for the mock's answer (and hold,
 * rewrite or pass it on). Returning undefined passes the request on untouched.
 */
export type Tamper = (
  req: MockRequest,
  next: () => Promise<MockResponse>,
) => Promise<MockResponse | undefined> | MockResponse | undefined

/** One request as it crossed the wire, with the tamper or fault that shaped it. */
export interface HostileExchange {
  method: string
  path: string
  body: unknown
  status: number
  headers: Readonly<Record<string, string>>
  /** The mock's fault label, or `tamper:<name>` when a tamper answered or changed it. */
  fault: string | undefined
  /** Wall time the answer left. */
  at: number
}

/** Header a tamper sets on what it answered or changed (its name). */
export const TAMPER_HEADER = 'x-hostile-tamper'

export interface HostileVenue {
  mock: MockServer
  server: RunningMockServer
  stream: MockStreamServer | undefined
  readonly perpsUrl: string
  readonly streamUrl: string | undefined
  /** The last `maxExchanges` requests (oldest dropped first). */
  readonly exchanges: readonly HostileExchange[]
  /** Adds a named tamper at the end of the chain; the returned function removes it. */
  use(name: string, tamper: Tamper): () => void
  /** Removes every tamper. */
  calm(): void
  setFaults(config: FaultConfig | 'none'): void
  close(): Promise<void>
}

export interface HostileVenueOptions {
  mock: MockServerOptions
  /** Serve the WebSocket (default true). */
  streams?: boolean | undefined
  /** Exchanges kept (default 20,000): a flood must not grow the test's own memory without bound. */
  maxExchanges?: number | undefined
}

export async function startHostileVenue(o: HostileVenueOptions): Promise<HostileVenue> {
  const mock = createMockServerHandler(o.mock)
  const stream =
    o.streams === false
      ? undefined
      : createMockStreamServer({
          exchange: mock.exchange,
          clock: mock.clock,
          serverClock: mock.serverClock,
          random: seededRandom((mock.seed ^ 0x057e_a11f) >>> 0),
          faults: () => mock.faults.config.stream,
          pushIntervalMs: o.mock.streamPushIntervalMs,
        })
  const tampers: { name: string; tamper: Tamper }[] = []
  const exchanges: HostileExchange[] = []
  const max = o.maxExchanges ?? 20_000

  const through = (req: MockRequest, i: number, base: MockHandler): Promise<MockResponse> => {
    const t = tampers[i]
    if (t === undefined) return Promise.resolve(base(req))
    const next = (): Promise<MockResponse> => through(req, i + 1, base)
    return Promise.resolve(t.tamper(req, next)).then((res) =>
      res === undefined ? next() : res.headers?.[TAMPER_HEADER] !== undefined ? res : tagged(res, t.name),
    )
  }
  const handler = async (req: MockRequest): Promise<MockResponse> => {
    const res = await through(req, 0, mock.handler)
    const tamper = res.headers?.[TAMPER_HEADER]
    exchanges.push({
      method: req.method,
      path: req.path,
      body: req.body,
      status: res.status,
      headers: res.headers ?? {},
      fault: tamper !== undefined ? `tamper:${tamper}` : res.headers?.[FAULT_HEADER],
      at: Date.now(),
    })
    if (exchanges.length > max) exchanges.splice(0, exchanges.length - max)
    return res
  }
  let server: RunningMockServer
  try {
    server = await startMockHttpServer({ onUpgrade: stream?.handleUpgrade, handler })
  } catch (e) {
    await stream?.close()
    mock.dispose()
    throw e
  }
  return {
    mock,
    server,
    stream,
    perpsUrl: server.url,
    streamUrl: stream && `ws://127.0.0.1:${server.port}${STREAM_PATH}`,
    exchanges,
    use(name, tamper) {
      const entry = { name, tamper }
      tampers.push(entry)
      return () => {
        const i = tampers.indexOf(entry)
        if (i >= 0) tampers.splice(i, 1)
      }
    },
    calm() {
      tampers.length = 0
      mock.setFaults('none')
    },
    setFaults: (config) => mock.setFaults(config),
    async close() {
      tampers.length = 0
      await stream?.close()
      mock.faults.releaseAll()
      await server.close()
      mock.dispose()
    },
  }
}

/** The response, marked as shaped by tamper `name`, a copy. */
function tagged(res: MockResponse, name: string): MockResponse {
  return { ...res, headers: { ...res.headers, [TAMPER_HEADER]: name } }
}

export interface HostileRun {
  venue: HostileVenue
  bot: RunningBot
  logs: string[]
  alerts: Alert[]
  /** Stops the bot (as SIGTERM does), timed on the wall clock, then leaves the venue up for checks. */
  stopBot(reason?: string): Promise<{ report: StopReport; elapsedMs: number; from: number }>
  /** Stops the bot if still running, then the venue. Idempotent. */
  close(): Promise<void>
}

export interface HostileRunOptions extends HostileVenueOptions {
  /** Dotted config overrides on top of the shipped dry-run configuration. */
  overrides?: Record<string, unknown> | undefined
  logLevel?: string | undefined
  /** Tampers in place before the bot starts (a venue hostile from the first request). */
  tampers?: readonly { name: string; tamper: Tamper }[] | undefined
  ops?: boolean | undefined
  /** Called with each log line as it is written (besides recording it). */
  onLogLine?: ((line: string) => void) | undefined
  /** A journal the bot writes to (the caller opens it, and closes it after the stop as `perpbot run` does). */
  journal?: Journal | undefined
}

/** The shipped dry-run bot against a hostile venue; the venue is closed again if the start fails. */
export async function startBotOnHostileVenue(o: HostileRunOptions): Promise<HostileRun> {
  const venue = await startHostileVenue(o)
  for (const t of o.tampers ?? []) venue.use(t.name, t.tamper)
  const logs: string[] = []
  const alerts: Alert[] = []
  let bot: RunningBot
  try {
    ;({ bot } = await startBotAgainst({
      perpsUrl: venue.perpsUrl,
      streamUrl: venue.streamUrl,
      clock: venue.mock.clock,
      overrides: o.overrides,
      logLevel: o.logLevel ?? 'info',
      ops: o.ops,
      journal: o.journal,
      onLogLine: (line) => {
        logs.push(line)
        o.onLogLine?.(line)
      },
      onAlert: (a) => void alerts.push(a),
    }))
  } catch (e) {
    await venue.close()
    throw e
  }
  let stopping: Promise<StopReport> | undefined
  let closed = false
  const stopBot = async (reason = 'SIGTERM') => {
    const from = Date.now()
    stopping ??= bot.stop(reason)
    const report = await stopping
    return { report, elapsedMs: Date.now() - from, from }
  }
  return {
    venue,
    bot,
    logs,
    alerts,
    stopBot,
    async close() {
      if (closed) return
      closed = true
      await stopBot('test over').catch(() => undefined)
      await venue.close()
    },
  }
}
