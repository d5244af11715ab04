/**
 * `perpbot simulate`'s driver: the real bot (`startBot`, the shipped dry-run configuration with the
 * chosen strategy on N generated instruments) against the real mock in one process, on a stepped
 * virtual clock driven as fast as the machine allows (steppedRun.ts). The bot reaches the mock through
 * the in-process transport; everything above it is the bot's own code path. A recorder follows the
 * run (recorder.ts); rendering is elsewhere (report.ts).
 */

import type { RunningBot } from '../../bot/startBot.ts'
import { resolveStrategies } from '../../bot/startup/resolveConfig.ts'
import type { JournalDb } from '../../journal/database.ts'
import { createJournal, type JournalMetrics } from '../../journal/journal.ts'
import { createLogger, SecretBag } from '../../logging/logger.ts'
import { generateInstruments, type InstrumentSpec } from '../../mock/perps/instruments.ts'
import type { MarketDriver, MarketTap } from '../../mock/perps/market/marketDriver.ts'
import { seededRandom } from '../../random.ts'
import { loadSettings } from '../../settings/load.ts'
import type { Settings } from '../../settings/schema.ts'
import type { WireExchange } from '../botOnMock.ts'
import { generatedInstrumentConfig } from '../generatedInstruments.ts'
import type { SimRecord } from './model.ts'
import { createRecorder } from './recorder.ts'
import { createSteppedAssembly } from './steppedAssembly.ts'

/** Virtual start of every run (fixed, so the same flags give the same report). */
export const SIM_START_MS = Date.UTC(2026, 0, 5, 0, 0, 0)

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
  /** How the mock checks signatures (steppedAssembly.ts); default `deferred`. */
  signatures?: 'deferred' | 'inline' | undefined
  /** Trading commands as typed values (default) or signed JSON as on the wire (steppedAssembly.ts). */
  commands?: 'typed' | 'signed' | undefined
  /**
   * `in-process` (`simulate --streams`): the bot's inputs from the exchange core's stream, pushed as
   * values (engine/inProcessStream.ts), the polls standing down behind it as live; `off` (default):
   * every input polls; `wire`: the same stream as JSON frames to the bot's own WebSocket pool
   * (steppedAssembly.ts; the equivalence test's and the benchmark's baseline).
   */
  streams?: 'in-process' | 'wire' | 'off' | undefined
  /** Journal the run here (closed at the end, also on failure). */
  journal?: JournalDb | undefined
  /**
   * Replays a dataset instead of the mock's invented market (`simulate --data`, src/research/): its
   * instruments, start time and driver; `label` names the model and data in the report.
   */
  replay?:
    | { instruments: readonly InstrumentSpec[]; startMs: number; driver: MarketDriver; label: string }
    | undefined
  /** Strategy parameters for every instrument (a sweep point), on top of size and position cap. */
  strategyParams?: Readonly<Record<string, unknown>> | undefined
  /** Sees every market after each mock step (recording the mock's market). */
  marketTap?: MarketTap | undefined
  /** Sees every request with the mock's answer (tests: what the in-process venue answered). */
  onExchange?: ((x: WireExchange) => void) | undefined
}

export interface SimulationResult {
  record: SimRecord
  /** Clock steps (timer jumps) the run took. */
  steps: number
  /** Signatures the mock answered at once and recovered on a worker thread (all checked by the end). */
  signatures: { deferred: number; checked: number }
  /** The journal's figures at the end, when the run was journaled. */
  journal?: JournalMetrics | undefined
}

/** The shipped dry-run configuration with the strategy on every instrument (also the fast backtest engine's). */
export function simulationSettings(
  o: Pick<SimulateOptions, 'configDir' | 'strategy' | 'strategyParams' | 'overrides' | 'streams'>,
  specs: readonly InstrumentSpec[],
): Settings {
  return loadSettings({
    configDir: o.configDir,
    mode: 'dry-run',
    overrides: {
      'ops.port': 0,
      'logging.level': 'warn',
      // Without the in-process stream the bot's inputs come from its polls.
      'streams.enabled': o.streams === 'in-process' || o.streams === 'wire',
      instruments: generatedInstrumentConfig(specs, o.strategy, { ...o.strategyParams }),
      ...o.overrides,
    },
    env: {},
  }).settings
}

