/**
 * Runs the real bot against the real mock over loopback HTTP (src/sim/botOnMock.ts, the same assembly
 * as the soak) on the mock's accelerated virtual clock, and records what crossed the wire: every
 * command with its response, every 429 and whether the mock's fault injection produced it, every log
 * line and every alert.
 */
import type { Alert } from '../../src/alerts/alert.ts'
import type { RunningBot } from '../../src/bot/startBot.ts'
import type { SecretBag } from '../../src/logging/logger.ts'
import type { RunningMockServer } from '../../src/mock/httpServer.ts'
import type { MockServer, MockServerOptions } from '../../src/mock/server.ts'
import { VirtualClock } from '../../src/mock/virtualClock.ts'
import { rateLimitCode, startBotOnMock } from '../../src/sim/botOnMock.ts'
import { type LoopbackStepper, loopbackStepper } from '../helpers/loopbackStepper.ts'

export interface RecordedCommand {
  method: string
  path: string
  body: unknown
  status: number
  /** The fault injector's label when the mock injected this response. */
  fault: string | undefined
}

export interface RecordedRateLimit {
  path: string
  error: string
  fault: string | undefined
}

export interface BotRun {
  mock: MockServer
  server: RunningMockServer
  bot: RunningBot
  commands: RecordedCommand[]
  rateLimits: RecordedRateLimit[]
  logs: string[]
  alerts: Alert[]
  secrets: SecretBag
  /** On a stepped clock: what moves time (test/helpers/loopbackStepper.ts). */
  stepper: LoopbackStepper | undefined
  stop(): Promise<void>
}

export async function runBotAgainstMock(opts: {
  scenario: string
  seed?: number
  speed?: number
  faults?: MockServerOptions['faults']
  overrides?: Record<string, unknown>
  /** A stepped clock the test moves (`run.stepper`) instead of the accelerated one (`speed`). */
  stepped?: boolean
}): Promise<BotRun> {
  const commands: RecordedCommand[] = []
  const rateLimits: RecordedRateLimit[] = []
  const logs: string[] = []
  const alerts: Alert[] = []
  const stepped = opts.stepped === true ? new VirtualClock({ mode: 'stepped', startMs: T0 }) : undefined
  const stepper = stepped && loopbackStepper(stepped)
  const start = startBotOnMock({
    mock: {
      seed: opts.seed ?? 7,
      scenario: opts.scenario,
      ...(stepped ? { clock: stepped } : { clock: 'accelerated', speed: opts.speed ?? 20 }),
      catalogue: { eventCount: 120 },
      ...(opts.faults !== undefined ? { faults: opts.faults } : {}),
    },
    overrides: opts.overrides,
    logLevel: 'debug',
    onExchange: ({ req, res, fault, command }) => {
      if (command)
        commands.push({ method: req.method, path: req.path, body: req.body, status: res.status, fault })
      if (res.status === 429) rateLimits.push({ path: req.path, error: rateLimitCode(res), fault })
    },
    onLogLine: (line) => void logs.push(line),
    onAlert: (a) => void alerts.push(a),
  })
  const run = await (stepper ? stepper.during(start) : start).catch((e: unknown) => {
    stepper?.close()
    throw e
  })
  return {
    mock: run.mock,
    server: run.server,
    bot: run.bot,
    commands,
    rateLimits,
    logs,
    alerts,
    secrets: run.secrets,
    stepper,
    async stop() {
      if (stepper === undefined) return void (await run.stop('test over'))
      await stepper.during(run.stop('test over'))
      stepper.close()
    },
  }
}

/** Where a stepped run's clock starts. */
const T0 = Date.UTC(2026, 10, 2, 12)

/** Virtual time elapsed since `from`, per the mock's clock. */
export function virtualSince(run: BotRun, from: number): number {
  return run.mock.clock.now() - from
}
