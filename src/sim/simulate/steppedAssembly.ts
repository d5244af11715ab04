/**
 * The real mock and the real bot in one process on a stepped virtual clock, for `perpbot simulate`
 * and the soak's stepped engine (bench/soak.ts): the mock with a count of the requests inside it, the
 * in-process transports with their delivery queue, zero-delay timers, and the drivers (`driveUntil`
 * for the bot's start and stop, `run` for the stepped clock; steppedRun.ts). The caller loads the
 * settings and starts the engine through `startEngine`, which hands it the in-process venue (the
 * exchange core behind these transports, on this clock, its account provisioned at start).
 */

import type { RunningBot } from '../../bot/startBot.ts'
import { openInProcessStream } from '../../engine/inProcessStream.ts'
import { type EngineOptions, startEngine } from '../../engine/startEngine.ts'
import { inProcessVenue } from '../../engine/venueAdapters.ts'
import { InputValidationError } from '../../errors.ts'
import type { HttpRequest, HttpTransport } from '../../http/transport.ts'
import { FAULT_HEADER } from '../../mock/faults.ts'
import type { MockHandler } from '../../mock/mockHttp.ts'
import type { PerpsExchangeOptions } from '../../mock/perps/index.ts'
import type { InstrumentSpec } from '../../mock/perps/instruments.ts'
import { DeferredSignerCheck } from '../../mock/perps/signatures/deferredSignerCheck.ts'
import { buildMockInterfaces, composeMock, type MockServer } from '../../mock/server.ts'
import { createInProcessStreamHub, type InProcessStreamHub } from '../../mock/stream/inProcessStreamHub.ts'
import { VirtualClock } from '../../mock/virtualClock.ts'
import { StreamPool } from '../../perps/stream/streamPool.ts'
import type { OpenStreamSource } from '../../perps/stream/streamSource.ts'
import type { Settings } from '../../settings/schema.ts'
import { COMMAND_PATHS, type WireExchange } from '../botOnMock.ts'
import {
  createDeliveryQueue,
  createInProcessTransport,
  type DeliveryQueue,
  type InProcessTransportOptions,
} from './inProcessTransport.ts'
import { runStepped, type SettleHooks, type SteppedRunOptions, settle } from './steppedRun.ts'
import { wireStreamOnQueue } from './wireStreamOnQueue.ts'
import { installZeroDelayTimers } from './zeroDelayTimers.ts'

/** The in-process stream's name where a stream address is shown (status, logs); never dialled. */
export const IN_PROCESS_STREAM_LABEL = 'in-process:exchange-core'
/** The socket protocol on the delivery queue (wireStreamOnQueue.ts): the address the pool is given, never dialled. */
export const WIRE_STREAM_LABEL = 'ws://127.0.0.1/v1/ws'

/** Virtual time allowed for the bot to start and to stop. */
export const START_STOP_BUDGET_MS = 10 * 60_000

export interface SteppedAssemblyOptions {
  seed: number
  scenario: string
  /** Virtual Unix ms the clock starts at. */
  startMs: number
  /** The exchange's instruments (default: the mock's own). */
  instruments?: readonly InstrumentSpec[] | undefined
  /**
   * The bot's settings: its request timeout is the in-process transport's deadline (on the virtual
   * clock), and its body caps are the transport's.
   */
  settings: Pick<Settings, 'perps' | 'catalogue'>
  /** Sees every request the bot made and the size of the answer. */
  onAnswer?: ((req: HttpRequest, status: number, bytes: number) => void) | undefined
  /** Sees every request with the mock's answer, as `botOnMock`'s `onExchange` does on the wire. */
  onExchange?: ((x: WireExchange) => void) | undefined
  /**
   * `deferred` (default): the mock answers a command at once and recovers its signer on a worker
   * thread; `inline`: it recovers before answering, as the mock server does (the benchmark's baseline).
   */
  signatures?: 'deferred' | 'inline' | undefined
  /**
   * `typed` (default): the proxy-signed commands reach the exchange core as typed values (stamped, not
   * signed; no JSON; perps/typedCommands.ts); `signed`: every command is signed and crosses as JSON
   * like on the wire (the equivalence test's and the benchmark's baseline).
   */
  commands?: 'typed' | 'signed' | undefined
  /**
   * `in-process`: the bot's stream inputs from the exchange core's publisher in this process, as
   * values through the delivery queue (engine/inProcessStream.ts; the settings must enable
   * streams); `wire`: the same publisher through the socket protocol's JSON frames, the bot's own
   * WebSocket pool against the mock's session, on the delivery queue (wireStreamOnQueue.ts; the
   * baseline); `off` (default): no stream, every input polls.
   */
  streams?: 'in-process' | 'wire' | 'off' | undefined
  /** The replay seam (`simulate --data`) and the market tap (recording the mock's market). */
  market?: Pick<PerpsExchangeOptions, 'marketDriver' | 'marketTap' | 'historyMinutes'> | undefined
}

