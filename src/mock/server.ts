/**
 * The whole mock as one handler and one loopback server: the catalogue (`/events...`) and the perps
 * exchange (`/v1/...`) behind the per-client request limiter and fault injection, with the test
 * controls (`/__mock/...`, off by default) in front of everything.
 *
 *   controls → request limiter → faults → router (catalogue | perps | 404)
 *
 * The limiter sits before the faults as the venue's gateway sits before its backend: an injected 500
 * still cost its weight. The exchange sees the virtual clock shifted by the faults' `clockOffsetMs`.
 */
import { type Clock, OffsetClock, systemClock } from '../clock.ts'
import { InputValidationError } from '../errors.ts'
import { seededRandom } from '../random.ts'
import { createCatalogueHandler } from './catalogue/catalogueHandler.ts'
import { type CatalogueStore, createCatalogueStore } from './catalogue/catalogueStore.ts'
import { type MockControlTarget, withControls } from './controls.ts'
import {
  createFaultInjector,
  type FaultConfig,
  type FaultInjector,
  type FaultKind,
  type FaultPresetName,
  resolveFaultConfig,
} from './faults.ts'
import { startMockHttpServer } from './httpServer.ts'
import type { MockHandler } from './mockHttp.ts'
import {
  createPerpsExchange,
  createPerpsHandler,
  type PerpsExchange,
  type PerpsExchangeOptions,
  SCENARIO_NAMES,
} from './perps/index.ts'
import {
  createRequestLimiter,
  isCatalogueRoute,
  type RequestLimiter,
  withRequestLimit,
} from './requestLimiter.ts'
import type { StreamTape } from './stream/streamPublisher.ts'
import {
  createMockStreamServer,
  type MockStreamOptions,
  type MockStreamServer,
  STREAM_PATH,
} from './stream/streamServer.ts'
import { tickSlicesFor } from './stream/tickSlices.ts'
import { type ClockInfo, type ClockMode, VirtualClock } from './virtualClock.ts'

// ---------------------------------------------------------------------------------------------------
// Options and results
// ---------------------------------------------------------------------------------------------------

export interface MockServerOptions {
  /** Seeds the catalogue, the market and the fault rolls. Default 1. */
  seed?: number | undefined
  /** Exchange scenario. Default `calm`. */
  scenario?: string | undefined
  /** Clock mode, or a clock to share (e.g. with an in-process bot). Default `real`. */
  clock?: ClockMode | VirtualClock | undefined
  /** Speed-up of the `accelerated` clock. Default 10. */
  speed?: number | undefined
  /** Virtual start time (Unix ms) of `accelerated` and `stepped` clocks. Default: now. */
  startTime?: number | undefined
  /** Fault preset or config. Default `none`, or `flaky` under the `flaky` scenario. */
  faults?: FaultPresetName | FaultConfig | undefined
  /** Clock of fault latency and timeout holds. Default wall time (see faults.ts). */
  faultDelayClock?: Clock | undefined
  /** Serve `/__mock/*`. Default false. */
  controls?: boolean | undefined
  /** Request-weight limits; `false` turns the limiter off. Default: 1,000/min perps, catalogue unlimited. */
  rateLimits?: false | MockRateLimits | undefined
  catalogue?: MockCatalogueOptions | undefined
  /** Further exchange options (seeded accounts, instruments, budgets); clock, seed and scenario come from above. */
  exchange?: Omit<PerpsExchangeOptions, 'clock' | 'seed' | 'scenario'> | undefined
  /** Port on 127.0.0.1 for `startMockServer`; 0 (default) picks a free one. */
  port?: number | undefined
  /** Push tick of the WebSocket on the mock's clock. Default 1,000 ms. */
  streamPushIntervalMs?: number | undefined
  /** The market's flow on `trades::`: one print per closed minute (default) or per push tick. */
  streamTape?: StreamTape | undefined
  /** A push tick's market pushes per turn of the event loop (streamServer.ts). Default: sliced on the real clock only. */
  streamTickSlices?: MockStreamOptions['tickSlices'] | undefined
  /** The stream's wall time for its idle bound (tests); default `performance.now`. */
  streamWallNow?: (() => number) | undefined
}

