/**
 * A push tick written in slices (the stream server's `tickSlices`): a venue's order entry does not wait
 * for its market-data fan-out, but in our one-thread mock a 1,000-instrument tick (~2,000 pushes,
 * 5-10 ms) held every command and change push that arrived meanwhile. On the real clock a tick is
 * written 250 market pushes a turn of the event loop; stepped and accelerated clocks write it in one
 * turn, so tests and simulations deliver a push in the step that made it.
 */
import { setImmediate as nextTurn } from 'node:timers/promises'
import { fieldOf } from '../../guards.ts'
import type { ClockMode } from '../virtualClock.ts'
import type { StreamOut } from './streamPublisher.ts'

export interface TickSlices {
  /** Market pushes a turn. */
  pushes: number
  /** The turn between two slices. */
  nextTurn: () => Promise<void>
}

/** About an eighth of a 1,000-instrument tick's tickers and BBOs, ~1 ms of the mock's thread. */
const REAL_CLOCK_TICK_SLICES: TickSlices = { pushes: 250, nextTurn: () => nextTurn() }

/** A mock's tick slices: those given, else sliced on the real clock and whole on the others. */
export function tickSlicesFor(mode: ClockMode, given: TickSlices | undefined): TickSlices | undefined {
  return given ?? (mode === 'real' ? REAL_CLOCK_TICK_SLICES : undefined)
}

/** Channel kinds of a change push (`StreamPublisher.changed`). */
const QUOTE_KINDS: ReadonlySet<string> = new Set(['tickers', 'bbo', 'book'])

/**
 * A tick's push of kind `kind` built before a change push served its instrument (`changed`): the
 * change push carried it, newer, so the tick skips it (the bot would see the old price after the new).
 */
export function supersededQuote(p: StreamOut, kind: string, changed: ReadonlySet<number>): boolean {
  if (changed.size === 0 || !QUOTE_KINDS.has(kind)) return false
  const iid = fieldOf(p.data, 'iid')
  // A book's instrument is in its channel name.
  return changed.has(typeof iid === 'number' ? iid : Number(p.ch.split('::')[1]))
}
