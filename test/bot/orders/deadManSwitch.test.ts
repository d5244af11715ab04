import { describe, expect, it } from 'vitest'
import { SimulatedClock } from 'xstate'
import type { Alert } from '../../../src/alerts/alert.ts'
import { startDeadManSwitch } from '../../../src/bot/orders/deadManSwitch.ts'
import { createSignal } from '../../../src/bot/shared/signal.ts'
import { RequestRejectedError } from '../../../src/errors.ts'
import { createLogger } from '../../../src/logging/logger.ts'
import type { LimiterPause } from '../../../src/perps/throttle/weightLimiter.ts'

const settle = async (): Promise<void> => {
  for (let i = 0; i < 10; i++) await Promise.resolve()
}

function dms(refuse: number) {
  const clock = new SimulatedClock()
  let calls = 0
  const d = startDeadManSwitch({
    perps: {
      async setAutoCancel({ time }) {
        calls += 1
        if (calls <= refuse) throw new RequestRejectedError('/v1/trade/auto-cancel', 500, 'internal_error')
        return { status: 'ok', deadline: time } as never
      },
    },
    clock,
    venueClock: clock,
    deadlineMs: 10_000,
    refreshMs: 3_000,
    logger: createLogger({ level: 'silent', pretty: 'never' }),
    alerts: { send: () => undefined },
  })
  return { clock, d, calls: () => calls }
}

describe('dead-man switch: the start waits for it', () => {
  it('resolves true at the first accepted deadline, after refusals', async () => {
    const { clock, d, calls } = dms(2)
    let armed: boolean | undefined
    void d.whenArmed(10_000).then((a) => {
      armed = a
    })
    await settle()
    expect(armed).toBeUndefined()
    for (let i = 0; i < 8 && armed === undefined; i++) {
      clock.increment(1_000)
      await settle()
    }
    expect(armed).toBe(true)
    expect(calls()).toBe(3)
    await expect(d.whenArmed(1)).resolves.toBe(true)
    await d.stop(false)
  })

  it('resolves false after the bound when the venue keeps refusing', async () => {
    const { clock, d } = dms(1_000)
    let armed: boolean | undefined
    void d.whenArmed(5_000).then((a) => {
      armed = a
    })
    clock.increment(4_999)
    await settle()
    expect(armed).toBeUndefined()
    clock.increment(1)
    await settle()
    expect(armed).toBe(false)
    await d.stop(false)
  })
})

describe('dead-man switch: a pause that outlasts it (issue 24)', () => {
  it('alerts at once, drops the stale refresh, re-arms first thing after the pause and re-reads the orders', async () => {
    const clock = new SimulatedClock()
    const pauses = createSignal<LimiterPause>()
    const sent: number[] = []
    const alerts: Alert[] = []
    let reconciles = 0
    /** The venue holds the refresh behind the pause: it never answers until aborted. */
    let holding = false
    const d = startDeadManSwitch({
      perps: {
        setAutoCancel: async ({ time }, options) => {
          sent.push(clock.now())
          if (holding)
            await new Promise<never>((_, reject) =>
              options?.signal?.addEventListener('abort', () => reject(options.signal?.reason)),
            )
          return { status: 'ok', deadline: time } as never
        },
      },
      clock,
      venueClock: clock,
      deadlineMs: 60_000,
      refreshMs: 20_000,
      logger: createLogger({ level: 'silent', pretty: 'never' }),
      alerts: { send: (a) => void alerts.push(a) },
      pauses,
      openOrders: {
        reconcile: async () => {
          reconciles++
        },
      },
    })
    await settle()
    expect(d.state().armed).toBe(true)
    // The next refresh (at 20 s) waits behind a 70 s risk pause that began then.
    holding = true
    clock.increment(20_000)
    await settle()
    expect(sent).toEqual([0, 20_000])
    pauses.emit({
      scope: 'request',
      holdsRisk: true,
      riskUntil: 90_000,
      durationMs: 70_000,
      until: 90_000,
      cause: 'ip_rate_limited on /v1/trade/auto-cancel',
      clampedRetryAfterMs: 70_000,
    })
    expect(alerts.map((a) => a.title)).toContain('Rate-limit pause outlasts the dead-man switch')
    holding = false
    await settle()
    // Nothing more until the pause ends (the poller's retry backs off past it), then at once.
    for (let t = 20_000; t < 90_000; t += 1_000) {
      clock.increment(1_000)
      await settle()
    }
    expect(sent).toEqual([0, 20_000, 90_000])
    expect(reconciles).toBe(1)
    expect(
      alerts.some((a) => a.title === 'Dead-man switch re-armed after it lapsed' && a.resolved === true),
    ).toBe(true)
    await d.stop(false)
  })
})

describe('the switch status', () => {
  it('is read once armed, and warns when few of the day’s triggers are left', async () => {
    const { VirtualClock } = await import('../../../src/mock/virtualClock.ts')
    const clock = new VirtualClock({ mode: 'stepped', startMs: 1_000_000 })
    const sent: { key: string; title: string }[] = []
    const d = startDeadManSwitch({
      perps: {
        setAutoCancel: async ({ time }) => ({ status: 'ok', deadline: time }),
        getAutoCancel: async () => ({
          deadline: 1_015_000,
          triggered: 8,
          daily_limit: 10,
          next_reset: 2_000_000,
        }),
      },
      clock,
      venueClock: clock,
      deadlineMs: 15_000,
      refreshMs: 5_000,
      logger: createLogger({ level: 'silent', pretty: 'never' }),
      alerts: { send: (a) => sent.push(a) },
    })
    expect(await d.whenArmed(15_000)).toBe(true)
    for (let i = 0; i < 10 && sent.length === 0; i++) await new Promise((r) => setImmediate(r))
    expect(sent).toEqual([expect.objectContaining({ key: 'dead-man-switch-triggers' })])
    await d.stop(false)
  })
})
