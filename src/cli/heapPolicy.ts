/**
 * The long-running bot's heap policy: how far V8 lets the old generation grow past the live data
 * before its next full collection. V8's own policy lets it grow to several times the live size
 * between collections; at 1,000 instruments that held 350–450 MB of rss for ~65 MB of live data. A
 * fixed growth bounds the rss at the cost of more (short, mostly concurrent) full collections; see
 * docs/benchmarks.md for both figures.
 *
 * `perpbot run` applies the default from the process's first import (cli/startHeap.ts) and the
 * configured one once its settings are read: V8 reads the flag at every collection, so each takes
 * effect at once (NODE_OPTIONS cannot carry V8 flags). A `--heap-growing-percent` given to node itself wins.
 */
import { setFlagsFromString } from 'node:v8'

const FLAG = '--heap-growing-percent'

/** Applies `growthPercent` (0 = V8's own policy); returns the policy in force, for the start-up log. */
export function applyHeapPolicy(
  growthPercent: number,
  execArgv: readonly string[] = process.execArgv,
): { growthPercent: number | undefined; source: 'settings' | 'node flag' | 'v8 default' } {
  const given = execArgv.find((a) => a.startsWith(`${FLAG}=`))
  if (given !== undefined) return { growthPercent: Number(given.slice(FLAG.length + 1)), source: 'node flag' }
  if (!(growthPercent > 0)) {
    // V8's own policy is the flag at 0 (a default applied at start, cli/startHeap.ts, is undone).
    setFlagsFromString(`${FLAG}=0`)
    return { growthPercent: undefined, source: 'v8 default' }
  }
  setFlagsFromString(`${FLAG}=${Math.round(growthPercent)}`)
  return { growthPercent, source: 'settings' }
}
