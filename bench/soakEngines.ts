/**
 * The soak's two assemblies of the real bot and the real mock, behind one interface (bench/soak.ts):
 *
 * - `stepped` (default): one process on the stepped virtual clock of `perpbot simulate`
 *   (src/sim/simulate/steppedAssembly.ts): the bot reaches the mock through the in-process
 *   transport and the clock jumps to the next due timer whenever the process is idle, so virtual
 *   time runs as fast as the machine allows and a signed command's 4 s `exp` never expires in wall
 *   time. Streams are off (the in-process transport carries no WebSocket: every input polls). The
 *   ops server listens on 127.0.0.1:0 and is probed over HTTP at sample points while the clock is
 *   stopped (a listening socket is not a timer, so it does not disturb the idle detection). Alerts
 *   reach the webhook through the real webhook sink (same payloads, coalescing and pacing on the
 *   virtual clock) with an in-process poster instead of a loopback HTTP post: a socket round trip
 *   that no virtual timer holds would let the clock jump while a delivery is in flight.
 * - `wire`: the loopback run of src/sim/botOnMock.ts (HTTP and WebSocket on 127.0.0.1), on the mock's
 *   accelerated clock: the real network path, at most about ten times real time.
 */
import type { Alert } from '../src/alerts/alert.ts'
import { createWebhookAlertSink } from '../src/alerts/webhookSink.ts'
import { webhookSinkSettings } from '../src/bot/observe/alertHub.ts'
import type { RunningBot } from '../src/bot/startBot.ts'
import { resolveStrategies } from '../src/bot/startup/resolveConfig.ts'
import { createLogger, SecretBag } from '../src/logging/logger.ts'
import type { InstrumentSpec } from '../src/mock/perps/instruments.ts'
import type { MockServer } from '../src/mock/server.ts'
import { seededRandom } from '../src/random.ts'
import { loadSettings } from '../src/settings/load.ts'
import { startBotOnMock, type WireExchange } from '../src/sim/botOnMock.ts'
import { SIM_START_MS } from '../src/sim/simulate/runSimulation.ts'
import { createSteppedAssembly } from '../src/sim/simulate/steppedAssembly.ts'
import { startFakeWebhook } from './fakeWebhook.ts'

export type SoakEngineName = 'stepped' | 'wire'

export interface SoakEngineOptions {
  seed: number
  scenario: string
  speed: number
  instruments: readonly InstrumentSpec[] | undefined
  overrides: Record<string, unknown>
  webhookToken: string
  onExchange: (x: WireExchange) => void
  onLogLine: (line: string) => void
  onAlert: (a: Alert) => void
  onWebhookPayload: (body: string) => void
}

/** Called regularly while the run goes on; false stops it (wall-time cap, SIGINT). */
export type SoakTick = (elapsedMs: number) => boolean | Promise<boolean>

export interface SoakEngine {
  readonly name: SoakEngineName
  readonly mock: MockServer
  readonly bot: RunningBot
  /** Every secret of the run (keys, proxy secret) in every form the logger scrubs. */
  readonly needles: readonly string[]
  readonly webhookUrl: string
  /** Where the mock and the ops server are, for the header line. */
  readonly where: string
  webhookDeliveries(): number
  /** Runs until `elapsedMs` virtual ms have passed or `tick` says stop; ticks at least every 250 ms wall. */
  drive(totalMs: number, tick: SoakTick): Promise<void>
  /** Lets `ms` of time pass (virtual on the stepped clock; wall on the accelerated one). */
  pause(ms: number): Promise<void>
  stop(reason: string): Promise<void>
}

export async function startSoakEngine(name: SoakEngineName, o: SoakEngineOptions): Promise<SoakEngine> {
  return name === 'stepped' ? startStepped(o) : startWire(o)
}