export interface MockRateLimits {
  /** Perps request weight per client per minute. Default 1,000. */
  requestWeightPerMinute?: number | undefined
  /** Catalogue requests per client per minute. Default: not limited. */
  cataloguePerMinute?: number | undefined
  /**
   * Send the venue's per-signer `Poly-RateLimit-*` headers on signed commands' answers (the signer's
   * action bucket: `Remaining`, `Reset` a Unix time in seconds, `Tier`; perps/exchange.ts). Default off.
   */
  headers?: boolean | undefined
}

export interface MockCatalogueOptions {
  /** Number of generated events. */
  eventCount?: number | undefined
  /** Keyset pagination "not configured": `/events/keyset` answers 503. */
  keysetDisabled?: boolean | undefined
}

/** What `/__mock/state` reports. */
export interface MockState {
  seed: number
  scenario: string
  clock: ClockInfo & {
    /** What the exchange reports as now (virtual time plus the fault clock offset). */
    serverNow: number
    serverOffsetMs: number
  }
  faults: {
    /** The preset's name when the faults were set by name, else null. */
    preset: string | null
    config: FaultConfig
    /** Responses currently delayed or held. */
    pending: number
    counts: Readonly<Record<FaultKind, number>>
  }
  rateLimits: { requestWeightPerMinute: number; cataloguePerMinute: number | null } | false
  controls: boolean
}

/** What a builder returns: the two interfaces over the mock's (skewed) clock. */
export interface MockInterfaces<TExchange, TCatalogue> {
  exchange: TExchange
  catalogue: TCatalogue
  perpsHandler: MockHandler
  catalogueHandler: MockHandler
  /** @throws {@link InputValidationError} for an unknown scenario. */
  setScenario(name: string): void
  /** Switches the signed modifyOrders layout the exchange verifies (the `/__mock/modify-layout` control). */
  setModifyOrdersLayout?: ((layout: string) => void) | undefined
  /** Stops the interfaces' own work (timers), if any. */
  dispose?: (() => void) | undefined
}

export interface MockInterfaceContext {
  seed: number
  scenario: string
  /** The virtual clock shifted by the fault clock offset: what the server "believes" is now. */
  clock: Clock
  catalogue: MockCatalogueOptions
  exchange: Omit<PerpsExchangeOptions, 'clock' | 'seed' | 'scenario'>
}

export type MockInterfaceBuilder<TExchange, TCatalogue> = (
  ctx: MockInterfaceContext,
) => MockInterfaces<TExchange, TCatalogue>

/** An in-process mock: the composed handler and its parts. */
export interface MockInstance<TExchange, TCatalogue> {
  readonly handler: MockHandler
  readonly clock: VirtualClock
  /** The exchange's clock: `clock` plus the fault clock offset. */
  readonly serverClock: OffsetClock
  readonly exchange: TExchange
  readonly catalogue: TCatalogue
  readonly faults: FaultInjector
  readonly limiter: RequestLimiter | undefined
  readonly scenario: string
  readonly seed: number
  /** @throws {@link InputValidationError} for an unknown scenario. */
  setScenario(name: string): void
  /** @throws {@link InputValidationError} for an unknown preset or an invalid config. */
  setFaults(config: FaultPresetName | FaultConfig): void
  state(): MockState
  /** Releases held responses and stops every timer (the clock too, unless it was passed in). */
  dispose(): void
}

// ---------------------------------------------------------------------------------------------------
// Composition
// ---------------------------------------------------------------------------------------------------

const notFound: MockHandler = () => ({ status: 404, body: { status: 'err', error: 'not_found' } })

/** The scenario whose name also turns on the fault preset of the same name (unless faults are given). */
const FLAKY = 'flaky'

/**
 * Composes a mock from an interface builder (the real one is `createMockServerHandler`'s; tests can
 * pass fakes).
 * @throws {@link InputValidationError} for an unknown scenario or fault preset.
 */
