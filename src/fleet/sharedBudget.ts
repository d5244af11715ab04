/**
 * The shared IP budget: every process behind one egress asks Redis right before each send, one
 * EVALSHA per admission (budgetScripts.ts). A refused caller sleeps the wait Redis named and asks
 * again; while Redis is unreachable nothing is admitted (callers pause, retrying every
 * `retryMs`), so an outage can delay requests but never overspend the budget. A 429 seen by any
 * process sets the shared blocked-until, and every process pauses with it.
 *
 * A Redis that lost its data (a restart without persistence) would forget the window's admissions;
 * so the first call to an empty Redis opens a new generation that pauses everyone for `graceMs`,
 * and each process, seeing the new generation, puts its own admissions of the last window back.
 *
 * Reads and quotes stop `riskReserve` short of the budget and other risk work (cancels of a
 * reprice, reduce-only orders, the dead-man refresh) `haltReserve` short of it: only a halted
 * instrument's cancels (`halt`) may use the whole budget, so a process that halts always finds
 * weight for its cancels, however busy the rest of the fleet is (issue 34). The stop's own commands
 * (`exit`) do not ask at all (sharedGate.ts).
 */
import { type Clock, systemClock, type TimerId } from '../clock.ts'
import { InputValidationError } from '../errors.ts'
import {
  ADMIT_LUA,
  BLOCK_LUA,
  type BudgetKeys,
  budgetKeys,
  RESTAMP_LUA,
  RESTORE_LUA,
} from './budgetScripts.ts'
import { SharedBudgetAbortedError, SharedBudgetTimeoutError } from './errors.ts'
import { intAt, LuaScript, type ScriptClient } from './redisScript.ts'

export type SharedPriority = 'halt' | 'risk' | 'read' | 'quote'

/** What the bot's limiter calls right before each send. */
export interface SharedBudget {
  /**
   * Resolves once the fleet's budget admitted `weight` (it is then spent, fleet-wide).
   * @throws {@link SharedBudgetAbortedError} the signal aborted while waiting.
   * @throws {@link SharedBudgetTimeoutError} not admitted within `maxWaitMs`.
   */
  acquire(weight: number, priority: SharedPriority, signal?: AbortSignal): Promise<SharedGrant>
  /**
   * The admitted request is being sent now. Sent more than `lateMs` after its admission was asked
   * (a process starved of CPU in between), its log entry is stamped again on Redis's clock, so the
   * log counts it as long as the venue counts its arrival (fire and forget).
   */
  sent(grant: SharedGrant): void
  /** A 429 from the venue: every process pauses for `pauseMs` (best effort; errors are counted). */
  reportRateLimited(pauseMs: number): Promise<void>
  state(): SharedBudgetState
  /**
   * Told when Redis turns slow (`slowAfter` admissions in a row answered in `slowMs` or more), down
   * (an admission got no answer) or well again (as many fast answers); returns the unsubscribe.
   */
  onHealth(listener: (health: RedisHealth) => void): () => void
  /** Ends every wait (`SharedBudgetAbortedError`). */
  stop(): void
}

/** Redis as the budget sees it; `ms`: the last admission's round trip. */
export interface RedisHealth {
  readonly state: 'ok' | 'slow' | 'down'
  readonly ms: number
  readonly reason: string
}

/** One admission: when Redis granted it (its clock, µs) and how much. */
export interface SharedGrant {
  readonly atUs: number
  readonly weight: number
  /** Its entry in the log (for a re-stamp). */
  readonly member: string
  /** Local clock (ms) when the admission was asked. */
  readonly askedAt: number
}

/** This process's admission in the log (restored into a new generation; re-stamped when sent late). */
interface OwnEntry {
  atUs: number
  readonly weight: number
  readonly member: string
}

