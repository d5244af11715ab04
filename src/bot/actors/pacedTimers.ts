/**
 * The instrument actors' timers, paced so that the socket reads go first. Node runs every timer that
 * is due in one timers phase, with no I/O between them; at 1,000 instruments the actors' delayed
 * events (a deferred plan's `WAKE`, a retry) come due in clumps, and a clump of a hundred plans held
 * a changed price's push for tens of milliseconds (issue 36: the longest stretches of the bot's
 * thread in a CPU profile at 1,000 instruments). Here a timer that comes due is queued instead, and
 * the queue runs `perTurn` callbacks per turn of the event loop (`schedule`, setImmediate by default:
 * the check phase, after the poll phase has read the sockets), the rest on the following turns.
 *
 * A timer runs in the order it came due, never before its time, and never after `clearTimeout`
 * (also when it is due and still queued). Only for the wall clock: a stepped or virtual clock's
 * driver decides when timers run, and a turn of the event loop between them would change that.
 */
import { performance } from 'node:perf_hooks'
import type { Clock, TimerId } from '../../clock.ts'
import { TURN_BUDGET_MS } from '../shared/chunks.ts'

/** Timer callbacks per turn: each is an actor step (about 0.1 ms idle), so a turn stays ~1 ms. */
export const TIMERS_PER_TURN = 8

interface Paced {
  fn: () => void
  base: TimerId
  due: boolean
}

export function pacedTimers(
  base: Clock,
  o: {
    perTurn?: number | undefined
    schedule?: ((fn: () => void) => void) | undefined
    /** A turn also ends once it has run this long (ms of `elapsed`; at least one timer). Default `TURN_BUDGET_MS`. */
    budgetMs?: number | undefined
    /** Monotonic ms (default `performance.now`). */
    elapsed?: (() => number) | undefined
  } = {},
): Clock {
  const perTurn = Math.max(1, o.perTurn ?? TIMERS_PER_TURN)
  const budgetMs = o.budgetMs ?? TURN_BUDGET_MS
  const elapsed = o.elapsed ?? (() => performance.now())
  const schedule = o.schedule ?? ((fn: () => void) => void setImmediate(fn))
  /** Timers not yet run nor cleared, by the id handed out. */
  const live = new Map<TimerId, Paced>()
  /** The ids of the timers that came due, in that order (cleared ones are skipped when reached). */
  const queue: TimerId[] = []
  let head = 0
  let scheduled = false

  const drain = (): void => {
    scheduled = false
    let ran = 0
    const until = elapsed() + budgetMs
    while (head < queue.length && (ran === 0 || (ran < perTurn && elapsed() < until))) {
      const id = queue[head]
      head++
      const timer = live.get(id)
      if (timer === undefined) continue
      live.delete(id)
      ran++
      timer.fn()
    }
    if (head >= queue.length) {
      queue.length = 0
      head = 0
    } else wake()
  }
  const wake = (): void => {
    if (scheduled) return
    scheduled = true
    schedule(drain)
  }

  return {
    now: () => base.now(),
    setTimeout(fn, ms) {
      const id = {}
      const timer: Paced = {
        fn,
        due: false,
        base: base.setTimeout(() => {
          timer.due = true
          queue.push(id)
          wake()
        }, ms),
      }
      live.set(id, timer)
      return id
    },
    clearTimeout(id) {
      const timer = live.get(id)
      if (timer === undefined) return
      live.delete(id)
      if (!timer.due) base.clearTimeout(timer.base)
    },
  }
}
