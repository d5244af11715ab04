/**
 * `perpbot simulate`'s driver: the real bot (`startBot`, the shipped dry-run configuration with the
 * chosen strategy on N generated instruments) against the real mock in one process, on a stepped
 * virtual clock driven as fast as the machine allows (steppedRun.ts). The bot reaches the mock through
 * the in-process transport; everything above it is the bot's own code path. A recorder follows the
 * run (recorder.ts); rendering is elsewhere (report.ts).
 */

import { resolveStrategies } from '../../bot/runtime/bootstrap.ts'
import type { RunningBot } from '../../bot/runtime/bot.ts'
import { startBot } from '../../bot/runtime/bot.ts'
import { InputValidationError } from '../../errors.ts'
import { createLogger, SecretBag } from '../../logging/logger.ts'
import type { MockHandler } from '../../mock/mockHttp.ts'
import { generateInstruments } from '../../mock/perps/instruments.ts'
import { buildMockInterfaces, composeMock } from '../../mock/server.ts'
import { VirtualClock } from '../../mock/virtualClock.ts'
import { seededRandom } from '../../random.ts'
import { loadSettings } from '../../settings/load.ts'
import { generatedInstrumentConfig } from '../generatedInstruments.ts'
import { createDeliveryQueue, createInProcessTransport } from './inProcessTransport.ts'
import type { SimRecord } from './model.ts'
import { createRecorder } from './recorder.ts'
import { runStepped, type SettleHooks, settle } from './steppedRun.ts'
import { installZeroDelayTimers } from './zeroDelayTimers.ts'

/** Virtual start of every run (fixed, so the same flags give the same report). */
export const SIM_START_MS = Date.UTC(2026, 0, 5, 0, 0, 0)
/** Virtual time allowed for the bot to start and to stop. */
const START_STOP_BUDGET_MS = 10 * 60_000

export interface SimulateOptions {
  strategy: string
  instruments: number
  hours: number
  scenario: string
  seed: number
  configDir: string
  perpbotVersion: string
  /** Dotted config overrides on top of the shipped dry-run configuration (`--set`). */
  overrides?: Readonly<Record<string, unknown>> | undefined
  /** After each step: virtual ms done so far and the run's total. */
  onProgress?: ((doneMs: number, totalMs: number) => void) | undefined
  signal?: AbortSignal | undefined
  /** Sees every request the bot made and the size of the answer. */
  onAnswer?: ((method: string, path: string, status: number, bytes: number) => void) | undefined
}

export interface SimulationResult {
  record: SimRecord
  /** Clock steps (timer jumps) the run took. */
  steps: number
}

/** Drives the clock until `p` settles (or `budgetMs` of virtual time passed). */
async function driveUntil<T>(
  clock: VirtualClock,
  hooks: SettleHooks,
  p: Promise<T>,
  budgetMs: number,
  what: string,
): Promise<T> {
  let done = false
  p.then(
    () => {
      done = true
    },
    () => {
      done = true
    },
  )
  const limit = clock.now() + budgetMs
  await settle(hooks)
  while (!done && clock.now() < limit) {
    const next = clock.nextDue()
    clock.set(next === undefined || next > limit ? limit : Math.max(next, clock.now()))
    await settle(hooks)
  }
  if (!done)
    throw new InputValidationError(`${what} did not finish within ${budgetMs / 60_000} virtual minutes`)
  return p
}