async function startWire(o: SoakEngineOptions): Promise<SoakEngine> {
  const webhook = await startFakeWebhook(o.webhookToken, o.onWebhookPayload)
  const run = await startBotOnMock({
    mock: {
      seed: o.seed,
      scenario: o.scenario,
      clock: 'accelerated',
      speed: o.speed,
      catalogue: { eventCount: 120 },
      ...(o.instruments ? { exchange: { instruments: [...o.instruments] } } : {}),
    },
    overrides: o.overrides,
    env: { ALERT_WEBHOOK_URL: webhook.url },
    ops: true,
    onExchange: o.onExchange,
    onLogLine: o.onLogLine,
    onAlert: o.onAlert,
  })
  const { mock, bot } = run
  const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
  return {
    name: 'wire',
    mock,
    bot,
    needles: run.secrets.needles,
    webhookUrl: webhook.url,
    where: `mock on ${run.server.url}, ops on ${bot.opsUrl ?? 'none'}`,
    webhookDeliveries: () => webhook.deliveries(),
    async drive(totalMs, tick) {
      const started = mock.clock.now()
      for (;;) {
        await sleep(250)
        const elapsed = mock.clock.now() - started
        if (elapsed >= totalMs || !(await tick(elapsed))) return
      }
    },
    pause: (ms) => sleep(ms / o.speed),
    async stop(reason) {
      const stopTimer = setTimeout(() => {
        console.error('bot did not stop within 15 s')
        process.exit(3)
      }, 15_000)
      await run.stop(reason)
      clearTimeout(stopTimer)
      await webhook.close()
    },
  }
}

async function startStepped(o: SoakEngineOptions): Promise<SoakEngine> {
  const { settings } = loadSettings({
    configDir: 'config',
    mode: 'dry-run',
    // The in-process transport carries requests only: the bot's inputs come from its polls.
    overrides: { 'ops.port': 0, 'streams.enabled': false, ...o.overrides },
    env: {},
  })
  const strategies = await resolveStrategies(settings)
  const assembly = createSteppedAssembly({
    seed: o.seed,
    scenario: o.scenario,
    startMs: SIM_START_MS,
    instruments: o.instruments,
    settings,
    onExchange: o.onExchange,
    // Signed as on the wire: the soak counts each command's signature (a resent one is a bug).
    commands: 'signed',
  })
  const { clock, mock } = assembly
  const secrets = new SecretBag()
  const logger = createLogger({
    level: 'info',
    pretty: 'never',
    secrets,
    destination: { write: (line: string) => void o.onLogLine(line) },
  })
  // The URL is never dialled; it carries the token like a real one, and is scrubbed like ALERT_WEBHOOK_URL.
  const webhookUrl = `http://127.0.0.1:9/hooks/${o.webhookToken}`
  secrets.add(webhookUrl)
  let deliveries = 0
  const webhook = createWebhookAlertSink({
    url: webhookUrl,
    ...webhookSinkSettings(settings.alerts.webhook),
    // The soak checks what a live webhook would carry (a dry run's webhook is silent by default).
    mode: 'live',
    clock,
    random: seededRandom((o.seed ^ 0x3eb) >>> 0),
    logger: logger.child({ component: 'webhook' }),
    post: async (_url, body) => {
      deliveries += 1
      o.onWebhookPayload(JSON.stringify(body))
      return 200
    },
  })
  let bot: RunningBot
  try {
    bot = await assembly.startEngine({
      settings,
      logger,
      secretBag: secrets,
      strategies,
      random: seededRandom(11),
      ops: true,
      alertSinks: [webhook, { send: o.onAlert }],
    })
  } catch (e) {
    assembly.dispose()
    throw e
  }
  const running = bot
  return {
    name: 'stepped',
    mock,
    bot: running,
    needles: secrets.needles,
    webhookUrl,
    where: `mock in process (stepped clock), ops on ${running.opsUrl ?? 'none'}`,
    webhookDeliveries: () => deliveries,
    async drive(totalMs, tick) {
      const started = clock.now()
      const stop = new AbortController()
      await assembly.run({
        endMs: started + totalMs,
        signal: stop.signal,
        onStep: async (now) => {
          if (!(await tick(now - started))) stop.abort()
        },
      })
    },
    pause: async (ms) => {
      await assembly.run({ endMs: clock.now() + ms })
    },
    async stop(reason) {
      try {
        await assembly.stopBot(running, reason)
      } finally {
        assembly.dispose()
      }
    },
  }
}