export function composeMock<TExchange, TCatalogue>(
  options: MockServerOptions,
  build: MockInterfaceBuilder<TExchange, TCatalogue>,
): MockInstance<TExchange, TCatalogue> {
  const seed = options.seed ?? 1
  let scenario = options.scenario ?? 'calm'
  const ownsClock = !(options.clock instanceof VirtualClock)
  const clock =
    options.clock instanceof VirtualClock
      ? options.clock
      : new VirtualClock({ mode: options.clock ?? 'real', factor: options.speed, startMs: options.startTime })
  const serverClock = new OffsetClock(clock)

  // Faults given explicitly stay; otherwise they follow the scenario (flaky ↔ flaky preset).
  let faultsExplicit = options.faults !== undefined
  const impliedFaults = (s: string): FaultPresetName => (s === FLAKY ? 'flaky' : 'none')
  const initialFaults = options.faults ?? impliedFaults(scenario)
  let faultsPreset: string | undefined = typeof initialFaults === 'string' ? initialFaults : undefined
  const faults = createFaultInjector(resolveFaultConfig(initialFaults), {
    clock: options.faultDelayClock ?? systemClock,
    // A stream of its own, so faults do not shift the market's draws (and vice versa).
    random: seededRandom((seed ^ 0x5eed_fa17) >>> 0),
  })
  serverClock.setOffset(faults.config.clockOffsetMs ?? 0)

  const parts = build({
    seed,
    scenario,
    clock: serverClock,
    catalogue: options.catalogue ?? {},
    exchange: {
      transitAllowanceMs: transitAllowanceMs(clock.info().rate),
      signerRateLimitHeaders: options.rateLimits !== false && options.rateLimits?.headers === true,
      ...options.exchange,
    },
  })

  const router: MockHandler = (req) => {
    if (isCatalogueRoute(req.path)) return parts.catalogueHandler(req)
    if (req.path.startsWith('/v1/')) return parts.perpsHandler(req)
    return notFound(req)
  }
  const limits = options.rateLimits
  const limiter =
    limits === false
      ? undefined
      : createRequestLimiter({
          clock,
          capacityPerMinute: limits?.requestWeightPerMinute,
          catalogueCapacityPerMinute: limits?.cataloguePerMinute,
        })
  const faulty = faults.wrap(router)
  const limited = limiter === undefined ? faulty : withRequestLimit(faulty, limiter)

  // `config` is a preset name or an unvalidated object (from `/__mock/faults`); both are checked here.
  const applyFaults = (config: unknown): void => {
    const resolved = resolveFaultConfig(config)
    faults.setConfig(resolved)
    faultsPreset = typeof config === 'string' ? config : undefined
    serverClock.setOffset(resolved.clockOffsetMs ?? 0)
  }
  const setScenario = (name: string): void => {
    parts.setScenario(name)
    scenario = name
    if (!faultsExplicit) applyFaults(impliedFaults(name))
  }
  const setFaults = (config: unknown): void => {
    applyFaults(config)
    faultsExplicit = true
  }
  const state = (): MockState => ({
    seed,
    scenario,
    clock: { ...clock.info(), serverNow: serverClock.now(), serverOffsetMs: serverClock.offsetMs },
    faults: {
      preset: faultsPreset ?? null,
      config: faults.config,
      pending: faults.pending,
      counts: { ...faults.counts },
    },
    rateLimits:
      limiter === undefined
        ? false
        : {
            requestWeightPerMinute: limiter.capacityPerMinute,
            cataloguePerMinute: limiter.catalogueCapacityPerMinute ?? null,
          },
    controls: options.controls === true,
  })
  const target: MockControlTarget = {
    advanceClock: (ms) => clock.advance(ms),
    setClock: (time) => clock.set(time),
    setScenario,
    setFaults,
    setModifyOrdersLayout: parts.setModifyOrdersLayout,
    state,
  }

  return {
    handler: withControls(limited, { enabled: options.controls === true, target }),
    clock,
    serverClock,
    exchange: parts.exchange,
    catalogue: parts.catalogue,
    faults,
    limiter,
    seed,
    get scenario() {
      return scenario
    },
    setScenario,
    setFaults,
    state,
    dispose() {
      faults.releaseAll()
      parts.dispose?.()
      if (ownsClock) clock.dispose()
    },
  }
}

export interface RunningMockOf<TExchange, TCatalogue> extends MockInstance<TExchange, TCatalogue> {
  readonly url: string
  readonly port: number
  /** The WebSocket at `/v1/ws` (`ws://127.0.0.1:port/v1/ws`), when served. */
  readonly stream: MockStreamServer | undefined
  readonly wsUrl: string
  /** Stops listening, drops connections, releases held responses and stops the mock's timers. */
  close(): Promise<void>
}