export async function runSimulation(o: SimulateOptions): Promise<SimulationResult> {
  const specs = generateInstruments(o.instruments, o.seed)
  const { settings } = loadSettings({
    configDir: o.configDir,
    mode: 'dry-run',
    overrides: {
      'ops.port': 0,
      'logging.level': 'warn',
      // The in-process transport carries requests only: the bot's inputs come from its polls.
      'streams.enabled': false,
      instruments: generatedInstrumentConfig(specs, o.strategy),
      ...o.overrides,
    },
    env: {},
  })
  const strategies = await resolveStrategies(settings)
  const clock = new VirtualClock({ mode: 'stepped', startMs: SIM_START_MS })
  // The real mock, with a count of the requests inside its exchange or catalogue (past the fault
  // injector): those answer without virtual time moving, so the driver waits for them.
  let inside = 0
  const counted =
    (h: MockHandler): MockHandler =>
    async (req) => {
      inside += 1
      try {
        return await h(req)
      } finally {
        inside -= 1
      }
    }
  const mock = composeMock(
    {
      seed: o.seed,
      scenario: o.scenario,
      clock,
      // Fault latency and holds on the virtual clock too: nothing in the run waits on wall time.
      faultDelayClock: clock,
      catalogue: { eventCount: 120 },
      exchange: { instruments: specs },
    },
    (ctx) => {
      const parts = buildMockInterfaces(ctx)
      return {
        ...parts,
        perpsHandler: counted(parts.perpsHandler),
        catalogueHandler: counted(parts.catalogueHandler),
      }
    },
  )
  const totalMs = Math.round(o.hours * 3_600_000)
  // About 1,000 points over the run before any thinning; never finer than a second.
  const recorder = createRecorder({
    exchange: mock.exchange,
    meta: {
      strategy: o.strategy,
      scenario: o.scenario,
      seed: o.seed,
      hours: o.hours,
      startMs: SIM_START_MS,
      perpbotVersion: o.perpbotVersion,
    },
    stepMs: Math.max(1_000, Math.round(totalMs / 1_000)),
  })
  const deliveries = createDeliveryQueue()
  const transport = (maxBodyBytes: number) =>
    createInProcessTransport({
      deliveries,
      handler: mock.handler,
      clock,
      deadlineMs: settings.perps.requestTimeoutMs,
      maxBodyBytes,
      onAnswer: (req, status, bytes) => o.onAnswer?.(req.method, req.path, status, bytes),
    })
  const perpsTransport = transport(settings.perps.maxResponseBytes)
  const catalogueTransport = transport(settings.catalogue.maxResponseBytes)
  const hooks: SettleHooks = { busy: () => inside > 0, deliver: () => deliveries.deliverOne() }
  const secrets = new SecretBag()
  const logger = createLogger({
    level: settings.logging.level,
    pretty: 'never',
    secrets,
    destination: { write: () => undefined },
  })
  let bot: RunningBot | undefined
  const restoreTimers = installZeroDelayTimers()
  try {
    bot = await driveUntil(
      clock,
      hooks,
      startBot({
        settings,
        secrets: {},
        logger,
        secretBag: secrets,
        strategies,
        clock,
        random: seededRandom((o.seed ^ 0x51b07) >>> 0),
        perpsUrl: perpsTransport.origin,
        catalogueUrl: perpsTransport.origin,
        selfProvision: true,
        ops: false,
        alertSinks: [{ send: (a) => recorder.alert(a) }],
        transports: { perps: perpsTransport, catalogue: catalogueTransport },
      }),
      START_STOP_BUDGET_MS,
      'the bot start',
    )
    const running = bot
    const owner = mock.exchange.accountOf(running.proxyAddress)?.owner
    if (owner !== undefined) recorder.follow(owner)
    const startedAt = clock.now()
    const endMs = startedAt + totalMs
    const steps = await runStepped({
      clock,
      endMs,
      signal: o.signal,
      ...hooks,
      onStep: (now) => {
        recorder.sample(now, () => running.status())
        o.onProgress?.(now - startedAt, totalMs)
      },
    })
    const record = recorder.finish(clock.now(), running.status())
    await driveUntil(clock, hooks, running.stop('simulation over'), START_STOP_BUDGET_MS, 'the bot stop')
    bot = undefined
    return { record, steps }
  } finally {
    if (bot)
      await driveUntil(
        clock,
        hooks,
        bot.stop('simulation failed'),
        START_STOP_BUDGET_MS,
        'the bot stop',
      ).catch(() => undefined)
    restoreTimers()
    recorder.dispose()
    mock.dispose()
    clock.dispose()
  }
}