export async function runSimulation(o: SimulateOptions): Promise<SimulationResult> {
  const specs = o.replay?.instruments ?? generateInstruments(o.instruments, o.seed)
  const startMs = o.replay?.startMs ?? SIM_START_MS
  const settings = simulationSettings(o, specs)
  const strategies = await resolveStrategies(settings)
  // The recorder sees each market step's mid (markouts, fill rate); it is built after the mock.
  let priceTap: ((iid: number, t: number, mid: number) => void) | undefined
  const marketTap: MarketTap = (m, t, dtMs) => {
    o.marketTap?.(m, t, dtMs)
    priceTap?.(m.spec.id, t, Number(m.markTicks) / 10 ** m.spec.priceDecimals)
  }
  const assembly = createSteppedAssembly({
    seed: o.seed,
    // A replay drives the market itself; the scenario only seeds the account.
    scenario: o.replay ? 'calm' : o.scenario,
    startMs,
    instruments: specs,
    market: {
      ...(o.replay ? { marketDriver: o.replay.driver, historyMinutes: 0 } : {}),
      marketTap,
    },
    settings,
    onAnswer: (req, status, bytes) => o.onAnswer?.(req.method, req.path, status, bytes),
    onExchange: o.onExchange,
    signatures: o.signatures,
    commands: o.commands,
    streams: o.streams,
  })
  const { clock, mock } = assembly
  const totalMs = Math.round(o.hours * 3_600_000)
  // About 1,000 points over the run before any thinning; never finer than a second.
  const recorder = createRecorder({
    exchange: mock.exchange,
    meta: {
      strategy: o.strategy,
      scenario: o.scenario,
      seed: o.seed,
      hours: o.hours,
      startMs,
      perpbotVersion: o.perpbotVersion,
      ...(o.replay ? { data: o.replay.label } : {}),
    },
    stepMs: Math.max(1_000, Math.round(totalMs / 1_000)),
  })
  priceTap = (iid, t, mid) => recorder.price(iid, t, mid)
  const secrets = new SecretBag()
  const logger = createLogger({
    level: settings.logging.level,
    pretty: 'never',
    secrets,
    destination: { write: () => undefined },
  })
  const journal =
    o.journal &&
    createJournal({
      db: o.journal,
      clock,
      settings: settings.journal,
      // The simulation's own mock numbers trades from 1: its rows are keyed by this run.
      venue: 'per-run',
      bindLater: true,
      run: { version: o.perpbotVersion, mode: 'simulate', configHash: `seed:${o.seed}` },
    })
  let bot: RunningBot | undefined
  try {
    bot = await assembly.startEngine({
      settings,
      logger,
      secretBag: secrets,
      strategies,
      random: seededRandom((o.seed ^ 0x51b07) >>> 0),
      ops: false,
      alertSinks: [{ send: (a) => recorder.alert(a) }],
      journal,
    })
    const running = bot
    const owner = mock.exchange.accountOf(running.proxyAddress)?.owner
    if (owner !== undefined) recorder.follow(owner)
    const startedAt = clock.now()
    const endMs = startedAt + totalMs
    const steps = await assembly.run({
      endMs,
      signal: o.signal,
      onStep: (now) => {
        recorder.sample(now, {
          states: () => running.instrumentStates(),
          budgets: () => running.limiterBudgets(),
        })
        o.onProgress?.(now - startedAt, totalMs)
      },
    })
    const record = recorder.finish(clock.now(), running.status())
    await assembly.stopBot(running, 'simulation over')
    bot = undefined
    await journal?.flush()
    const journalMetrics = await journal?.metrics()
    return { record, steps, signatures: assembly.signatures(), journal: journalMetrics }
  } finally {
    if (bot) await assembly.stopBot(bot, 'simulation failed').catch(() => undefined)
    await journal?.close(bot ? 'simulation failed' : 'simulation over').catch(() => undefined)
    recorder.dispose()
    assembly.dispose()
  }
}
