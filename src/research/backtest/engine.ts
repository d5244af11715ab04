/**
 * Which engine runs a replayed backtest: `fast` (runBacktest.ts: the bot's instrument machine on pure
 * transitions against the mock's core, no HTTP, signing, batcher or actor system) or `bot` (the whole
 * bot against the mock, runSimulation.ts).
 */
import { isOneOf } from '../../guards.ts'

export const ENGINES = ['fast', 'bot'] as const
export type Engine = (typeof ENGINES)[number]
/** docs/decisions.md: the fast engine by default (the same decisions in a fraction of the time). */
export const DEFAULT_ENGINE: Engine = 'fast'

export function isEngine(v: string): v is Engine {
  return isOneOf(ENGINES, v)
}
