/**
 * The stop sequence's bounds, on a simulated clock: whatever a step hangs on (an input that ignores
 * its abort, a batch held by the breaker, a cancel-all the venue never answers, a stuck close), the
 * exit policy gets its turn and the whole stop ends within the shutdown budget.
 */
import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import {
  ordersMayRemain,
  runStopSequence,
  STOP_STEP_MS,
  type StopParts,
  type StopReport,
} from '../../../src/bot/startup/stopSequence.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import type { Order } from '../../../src/perps/schemas/orders.ts'
import { restingOrder } from '../../helpers/orders.ts'

const order = (oid: number, iid: number): Order => restingOrder(oid, { iid })

const never = (): Promise<never> => new Promise<never>(() => undefined)
const SHUTDOWN_BUDGET_MS = 8_000

/** Runs the sequence, advancing the simulated clock in 50 ms steps (bounded) until it ends. */
async function drive(parts: StopParts): Promise<{ report: StopReport; elapsedMs: number; lines: string[] }> {
  const clock = new SimulatedClock()
  const lines: string[] = []
  const log = createLogger({ pretty: 'never', destination: { write: (l: string) => void lines.push(l) } })
  let report: StopReport | undefined
  const done = runStopSequence({ parts, exitPolicy: 'cancel-all', clock, logger: log, reason: 't' }).then(
    (r) => {
      report = r
    },
  )
  let elapsedMs = 0
  for (let i = 0; i < 1_000 && report === undefined; i++) {
    await new Promise<void>((r) => setImmediate(r))
    if (report !== undefined) break
    clock.increment(50)
    elapsedMs += 50
  }
  await done
  if (report === undefined) throw new Error('stop sequence did not end')
  return { report, elapsedMs, lines }
}

describe('stop sequence bounds', () => {
  it('the budget shares fit the shutdown budget', () => {
    const total = Object.values(STOP_STEP_MS).reduce((a, b) => a + b, 0)
    expect(total).toBeLessThan(SHUTDOWN_BUDGET_MS)
  })

  it('an input that never stops and a batch that never ends still let cancel-all run', async () => {
    const steps: string[] = []
    const { report, elapsedMs, lines } = await drive({
      inputs: [{ stop: never }],
      stopPlanning: () => void steps.push('planning'),
      finishOrders: never,
      cancelAll: async () => void steps.push('cancelAll'),
      disarm: async (clear) => void steps.push(clear ? 'disarm' : 'keep-armed'),
      lastOrders: () => [],
      releaseLimiter: async () => void steps.push('limiter'),
      flushAlerts: async () => void steps.push('alerts'),
      close: [never],
    })
    expect(report.cancelAllFailed).toBe(false)
    expect(steps).toEqual(['planning', 'cancelAll', 'disarm', 'limiter', 'alerts'])
    expect(elapsedMs).toBeLessThan(SHUTDOWN_BUDGET_MS)
    expect(lines.some((l) => l.includes('an input did not stop within'))).toBe(true)
  })

  it('a cancel-all that never answers is aborted at its bound and reported with every known order', async () => {
    let signal: AbortSignal | undefined
    // The actors' live sets exist only until planning stops; the last read is kept.
    let planning = true
    const { report, elapsedMs, lines } = await drive({
      inputs: [],
      stopPlanning: () => {
        planning = false
      },
      finishOrders: async () => undefined,
      cancelAll: (s) => {
        signal = s
        return never()
      },
      disarm: never,
      lastOrders: () => (planning ? [order(1, 10), order(2, 10)] : [order(2, 10), order(3, 11)]),
      releaseLimiter: async () => undefined,
      flushAlerts: async () => undefined,
      close: [],
    })
    expect(report.cancelAllFailed).toBe(true)
    expect(signal?.aborted).toBe(true)
    expect(elapsedMs).toBeLessThan(SHUTDOWN_BUDGET_MS)
    const failure = JSON.parse(lines.find((l) => l.includes('cancel-all failed')) ?? '{}') as {
      ordersMayRemain?: { oid: number }[]
    }
    expect(failure.ordersMayRemain?.map((o) => o.oid).sort()).toEqual([1, 2, 3])
  })

  it('ordersMayRemain merges sources once per order id', () => {
    expect(ordersMayRemain([[order(1, 1), order(2, 1)], [order(2, 1)], []]).map((o) => o.oid)).toEqual([1, 2])
  })
})
