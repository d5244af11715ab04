/**
 * The flags `perpbot run --paper` refuses, apart from the paper venue itself (src/cli/runPaper.ts), so
 * reading `run`'s arguments does not load the paper book and the local exchange it runs on.
 */
import { UsageError } from '../context.ts'

/** Flags that make no sense with --paper (the venue is the live one; the book is local). */
const NOT_WITH_PAPER = ['live', 'fleet', 'scenario', 'speed', 'faults', 'seed', 'record'] as const

export function checkPaperFlags(values: Partial<Record<(typeof NOT_WITH_PAPER)[number], unknown>>): void {
  for (const k of NOT_WITH_PAPER) {
    const v = values[k]
    if (v !== undefined && v !== false)
      throw new UsageError(
        `--paper cannot be combined with --${k} (paper trades a local book on the live market's public feed)`,
      )
  }
}