export interface SharedBudgetState {
  /** False after a Redis error, until the next answer. */
  readonly redisUp: boolean
  readonly admitted: number
  readonly admittedWeight: number
  /** Refusals (each followed by a wait). */
  readonly refused: number
  readonly redisErrors: number
  /** Scripts sent again after the server lost them (NOSCRIPT). */
  readonly scriptReloads: number
  /** The fleet's weight in the window at the last answer. */
  readonly windowWeight: number
  readonly budget: number
  /** The most each class may fill the window to (halt: the whole budget). */
  readonly limits: Readonly<Record<SharedPriority, number>>
  /** Callers waiting now. */
  readonly waiting: number
  readonly blocked: boolean
  /** New Redis generations seen (data lost) and the admissions this process restored into them. */
  readonly generations: number
  readonly restored: number
  /** This process's own weight among the window's admissions (as of its last admission). */
  readonly ownWindowWeight: number
  /** Admissions sent late and stamped again (cumulative). */
  readonly restamped: number
}

export interface SharedBudgetOptions {
  client: ScriptClient
  /** Names the egress IP the budget belongs to (every process behind it uses the same id). */
  egressId: string
  /** Weight per window for the whole egress (e.g. 900 of the venue's 1,000). */
  budget: number
  windowMs?: number | undefined
  /** Fraction of the budget only risk work (halts included) may use (default 0.1). */
  riskReserve?: number | undefined
  /**
   * Fraction of the budget only a halted instrument's cancels may use (default half the risk
   * reserve: 0.05; at least a weight of 1 when not 0): never lent to reads, quotes or other risk work.
   */
  haltReserve?: number | undefined
  /** Pause between attempts while Redis is unreachable. */
  retryMs?: number | undefined
  /** Longest a caller waits before `SharedBudgetTimeoutError`. */
  maxWaitMs?: number | undefined
  /** Pause that opens a new generation, long enough for every process to restore (≥ 4 × retryMs). */
  graceMs?: number | undefined
  /** An admission sent this long after it was asked is stamped again at the send (default 20 ms). */
  lateMs?: number | undefined
  /**
   * Each admission counts this much longer than the window (default min(250 ms, window / 40)): the
   * venue counts a request from its arrival, a little after Redis stamped it, and a refused caller
   * is admitted the instant the oldest entries leave Redis's window; without this margin a burst
   * that arrived late and the admissions that replace it fall into one venue window.
   */
  arrivalGuardMs?: number | undefined
  keyPrefix?: string | undefined
  clock?: Clock | undefined
  /** An admission answered this slowly counts as slow (default 250 ms; every request waits on it). */
  slowMs?: number | undefined
  /** Slow (or fast) answers in a row that change the health (default 3). */
  slowAfter?: number | undefined
}