/** Serves a composed mock on 127.0.0.1 (`port` 0 = any free port). */
export async function serveMock<TExchange, TCatalogue>(
  instance: MockInstance<TExchange, TCatalogue>,
  port = 0,
  stream?: MockStreamServer | undefined,
): Promise<RunningMockOf<TExchange, TCatalogue>> {
  let server: Awaited<ReturnType<typeof startMockHttpServer>>
  try {
    server = await startMockHttpServer({ handler: instance.handler, port, onUpgrade: stream?.handleUpgrade })
  } catch (e) {
    await stream?.close()
    instance.dispose()
    throw e
  }
  let closing: Promise<void> | undefined
  return {
    ...instance,
    // The spread copied the scenario getter's value; keep it live.
    get scenario() {
      return instance.scenario
    },
    url: server.url,
    port: server.port,
    stream,
    wsUrl: `ws://127.0.0.1:${server.port}${STREAM_PATH}`,
    close(): Promise<void> {
      closing ??= (async () => {
        await stream?.close()
        // Held responses first, and one macrotask for them to be written before sockets are closed.
        instance.faults.releaseAll()
        await new Promise<void>((resolve) => setImmediate(resolve))
        await server.close()
        instance.dispose()
      })()
      return closing
    },
  }
}

// ---------------------------------------------------------------------------------------------------
// The real mock
// ---------------------------------------------------------------------------------------------------

/** Scenario names the mock knows (the exchange's list). */
export const MOCK_SCENARIOS: readonly string[] = SCENARIO_NAMES

/** The in-process mock over the real catalogue and exchange. */
export type MockServer = MockInstance<PerpsExchange, CatalogueStore>
/** The mock served on 127.0.0.1. */
export type RunningMock = RunningMockOf<PerpsExchange, CatalogueStore>

/** Builds the catalogue store and the perps exchange with their handlers. */
export const buildMockInterfaces: MockInterfaceBuilder<PerpsExchange, CatalogueStore> = (ctx) => {
  // Checked first: the catalogue takes a moment to generate, no point building it for a typo.
  assertScenario(ctx.scenario, MOCK_SCENARIOS)
  const exchange = createPerpsExchange({
    ...ctx.exchange,
    clock: ctx.clock,
    seed: ctx.seed,
    scenario: ctx.scenario,
  })
  const catalogue = createCatalogueStore({ seed: ctx.seed, eventCount: ctx.catalogue.eventCount })
  return {
    exchange,
    catalogue,
    perpsHandler: createPerpsHandler(exchange),
    catalogueHandler: createCatalogueHandler(catalogue, {
      keysetEnabled: ctx.catalogue.keysetDisabled !== true,
    }),
    setScenario: (name) => exchange.setScenario(name),
    setModifyOrdersLayout: (layout) => exchange.setModifyOrdersLayout(layout),
  }
}

/**
 * The whole mock as one in-process handler (no sockets): catalogue, exchange, limiter, faults and
 * controls over one virtual clock.
 * @throws {@link InputValidationError} for an unknown scenario or fault preset.
 */
export function createMockServerHandler(options: MockServerOptions = {}): MockServer {
  return composeMock(options, buildMockInterfaces)
}

/**
 * Starts the mock on 127.0.0.1 (`options.port`, default 0 = any free port).
 * @throws {@link InputValidationError} for bad options; the listen error when the port is taken.
 */
export async function startMockServer(options: MockServerOptions = {}): Promise<RunningMock> {
  const instance = createMockServerHandler(options)
  const stream = createMockStreamServer({
    tickSlices: tickSlicesFor(instance.clock.info().mode, options.streamTickSlices),
    exchange: instance.exchange,
    clock: instance.clock,
    serverClock: instance.serverClock,
    // A stream of its own, so stream faults shift neither the market's nor the HTTP faults' draws.
    random: seededRandom((instance.seed ^ 0x057e_a11f) >>> 0),
    faults: () => instance.faults.config.stream,
    pushIntervalMs: options.streamPushIntervalMs,
    tape: options.streamTape,
    wallNow: options.streamWallNow,
  })
  return serveMock(instance, options.port ?? 0, stream)
}

/** Validates a scenario name against a list. */
export function assertScenario(name: string, known: readonly string[]): void {
  if (!known.includes(name))
    throw new InputValidationError(`unknown scenario '${name}' (known: ${known.join(', ')})`)
}

/** Wall ms a signed command may take from signing to receipt on a loaded machine. */
export const WALL_TRANSIT_MS = 500

/**
 * The exchange's transit allowance on a clock running `rate` times wall time: 0 at real time (the
 * venue's own rules), else the extra virtual ms that `WALL_TRANSIT_MS` of wall time becomes.
 */
export function transitAllowanceMs(rate: number): number {
  return rate > 1 ? Math.ceil((rate - 1) * WALL_TRANSIT_MS) : 0
}
