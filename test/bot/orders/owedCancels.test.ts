/**
 * Issue 34, point 1: while cancels are owed (a halted instrument's orders still rest because the
 * cancel-all waits for budget, or is refused) the dead-man switch is not refreshed, so the venue
 * cancels at the deadline already set at the latest; refreshing resumes the moment the debt is paid,
 * or after the deadline passed (the venue cancelled everything). The gateway owes a cancel-all from
 * its call until it succeeds, at `halt` priority.
 */
import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import type { Alert } from '../../../src/alerts/alert.ts'
import { startDeadManSwitch } from '../../../src/bot/orders/deadManSwitch.ts'
import { createOrderGateway } from '../../../src/bot/orders/orderGateway.ts'
import { createOwedCancels } from '../../../src/bot/orders/owedCancels.ts'
import { RequestRejectedError } from '../../../src/errors.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import { createWeightLimiter } from '../../../src/perps/throttle/weightLimiter.ts'

const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve()
}

function armed() {
  const clock = new SimulatedClock()
  const owed = createOwedCancels(clock)
  const sent: number[] = []
  const alerts: Alert[] = []
  let reconciles = 0
  const d = startDeadManSwitch({
    perps: {
      setAutoCancel: async ({ time }) => {
        sent.push(clock.now())
        return { status: 'ok', deadline: time }
      },
    },
    clock,
    venueClock: clock,
    deadlineMs: 10_000,
    refreshMs: 3_000,
    logger: createLogger({ level: 'silent', pretty: 'never' }),
    alerts: { send: (a) => void alerts.push(a) },
    openOrders: {
      reconcile: async () => {
        reconciles += 1
      },
    },
    owed,
  })
  const step = async (ms: number): Promise<void> => {
    for (let t = 0; t < ms; t += 500) {
      clock.increment(500)
      await settle()
    }
  }
  return { clock, owed, sent, alerts, d, step, reconciles: () => reconciles }
}

describe('dead-man switch while cancels are owed', () => {
  it('is not refreshed while a halted instrument owes its cancels, and at once again when they went', async () => {
    const { clock, owed, sent, alerts, d, step } = armed()
    await settle()
    expect(sent).toEqual([0])
    await step(3_000)
    expect(sent).toEqual([0, 3_000])
    // Halted at 3.5 s; its cancel-all waits (a fleet out of budget): the deadline set at 3 s stays.
    await step(500)
    owed.owe(7)
    await step(6_000)
    expect(sent).toEqual([0, 3_000])
    expect(d.state()).toMatchObject({ held: true, deadline: 13_000 })
    expect(alerts.filter((a) => a.key === 'dead-man-held' && a.resolved !== true)).toHaveLength(1)
    // The cancel went through at 9.5 s: refreshed at once, the episode resolved.
    owed.paid(7)
    clock.increment(1)
    await settle()
    expect(sent).toEqual([0, 3_000, 9_501])
    expect(d.state().held).toBe(false)
    expect(alerts.filter((a) => a.key === 'dead-man-held' && a.resolved === true)).toHaveLength(1)
    await d.stop(false)
  })

  it('lets the venue cancel at the deadline when the debt outlasts it, then re-arms and re-reads the orders', async () => {
    const { owed, sent, alerts, d, step, reconciles } = armed()
    await settle()
    await step(1_000)
    owed.owe('all')
    // The deadline set at 0 is 10 s: nothing is sent before it; the first poll after it re-arms.
    await step(9_000)
    expect(sent).toEqual([0])
    await step(3_000)
    expect(sent).toHaveLength(2)
    expect(sent[1]).toBeGreaterThanOrEqual(10_000)
    expect(owed.since()).toBeUndefined()
    await settle()
    expect(reconciles()).toBe(1)
    expect(alerts.map((a) => a.title)).toContain('Dead-man switch re-armed after it lapsed')
    // A debt begun after the lapse holds again.
    owed.owe(3)
    const before = sent.length
    await step(6_000)
    expect(sent).toHaveLength(before)
    await d.stop(false)
  })

  it('a plan for the instrument again (it resumed) settles its debt; a cancel-all of the account settles all', () => {
    const clock = new SimulatedClock()
    const owed = createOwedCancels(clock)
    owed.owe(1)
    clock.increment(10)
    owed.owe(2)
    owed.owe(1)
    expect(owed.since()).toBe(0)
    owed.paid(1)
    expect(owed.since()).toBe(10)
    owed.owe(3)
    owed.paid('all')
    expect(owed.scopes()).toEqual([])
  })
})

describe('the gateway owes a halt until its cancel-all succeeds, at halt priority', () => {
  it('owes from the call, keeps owing after a failure, settles on success; the limiter runs halt as risk', async () => {
    const clock = new SimulatedClock()
    const owed = createOwedCancels(clock)
    const limiter = createWeightLimiter({ clock })
    const priorities: (string | undefined)[] = []
    let fail = true
    let release: () => void = () => undefined
    const gateway = createOrderGateway({
      batcher: { submit: async () => ({ status: 'failed', error: 'unused' }) } as never,
      perps: {
        cancelAll: (_input, options) =>
          limiter.run(
            {
              endpoint: 'cancelAll',
              kind: 'command',
              input: {},
              requestWeight: 1,
              actionWeight: 0,
              priority: options?.priority,
            },
            async () => {
              priorities.push(options?.priority)
              await new Promise<void>((r) => {
                release = r
              })
              if (fail) throw new Error('venue busy')
              return { status: 'ok' } as never
            },
          ),
        cancelOrders: async () => [],
      },
      owed,
    })
    const first = gateway.cancelAll(4)
    await settle()
    expect(owed.scopes()).toEqual([4])
    release()
    await expect(first).rejects.toThrow(/venue busy/)
    expect(owed.scopes()).toEqual([4])
    fail = false
    const second = gateway.cancelAll(4)
    await settle()
    release()
    await second
    expect(owed.scopes()).toEqual([])
    expect(priorities).toEqual(['halt', 'halt'])
    // Locally a halt is risk work (it took the risk reserve, never a quote's place).
    expect(limiter.state().started.risk).toBe(2)
    await limiter.stop()
  })

  it('each cancel-all request is recorded like a batch (the exit’s are journaled): ok, refused', async () => {
    const recorded: { command: string; size: number; outcome: string }[] = []
    let refuse = false
    const gateway = createOrderGateway({
      batcher: { submit: async () => ({ status: 'failed', error: 'unused' }) } as never,
      perps: {
        cancelAll: async () => {
          if (refuse) throw new RequestRejectedError('/v1/trade/orders/all', 503, 'service_unavailable')
          return { status: 'ok' } as never
        },
        cancelOrders: async () => [],
      },
      record: { recordBatch: (b) => void recorded.push(b) },
    })
    await gateway.cancelAll(undefined, { exit: true })
    refuse = true
    await expect(gateway.cancelAll(3)).rejects.toThrow()
    expect(recorded).toEqual([
      { command: 'cancelAll', size: 1, outcome: 'ok' },
      { command: 'cancelAll', size: 1, outcome: 'error' },
    ])
  })
})