export function createSharedBudget(o: SharedBudgetOptions): SharedBudget {
  const windowMs = o.windowMs ?? 60_000
  const guardMs = o.arrivalGuardMs ?? Math.min(250, Math.ceil(windowMs / 40))
  if (!(Number.isFinite(guardMs) && guardMs >= 0))
    throw new InputValidationError('fleet arrivalGuardMs must be a non-negative number')
  // How long an admission counts in the log: the venue's window plus the arrival guard.
  const countMs = windowMs + guardMs
  const retryMs = o.retryMs ?? 250
  const maxWaitMs = o.maxWaitMs ?? 2 * windowMs
  const riskReserve = o.riskReserve ?? 0.1
  const graceMs = o.graceMs ?? Math.max(1_000, 4 * retryMs)
  const clock = o.clock ?? systemClock
  if (!(Number.isInteger(o.budget) && o.budget > 0))
    throw new InputValidationError('fleet budget must be a positive integer')
  if (!(riskReserve >= 0 && riskReserve < 1))
    throw new InputValidationError('fleet riskReserve must be in [0, 1)')
  const haltReserve = o.haltReserve ?? riskReserve / 2
  if (!(haltReserve >= 0 && haltReserve < 1))
    throw new InputValidationError('fleet haltReserve must be in [0, 1)')
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(o.egressId))
    throw new InputValidationError('fleet egress id must be 1-64 characters of A-Z a-z 0-9 . _ -')
  const keys: BudgetKeys = budgetKeys(o.keyPrefix ?? 'perpbot', o.egressId)
  const admitScript = new LuaScript(ADMIT_LUA)
  const restoreScript = new LuaScript(RESTORE_LUA)
  const blockScript = new LuaScript(BLOCK_LUA)
  const restampScript = new LuaScript(RESTAMP_LUA)
  const lateMs = o.lateMs ?? 20
  // The halt reserve is held back from everything else; reads and quotes never reach past risk work.
  const haltWeight = haltReserve === 0 ? 0 : Math.max(1, Math.ceil(o.budget * haltReserve))
  const riskLimit = Math.max(1, o.budget - haltWeight)
  const shared = Math.min(riskLimit, Math.max(1, Math.floor(o.budget * (1 - riskReserve))))
  const limits: Readonly<Record<SharedPriority, number>> = {
    halt: o.budget,
    risk: riskLimit,
    read: shared,
    quote: shared,
  }
  const c = {
    admitted: 0,
    admittedWeight: 0,
    refused: 0,
    redisErrors: 0,
    windowWeight: 0,
    waiting: 0,
    generations: 0,
    restored: 0,
    restamped: 0,
  }
  // This process's own admissions within the last window (Redis µs), for a new generation.
  const mine: OwnEntry[] = []
  let generation: number | undefined
  let restoring: Promise<void> | undefined
  let redisUp = true
  let blocked = false
  const slowMs = o.slowMs ?? 250
  const slowAfter = o.slowAfter ?? 3
  const health: { state: RedisHealth['state']; streak: number } = { state: 'ok', streak: 0 }
  const healthListeners = new Set<(h: RedisHealth) => void>()
  const setHealth = (state: RedisHealth['state'], ms: number, reason: string): void => {
    health.streak = 0
    if (health.state === state) return
    health.state = state
    for (const l of [...healthListeners]) {
      try {
        l({ state, ms, reason })
      } catch {
        // An alerting bug must not break admission.
      }
    }
  }
  /** One answer (or none) of Redis, `ms` after the ask. */
  const observeAnswer = (ms: number, error: unknown): void => {
    if (error !== undefined) {
      setHealth('down', ms, error instanceof Error ? error.message : String(error))
      return
    }
    const slow = ms >= slowMs
    const off = health.state === 'ok' ? slow : !slow
    health.streak = off ? health.streak + 1 : 0
    if (health.state === 'down') setHealth(slow ? 'slow' : 'ok', ms, 'Redis answers again')
    else if (health.streak >= slowAfter)
      setHealth(
        slow ? 'slow' : 'ok',
        ms,
        `${slowAfter} admissions in a row took ${slow ? 'at least' : 'under'} ${slowMs} ms`,
      )
  }
  let stopped = false
  const sleepers = new Set<() => void>()

  const sleep = (ms: number, signal: AbortSignal | undefined): Promise<void> =>
    new Promise((resolve, reject) => {
      let timer: TimerId
      const done = (): void => {
        clock.clearTimeout(timer)
        sleepers.delete(wake)
        signal?.removeEventListener('abort', wake)
      }
      const wake = (): void => {
        done()
        reject(
          new SharedBudgetAbortedError('wait for the shared request budget aborted', {
            cause: signal?.reason,
          }),
        )
      }
      timer = clock.setTimeout(() => {
        done()
        resolve()
      }, ms)
      sleepers.add(wake)
      signal?.addEventListener('abort', wake, { once: true })
    })

  const forget = (nowUs: number): void => {
    while (mine.length > 0 && (mine[0]?.atUs ?? nowUs) <= nowUs - countMs * 1000) mine.shift()
  }

  /** A new generation: put our admissions of the last window back (once, whoever notices first). */
  function noticeGeneration(gen: number, nowUs: number): Promise<void> | undefined {
    if (generation === gen) return restoring
    const first = generation === undefined
    generation = gen
    if (first) return undefined
    c.generations += 1
    forget(nowUs)
    const entries = mine.flatMap((g) => [g.atUs.toFixed(0), g.weight])
    if (entries.length === 0) return undefined
    restoring = restoreScript
      .run(o.client, [keys.log, keys.sum, keys.seq], [countMs, ...entries])
      .then(() => {
        c.restored += entries.length / 2
      })
      .catch(() => {
        // The generation will be noticed again only if Redis loses its data again; count it.
        c.redisErrors += 1
      })
      .finally(() => {
        restoring = undefined
      })
    return restoring
  }

  async function acquire(
    weight: number,
    priority: SharedPriority,
    signal?: AbortSignal,
  ): Promise<SharedGrant> {
    const limit = limits[priority]
    if (!(Number.isInteger(weight) && weight > 0 && weight <= limit))
      throw new InputValidationError(`shared budget: weight ${weight} outside 1..${limit} for ${priority}`)
    const start = clock.now()
    c.waiting += 1
    try {
      for (;;) {
        if (stopped || signal?.aborted)
          throw new SharedBudgetAbortedError('wait for the shared request budget aborted', {
            cause: signal?.reason,
          })
        let waitMs: number
        const askedAt = clock.now()
        try {
          const r = await admitScript.run(
            o.client,
            [keys.log, keys.sum, keys.seq, keys.blocked, keys.gen],
            [weight, limit, countMs, graceMs],
          )
          observeAnswer(clock.now() - askedAt, undefined)
          redisUp = true
          c.windowWeight = intAt(r, 2)
          blocked = intAt(r, 3) === 1
          const nowUs = intAt(r, 4)
          const pending = noticeGeneration(intAt(r, 5), nowUs)
          if (intAt(r, 0) === 1) {
            c.admitted += 1
            c.admittedWeight += weight
            const member = String(Array.isArray(r) ? r[6] : '')
            forget(nowUs)
            mine.push({ atUs: nowUs, weight, member })
            return { atUs: nowUs, weight, member, askedAt }
          }
          if (pending !== undefined) await pending
          c.refused += 1
          waitMs = intAt(r, 1)
        } catch (e) {
          if (e instanceof TypeError) throw e
          // No answer is no admission: pause and ask again (an admission whose reply was lost is
          // spent for nothing, which errs on the side of the budget).
          redisUp = false
          c.redisErrors += 1
          observeAnswer(clock.now() - askedAt, e)
          waitMs = retryMs
        }
        const waited = clock.now() - start
        if (waited + waitMs > maxWaitMs) throw new SharedBudgetTimeoutError(weight, waited)
        await sleep(waitMs, signal)
      }
    } finally {
      c.waiting -= 1
    }
  }

  function sent(grant: SharedGrant): void {
    if (stopped || clock.now() - grant.askedAt < lateMs || grant.member === '') return
    c.restamped += 1
    restampScript
      .run(o.client, [keys.log, keys.sum], [countMs, grant.member, grant.weight])
      .then((r) => {
        const entry = mine.find((e) => e.member === grant.member)
        if (entry !== undefined) entry.atUs = Math.max(entry.atUs, Number(r))
      })
      .catch(() => {
        // Unstamped, the entry counts from its admission: the venue may then count it a little longer.
        c.redisErrors += 1
      })
  }

  return {
    acquire,
    sent,
    async reportRateLimited(pauseMs) {
      const ms = Math.max(1, Math.ceil(pauseMs))
      try {
        await blockScript.run(o.client, [keys.blocked], [ms])
        blocked = true
      } catch {
        c.redisErrors += 1
        redisUp = false
      }
    },
    state: () => ({
      redisUp,
      admitted: c.admitted,
      admittedWeight: c.admittedWeight,
      refused: c.refused,
      redisErrors: c.redisErrors,
      scriptReloads:
        admitScript.reloads + blockScript.reloads + restoreScript.reloads + restampScript.reloads,
      windowWeight: c.windowWeight,
      budget: o.budget,
      limits,
      waiting: c.waiting,
      blocked,
      generations: c.generations,
      restored: c.restored,
      ownWindowWeight: mine.reduce((sum, g) => sum + g.weight, 0),
      restamped: c.restamped,
    }),
    onHealth(listener) {
      healthListeners.add(listener)
      return () => healthListeners.delete(listener)
    },
    stop() {
      stopped = true
      healthListeners.clear()
      for (const wake of [...sleepers]) wake()
    },
  }
}
