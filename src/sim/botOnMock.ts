/**
 * The real bot against the real mock over loopback HTTP (127.0.0.1), on the mock's virtual clock: the
 * mock's handler behind a loopback server, the shipped dry-run configuration with overrides, and the
 * same `startEngine` as `perpbot run`. Observers see every exchange on the wire and every log line, so
 * the integration tests can record them and the soak can count them in bounded memory.
 */

import type { Alert } from '../alerts/alert.ts'
import type { ConfigSource } from '../bot/control/botControl.ts'
import { deadManOnClockRate } from '../bot/orders/deadManSwitch.ts'
import type { RunningBot } from '../bot/startBot.ts'
import { resolveStrategies } from '../bot/startup/resolveConfig.ts'
import type { StopReport } from '../bot/startup/stopSequence.ts'
import type { Clock } from '../clock.ts'
import { startEngine } from '../engine/startEngine.ts'
import { httpVenue, loopbackMockVenue } from '../engine/venueAdapters.ts'
import type { VenuePort } from '../engine/venuePort.ts'
import type { FleetPart } from '../fleet/fleetPart.ts'
import { fieldOf } from '../guards.ts'
import type { Journal } from '../journal/journal.ts'
import { createLogger, SecretBag } from '../logging/logger.ts'
import { FAULT_HEADER } from '../mock/faults.ts'
import { type RunningMockServer, startMockHttpServer } from '../mock/httpServer.ts'
import type { MockRequest, MockResponse } from '../mock/mockHttp.ts'
import { createMockServerHandler, type MockServer, type MockServerOptions } from '../mock/server.ts'
import { createMockStreamServer, type MockStreamServer, STREAM_PATH } from '../mock/stream/streamServer.ts'
import { tickSlicesFor } from '../mock/stream/tickSlices.ts'
import type { StreamTap } from '../perps/stream/frameTap.ts'
import { seededRandom } from '../random.ts'
import { loadSettings } from '../settings/load.ts'
import { SCRUBBED_ENV_NAMES, SECRET_ENV_NAMES, type Secrets, type Settings } from '../settings/schema.ts'

/** Paths whose non-GET requests are commands (signed trade ops, proxy and referral). */
export const COMMAND_PATHS: readonly string[] = ['/v1/trade/', '/v1/account/proxy', '/v1/account/referral']

/** One request and the mock's answer, as they crossed the wire. */
export interface WireExchange {
  req: MockRequest
  res: MockResponse
  /** The fault injector's label when the mock injected this response. */
  fault: string | undefined
  /** A non-GET request to a command path. */
  command: boolean
}

export interface BotOnMockOptions {
  mock: MockServerOptions
  /** Reads the bot's public stream frames (`run --record`'s recording tap). */
  streamTap?: StreamTap | undefined
  /** Dotted config overrides on top of the shipped dry-run configuration. */
  overrides?: Record<string, unknown> | undefined
  /** pino level name. Default info. */
  logLevel?: string | undefined
  /** Called as a request arrives at the mock, before it is handled (latency benchmarks). */
  onRequest?: ((req: MockRequest) => void) | undefined
  onExchange?: ((x: WireExchange) => void) | undefined
  onLogLine?: ((line: string) => void) | undefined
  onAlert?: ((alert: Alert) => void) | undefined
  /** Seed of the bot's own randomness (salts, jitter). Default 11. */
  botSeed?: number | undefined
  /** Serve the ops server (and dashboard) on 127.0.0.1, a free port (`bot.opsUrl`). Default false. */
  ops?: boolean | undefined
  /** Serve the mock's WebSocket and let the bot use it (default true; false: every input polls). */
  streams?: boolean | undefined
  /** Environment the settings see (e.g. `ALERT_WEBHOOK_URL`). Default none. */
  env?: Record<string, string> | undefined
  /** Fleet mode: the account's lease already held (see src/fleet/fleetPart.ts). */
  fleet?: FleetPart | undefined
  /** A journal the bot writes to (the caller opens and closes it). Default none. */
  journal?: Journal | undefined
  /** What `perpbot reload` reads (tests). Default none: reload says it cannot. */
  configSource?: ConfigSource | undefined
}

export interface BotOnMock {
  mock: MockServer
  server: RunningMockServer
  /** The mock's WebSocket at `/v1/ws` on the server's port, unless `streams: false`. */
  stream: MockStreamServer | undefined
  bot: RunningBot
  secrets: SecretBag
  /** Stops the bot, then the mock. */
  stop(reason?: string): Promise<StopReport>
}

/** The mock's HTTP API and WebSocket on a loopback port, as `startBotOnMock` serves them. */
export interface LoopbackMock {
  mock: MockServer
  server: RunningMockServer
  stream: MockStreamServer | undefined
  /** `ws://127.0.0.1:{port}/v1/ws`, unless `streams: false`. */
  streamUrl: string | undefined
  close(): Promise<void>
}

export type LoopbackMockOptions = Pick<BotOnMockOptions, 'mock' | 'onRequest' | 'onExchange' | 'streams'>

