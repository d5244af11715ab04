/**
 * Runs the real bot against the real mock over loopback HTTP, on the mock's accelerated virtual
 * clock, and records what crossed the wire: every command with its response, every 429 and whether the
 * mock's fault injection produced it, every log line and every alert.
 */
import type { Alert } from '../../src/alerts/alert.ts'
import { resolveStrategies } from '../../src/bot/runtime/bootstrap.ts'
import { type RunningBot, startBot } from '../../src/bot/runtime/bot.ts'
import { createLogger, SecretBag } from '../../src/logging/logger.ts'
import { FAULT_HEADER } from '../../src/mock/faults.ts'
import { type RunningMockServer, startMockHttpServer } from '../../src/mock/httpServer.ts'
import type { MockRequest } from '../../src/mock/mockHttp.ts'
import { createMockServerHandler, type MockServer, type MockServerOptions } from '../../src/mock/server.ts'
import { seededRandom } from '../../src/random.ts'
import { loadSettings } from '../../src/settings/load.ts'

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
  stop(): Promise<void>
}

const COMMAND_PATHS = ['/v1/trade/', '/v1/account/proxy', '/v1/account/referral']

export async function runBotAgainstMock(opts: {
  scenario: string
  seed?: number
  speed?: number
  faults?: MockServerOptions['faults']
  overrides?: Record<string, unknown>
}): Promise<BotRun> {
  const mock = createMockServerHandler({
    seed: opts.seed ?? 7,
    scenario: opts.scenario,
    clock: 'accelerated',
    speed: opts.speed ?? 20,
    catalogue: { eventCount: 120 },
    ...(opts.faults !== undefined ? { faults: opts.faults } : {}),
  })
  const commands: RecordedCommand[] = []
  const rateLimits: RecordedRateLimit[] = []
  const server = await startMockHttpServer({
    handler: async (req: MockRequest) => {
      const res = await mock.handler(req)
      const fault = res.headers?.[FAULT_HEADER]
      if (req.method !== 'GET' && COMMAND_PATHS.some((p) => req.path.startsWith(p))) {
        commands.push({ method: req.method, path: req.path, body: req.body, status: res.status, fault })
      }
      if (res.status === 429) {
        const body = res.body as { error?: string } | { error?: string }[] | undefined
        const error = Array.isArray(body) ? (body[0]?.error ?? '') : (body?.error ?? '')
        rateLimits.push({ path: req.path, error, fault })
      }
      return res
    },
  })
  const logs: string[] = []
  const secrets = new SecretBag()
  const logger = createLogger({
    level: 'debug',
    pretty: 'never',
    secrets,
    destination: { write: (line: string) => void logs.push(line) },
  })
  const { settings, secrets: env } = loadSettings({
    configDir: 'config',
    mode: 'dry-run',
    overrides: { 'ops.port': 0, ...opts.overrides },
    env: {},
  })
  const strategies = await resolveStrategies(settings)
  const alerts: Alert[] = []
  const bot = await startBot({
    settings,
    secrets: env,
    logger,
    secretBag: secrets,
    strategies,
    clock: mock.clock,
    random: seededRandom(11),
    perpsUrl: server.url,
    catalogueUrl: server.url,
    selfProvision: true,
    ops: false,
    alertSinks: [{ send: (a) => void alerts.push(a) }],
  })
  return {
    mock,
    server,
    bot,
    commands,
    rateLimits,
    logs,
    alerts,
    secrets,
    async stop() {
      await bot.stop('test over')
      mock.faults.releaseAll()
      await server.close()
      mock.dispose()
    },
  }
}

/** Virtual time elapsed since `from`, per the mock's clock. */
export function virtualSince(run: BotRun, from: number): number {
  return run.mock.clock.now() - from
}