export interface SteppedAssembly {
  readonly clock: VirtualClock
  readonly mock: MockServer
  readonly hooks: SettleHooks
  readonly transports: { perps: HttpTransport; catalogue: HttpTransport }
  /** Starts the engine on the in-process venue (the assembly's clock and transports), driving the clock until it is up. */
  startEngine(o: Omit<EngineOptions, 'venue'>): Promise<RunningBot>
  /** Stops the bot, driving the clock until it has stopped. */
  stopBot(bot: RunningBot, reason: string): Promise<void>
  /** Drives the clock until `p` settles (or `budgetMs` of virtual time passed). */
  driveUntil<T>(p: Promise<T>, budgetMs: number, what: string): Promise<T>
  /** Runs the clock to `endMs` (steppedRun.ts); the number of steps taken. */
  run(o: Omit<SteppedRunOptions, 'clock' | keyof SettleHooks>): Promise<number>
  /** Signatures the mock answered at once and checked on the worker thread (deferredSignerCheck.ts). */
  signatures(): { deferred: number; checked: number }
  /** Restores the timers; disposes of the mock and the clock. */
  dispose(): void
}

export function createSteppedAssembly(o: SteppedAssemblyOptions): SteppedAssembly {
  const clock = new VirtualClock({ mode: 'stepped', startMs: o.startMs })
  // The mock recovers signers on the other core and answers at once (deferredSignerCheck.ts); a
  // wrong one stops the run at the next step.
  const signerCheck = new DeferredSignerCheck()
  const inline = o.signatures === 'inline'
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
      exchange: {
        ...(inline ? {} : { signerCheck }),
        ...(o.instruments ? { instruments: [...o.instruments] } : {}),
        ...o.market,
      },
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
  const onExchange = o.onExchange
  const deliveries = createDeliveryQueue()
  const transport = (maxBodyBytes: number): InProcessTransportOptions & { deliveries: DeliveryQueue } => ({
    deliveries,
    handler: mock.handler,
    clock,
    deadlineMs: o.settings.perps.requestTimeoutMs,
    maxBodyBytes,
    onAnswer: o.onAnswer,
    onExchange:
      onExchange &&
      ((req, res) =>
        onExchange({
          req,
          res,
          fault: res.headers?.[FAULT_HEADER],
          command: req.method !== 'GET' && COMMAND_PATHS.some((p) => req.path.startsWith(p)),
        })),
  })
  const perps = transport(o.settings.perps.maxResponseBytes)
  const transports = {
    perps:
      o.commands === 'signed'
        ? createInProcessTransport(perps)
        : createInProcessTransport({ ...perps, typedCommands: true }),
    catalogue: createInProcessTransport(transport(o.settings.catalogue.maxResponseBytes)),
  }
  const hooks: SettleHooks = { busy: () => inside > 0, deliver: () => deliveries.deliverOne() }
  // The core's pushes as values, on the clock's ticks, handed over in delivery order.
  const hub: InProcessStreamHub | undefined =
    o.streams === 'in-process' || o.streams === 'wire'
      ? createInProcessStreamHub({
          exchange: mock.exchange,
          clock,
          deliver: (handOver) => deliveries.push(handOver),
        })
      : undefined
  const restoreTimers = installZeroDelayTimers()

  async function driveUntil<T>(p: Promise<T>, budgetMs: number, what: string): Promise<T> {
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

  /** The venue port's events: none, the hub's values, or its JSON frames to the bot's own pool. */
  function streamEvents(): { streamUrl?: string; streamSource?: OpenStreamSource } {
    if (hub === undefined) return {}
    if (o.streams === 'in-process')
      return { streamUrl: IN_PROCESS_STREAM_LABEL, streamSource: openInProcessStream(hub) }
    const socketFactory = wireStreamOnQueue({ hub, exchange: mock.exchange, clock, deliveries })
    return {
      streamUrl: WIRE_STREAM_LABEL,
      streamSource: (options) => new StreamPool({ ...options, socketFactory }),
    }
  }

  return {
    clock,
    mock,
    hooks,
    transports,
    startEngine: (b) =>
      driveUntil(
        startEngine({
          ...b,
          venue: inProcessVenue({
            transports,
            clock,
            secrets: {},
            replay: o.market?.marketDriver !== undefined,
            ...streamEvents(),
          }),
        }),
        START_STOP_BUDGET_MS,
        'the bot start',
      ),
    stopBot: async (bot, reason) => {
      await driveUntil(bot.stop(reason), START_STOP_BUDGET_MS, 'the bot stop')
      await signerCheck.verified()
    },
    driveUntil,
    run: async (r) => {
      const steps = await runStepped({
        ...r,
        clock,
        ...hooks,
        onStep: (now) => {
          const failed = signerCheck.failure()
          if (failed) throw failed
          return r.onStep?.(now)
        },
      })
      await signerCheck.verified()
      return steps
    },
    signatures: () => signerCheck.stats(),
    dispose() {
      void signerCheck.close()
      hub?.close()
      restoreTimers()
      mock.dispose()
      clock.dispose()
    },
  }
}