/** Starts the mock alone (a benchmark runs it in its own process, as the venue is). */
export async function startLoopbackMock(o: LoopbackMockOptions): Promise<LoopbackMock> {
  const mock = createMockServerHandler(o.mock)
  const stream =
    o.streams === false
      ? undefined
      : createMockStreamServer({
          tickSlices: tickSlicesFor(mock.clock.info().mode, o.mock.streamTickSlices),
          exchange: mock.exchange,
          clock: mock.clock,
          serverClock: mock.serverClock,
          random: seededRandom((mock.seed ^ 0x057e_a11f) >>> 0),
          faults: () => mock.faults.config.stream,
          pushIntervalMs: o.mock.streamPushIntervalMs,
          tape: o.mock.streamTape,
        })
  const close = async (): Promise<void> => {
    await stream?.close()
    mock.faults.releaseAll()
    await server.close()
    mock.dispose()
  }
  let server: RunningMockServer
  try {
    server = await startMockHttpServer({
      onUpgrade: stream?.handleUpgrade,
      handler: async (req: MockRequest) => {
        o.onRequest?.(req)
        const res = await mock.handler(req)
        o.onExchange?.({
          req,
          res,
          fault: res.headers?.[FAULT_HEADER],
          command: req.method !== 'GET' && COMMAND_PATHS.some((p) => req.path.startsWith(p)),
        })
        return res
      },
    })
  } catch (e) {
    await stream?.close()
    mock.dispose()
    throw e
  }
  const streamUrl = stream && `ws://127.0.0.1:${server.port}${STREAM_PATH}`
  return { mock, server, stream, streamUrl, close }
}

export interface BotAgainstOptions
  extends Pick<
    BotOnMockOptions,
    | 'overrides'
    | 'logLevel'
    | 'onLogLine'
    | 'onAlert'
    | 'botSeed'
    | 'ops'
    | 'env'
    | 'fleet'
    | 'journal'
    | 'streamTap'
    | 'configSource'
  > {
  /** The mock's (or venue's) HTTP base URL, e.g. `http://127.0.0.1:{port}`. */
  perpsUrl: string
  streamUrl: string | undefined
  clock: Clock
  /** Virtual ms per wall ms of `clock` (the accelerated mock's speed): the dead-man timings scale by it. Default 1. */
  clockRate?: number | undefined
  /** Register throwaway keys on the mock (default); false: the keys in `env` (a paper book's account). */
  selfProvision?: boolean | undefined
  /** Settings mode (default dry-run; `paper` for a bot on the paper book). */
  mode?: 'dry-run' | 'paper' | undefined
  /**
   * The venue port, from the loaded settings and keys (the paper book's in-process port,
   * `PaperVenue.port`); the addresses above are then only labels. Default: by the addresses.
   */
  venue?: ((loaded: { settings: Settings; secrets: Secrets }) => VenuePort) | undefined
}

/** The shipped dry-run bot against a mock at `perpsUrl` (in this process or another). */
export async function startBotAgainst(
  o: BotAgainstOptions,
): Promise<{ bot: RunningBot; secrets: SecretBag }> {
  const secrets = new SecretBag()
  const logger = createLogger({
    level: o.logLevel ?? 'info',
    pretty: 'never',
    secrets,
    destination: { write: (line: string) => void o.onLogLine?.(line) },
  })
  const { settings, secrets: env } = loadSettings({
    configDir: 'config',
    mode: 'dry-run',
    overrides: { 'ops.port': 0, ...(o.mode === 'paper' ? { mode: 'paper' } : {}), ...o.overrides },
    env: o.env ?? {},
  })
  // As `perpbot run` does: the logger scrubs every secret from the environment.
  for (const k of SECRET_ENV_NAMES) secrets.register(env[k])
  for (const k of SCRUBBED_ENV_NAMES) secrets.register(o.env?.[k])
  const strategies = await resolveStrategies(settings)
  // The mock's own account (dry run), the paper book's local keys, or keys given in `env`.
  const where = { url: o.perpsUrl, streamUrl: o.streamUrl, clock: o.clock, secrets: env }
  const venue =
    o.venue?.({ settings, secrets: env }) ??
    (o.selfProvision !== false
      ? loopbackMockVenue(where)
      : httpVenue({ ...where, perpsUrl: o.perpsUrl, catalogueUrl: o.perpsUrl }))
  const bot = await startEngine({
    settings: deadManOnClockRate(settings, o.clockRate ?? 1),
    venue,
    logger,
    secretBag: secrets,
    strategies,
    random: seededRandom(o.botSeed ?? 11),
    ops: o.ops ?? false,
    alertSinks: o.onAlert ? [{ send: o.onAlert }] : [],
    fleet: o.fleet,
    journal: o.journal,
    streamTap: o.streamTap,
    configSource: o.configSource,
  })
  return { bot, secrets }
}

export async function startBotOnMock(o: BotOnMockOptions): Promise<BotOnMock> {
  const loop = await startLoopbackMock(o)
  const { mock, server, stream } = loop
  try {
    const { bot, secrets } = await startBotAgainst({
      ...o,
      perpsUrl: server.url,
      streamUrl: loop.streamUrl,
      clock: mock.clock,
      clockRate: mock.clock.info().rate,
    })
    return {
      mock,
      server,
      stream,
      bot,
      secrets,
      async stop(reason = 'run over') {
        const report = await bot.stop(reason)
        await loop.close()
        return report
      },
    }
  } catch (e) {
    await loop.close()
    throw e
  }
}

/** The error code of a 429 body (a single error or a one-item array), or ''. */
export function rateLimitCode(res: MockResponse): string {
  const body: unknown = res.body
  const code = fieldOf(Array.isArray(body) ? body[0] : body, 'error')
  return typeof code === 'string' ? code : ''
}
