/** What goes wrong with a strategy: its module (load) or its output (quotes). */
import { BotError, type BotErrorOptions } from '../errors.ts'

/** A strategy module could not be loaded or does not satisfy the contract; names the file. */
export class StrategyLoadError extends BotError {
  override name = 'StrategyLoadError' as const
  /** The offending file (absolute path), or undefined for registry-level problems. */
  readonly file: string | undefined
  readonly problems: readonly string[]
  constructor(
    file: string | undefined,
    shortMessage: string,
    problems: readonly string[] = [],
    options: BotErrorOptions = {},
  ) {
    super(file === undefined ? shortMessage : `${file}: ${shortMessage}`, { ...options, details: problems })
    this.file = file
    this.problems = problems
  }
}

/** A strategy threw, or returned quotes that break the venue's rules, the mode or its position cap. */
export class StrategyOutputError extends BotError {
  override name = 'StrategyOutputError' as const
  readonly strategy: string
  readonly issues: readonly string[]
  constructor(strategy: string, issues: readonly string[], options: BotErrorOptions = {}) {
    super(`strategy "${strategy}" produced invalid quotes`, { ...options, details: issues })
    this.strategy = strategy
    this.issues = issues
  }
}
